from django.urls import path

from agreement import api

app_name = "agreement_api"

urlpatterns = [
    path("studies/", api.StudyListApi.as_view(), name="study_list"),
    path("studies/<int:pk>/", api.StudyReportApi.as_view(), name="study_report"),
    path("studies/<int:pk>/export/<str:fmt>/", api.StudyExportApi.as_view(), name="study_export"),
    path("studies/<int:pk>/labels/", api.StudyLabelsApi.as_view(), name="study_labels"),
    path("releases/<int:pk>/", api.ReleaseReportApi.as_view(), name="release_report"),
    path("releases/<int:pk>/export/<str:fmt>/", api.ReleaseExportApi.as_view(), name="release_export"),
]
