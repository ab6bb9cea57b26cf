from django.urls import path

from agreement import views

app_name = "agreement"

urlpatterns = [
    path("", views.report_index, name="report_index"),
    path("study/<int:pk>/", views.study_report, name="report"),
    path("study/<int:pk>/export/<str:fmt>/", views.study_export, name="study_export"),
    path("study/<int:pk>/labels.csv", views.study_labels, name="study_labels"),
    path("release/<int:pk>/", views.release_report, name="release_report"),
    path("release/<int:pk>/export/<str:fmt>/", views.release_export, name="release_export"),
    path("release/<int:pk>/labels.csv", views.release_labels, name="release_labels"),
]
