from django.urls import path

from cases import views

app_name = "cases"

urlpatterns = [
    path("", views.release_list, name="release_list"),
    path("releases/<int:pk>/", views.release_detail, name="release_detail"),
    path("cases/<int:pk>/", views.case_detail, name="case_detail"),
    path("import/", views.import_upload, name="import_upload"),
    path("import/<int:pk>/", views.import_job, name="import_job"),
    path("import/<int:pk>/progress/", views.import_job_progress, name="import_job_progress"),
    path("import/<int:pk>/confirm/", views.import_confirm, name="import_confirm"),
]
