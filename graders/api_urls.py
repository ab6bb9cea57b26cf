from django.urls import path

from graders import api

app_name = "graders_api"

urlpatterns = [
    path("configs/", api.GraderConfigListAPI.as_view(), name="config_list"),
    path("configs/<int:pk>/", api.GraderConfigDetailAPI.as_view(), name="config_detail"),
    path("jobs/", api.GradingJobListAPI.as_view(), name="job_list"),
    path("jobs/<int:pk>/", api.GradingJobDetailAPI.as_view(), name="job_detail"),
    path("jobs/<int:pk>/cancel/", api.GradingJobCancelAPI.as_view(), name="job_cancel"),
    path("jobs/<int:pk>/resume/", api.GradingJobResumeAPI.as_view(), name="job_resume"),
]
