from django.urls import path

from agreement import api

app_name = "agreement_api"

urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<int:pk>/", api.StudyReportAPI.as_view(), name="study_report"),
    path("studies/<int:pk>/export/<str:fmt>/", api.StudyExportAPI.as_view(), name="study_export"),
    path("studies/<int:pk>/labels/", api.StudyLabelsAPI.as_view(), name="study_labels"),
    path("studies/<int:pk>/translation-consistency/", api.TranslationConsistencyAPI.as_view(),
         name="study_translation_consistency"),
    path("studies/<int:pk>/report.pdf", api.StudyReportPDFAPI.as_view(), name="study_pdf"),
    path("releases/<int:pk>/", api.ReleaseReportAPI.as_view(), name="release_report"),
    path("releases/<int:pk>/export/<str:fmt>/", api.ReleaseExportAPI.as_view(), name="release_export"),
    path("releases/<int:pk>/report.pdf", api.ReleaseReportPDFAPI.as_view(), name="release_pdf"),
]
