from django.urls import path

from annotation import api

app_name = "annotation_api"

urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<int:study_pk>/next/", api.ClaimNextAPI.as_view(), name="claim_next"),
    path("studies/<int:study_pk>/progress/", api.ProgressAPI.as_view(), name="study_progress"),
    path("queue/", api.QueueAPI.as_view(), name="queue"),
    path("assignments/<int:pk>/", api.AssignmentDetailAPI.as_view(), name="assignment_detail"),
    path("assignments/<int:pk>/draft/", api.DraftAPI.as_view(), name="draft"),
    path("assignments/<int:pk>/submit/", api.SubmitAPI.as_view(), name="submit"),
    path("assignments/<int:pk>/skip/", api.SkipAPI.as_view(), name="skip"),
    path("inspection/", api.InspectionQueueAPI.as_view(), name="inspection_queue"),
    path("inspection/items/<int:pk>/", api.InspectionDetailAPI.as_view(), name="inspection_detail"),
    path("inspection/items/<int:pk>/accept/", api.AcceptAPI.as_view(), name="inspection_accept"),
    path("inspection/items/<int:pk>/adjudicate/", api.AdjudicateAPI.as_view(), name="inspection_adjudicate"),
    path("inspection/items/<int:pk>/return/", api.ReturnAPI.as_view(), name="inspection_return"),
]
