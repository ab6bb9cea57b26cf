from django.urls import path

from agreement import views

app_name = "agreement"

urlpatterns = [
    path("", views.report_index, name="report_index"),
    path("study/<int:pk>/", views.study_report, name="report"),
    path("study/<int:pk>/export/<str:fmt>/", views.study_export, name="study_export"),
    path("study/<int:pk>/labels.csv", views.study_labels, name="study_labels"),
    path("study/<int:pk>/chart/<slug:key>.png", views.study_chart, name="study_chart"),
    path("study/<int:pk>/report.pdf", views.study_pdf, name="study_pdf"),
    path("release/<int:pk>/", views.release_report, name="release_report"),
    path("release/<int:pk>/export/<str:fmt>/", views.release_export, name="release_export"),
    path("release/<int:pk>/labels.csv", views.release_labels, name="release_labels"),
    path("release/<int:pk>/chart/<slug:key>.png", views.release_chart, name="release_chart"),
    path("study/<int:pk>/translation-consistency/", views.study_translation_consistency,
         name="study_translation_consistency"),
    path("release/<int:pk>/report.pdf", views.release_pdf, name="release_pdf"),
]
