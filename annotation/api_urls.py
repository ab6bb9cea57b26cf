from django.urls import path

from annotation import api, api_labels_import, api_outcomes, api_review

app_name = "annotation_api"

urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<int:study_pk>/next/", api.ClaimNextAPI.as_view(), name="claim_next"),
    path("studies/<int:study_pk>/progress/", api.ProgressAPI.as_view(), name="study_progress"),
    path("studies/<int:study_pk>/labels/import/", api_labels_import.StudyLabelsImportAPI.as_view(),
         name="study_labels_import"),
    path("queue/", api.QueueAPI.as_view(), name="queue"),
    path("assignments/<int:pk>/", api.AssignmentDetailAPI.as_view(), name="assignment_detail"),
    path("assignments/<int:pk>/draft/", api.DraftAPI.as_view(), name="draft"),
    path("assignments/<int:pk>/submit/", api.SubmitAPI.as_view(), name="submit"),
    path("assignments/<int:pk>/skip/", api.SkipAPI.as_view(), name="skip"),
    path("assignments/<int:pk>/edit/", api_review.AssignmentEditAPI.as_view(), name="edit"),
    path("assignments/<int:pk>/release/", api_review.AssignmentReleaseAPI.as_view(), name="release"),
    path("studies/<int:study_pk>/calibration/admit/", api_review.CalibrationAdmitAPI.as_view(),
         name="calibration_admit"),
    path("inspection/", api.InspectionQueueAPI.as_view(), name="inspection_queue"),
    path("inspection/items/<int:pk>/", api.InspectionDetailAPI.as_view(), name="inspection_detail"),
    path("inspection/items/<int:pk>/accept/", api.AcceptAPI.as_view(), name="inspection_accept"),
    path("inspection/items/<int:pk>/adjudicate/", api.AdjudicateAPI.as_view(), name="inspection_adjudicate"),
    path("inspection/items/<int:pk>/return/", api.ReturnAPI.as_view(), name="inspection_return"),
    # After review (docs/curation.md)
    path("studies/<int:study_pk>/labels/<str:fmt>/", api_outcomes.StudyLabelsExportAPI.as_view(),
         name="study_labels_export"),
    path("studies/<int:study_pk>/events/<str:fmt>/", api_outcomes.StudyEventsExportAPI.as_view(),
         name="study_events_export"),
    path("studies/<int:study_pk>/effort/", api_outcomes.StudyEffortAPI.as_view(), name="study_effort"),
    path("releases/<int:pk>/labels/<str:fmt>/", api_outcomes.ReleaseLabelsExportAPI.as_view(),
         name="release_labels_export"),
    path("items/<int:pk>/history/", api_outcomes.ItemHistoryAPI.as_view(), name="item_history"),
    path("curations/", api_outcomes.CurationListAPI.as_view(), name="curation_list"),
    path("curations/<int:pk>/", api_outcomes.CurationDetailAPI.as_view(), name="curation_detail"),
]
