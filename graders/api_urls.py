from django.urls import path

from graders import api

app_name = "graders_api"

urlpatterns = [
    path("configs/", api.GraderConfigListApi.as_view(), name="config_list"),
    path("configs/<int:pk>/", api.GraderConfigDetailApi.as_view(), name="config_detail"),
    path("jobs/", api.GradingJobListApi.as_view(), name="job_list"),
    path("jobs/<int:pk>/", api.GradingJobDetailApi.as_view(), name="job_detail"),
    path("jobs/<int:pk>/cancel/", api.GradingJobCancelApi.as_view(), name="job_cancel"),
    path("jobs/<int:pk>/resume/", api.GradingJobResumeApi.as_view(), name="job_resume"),
]
