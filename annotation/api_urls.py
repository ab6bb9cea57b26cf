from django.urls import path

from annotation import api

app_name = "annotation_api"

urlpatterns = [
    path("studies/", api.StudyListView.as_view(), name="study_list"),
    path("studies/<int:study_pk>/next/", api.ClaimNextView.as_view(), name="claim_next"),
    path("studies/<int:study_pk>/progress/", api.ProgressView.as_view(), name="study_progress"),
    path("queue/", api.QueueView.as_view(), name="queue"),
    path("assignments/<int:pk>/", api.AssignmentDetailView.as_view(), name="assignment_detail"),
    path("assignments/<int:pk>/draft/", api.DraftView.as_view(), name="draft"),
    path("assignments/<int:pk>/submit/", api.SubmitView.as_view(), name="submit"),
    path("assignments/<int:pk>/skip/", api.SkipView.as_view(), name="skip"),
    path("inspection/", api.InspectionQueueView.as_view(), name="inspection_queue"),
    path("inspection/items/<int:pk>/", api.InspectionDetailView.as_view(), name="inspection_detail"),
    path("inspection/items/<int:pk>/accept/", api.AcceptView.as_view(), name="inspection_accept"),
    path("inspection/items/<int:pk>/adjudicate/", api.AdjudicateView.as_view(), name="inspection_adjudicate"),
    path("inspection/items/<int:pk>/return/", api.ReturnView.as_view(), name="inspection_return"),
]
