from django.urls import path

from graders import views

app_name = "graders"

urlpatterns = [
    path("", views.job_list, name="job_list"),
    path("jobs/new/", views.job_create, name="job_create"),
    path("jobs/<int:pk>/", views.job_detail, name="job_detail"),
    path("jobs/<int:pk>/progress/", views.job_progress, name="job_progress"),
    path("jobs/<int:pk>/cancel/", views.job_cancel, name="job_cancel"),
    path("jobs/<int:pk>/resume/", views.job_resume, name="job_resume"),
    path("jobs/<int:pk>/retry-failed/", views.job_retry_failed, name="job_retry_failed"),
    path("configs/", views.config_list, name="config_list"),
    path("configs/new/", views.config_create, name="config_create"),
    path("configs/<int:pk>/", views.config_edit, name="config_edit"),
]
