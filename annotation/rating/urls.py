"""Rating's addresses: pages under /review/ (namespace `annotation`), API under /api/review/
(namespace `annotation_api`); `annotation.urls` and `annotation.api_urls` gather every workflow's."""

from django.urls import path

from annotation.rating import api, views

urlpatterns = [
    path("", views.physician_dashboard, name="physician_dashboard"),
    path("studies/<int:study_pk>/next/", views.next_item, name="next_item"),
    path("assignments/<int:pk>/", views.rate, name="rate"),
    path("assignments/<int:pk>/submit-next/", views.submit_and_next, name="submit_and_next"),
    path("assignments/<int:pk>/draft/", views.save_draft, name="save_draft"),
    path("assignments/<int:pk>/skip/", views.skip, name="skip"),
    path("assignments/<int:pk>/release/", views.release, name="release"),
    path("assignments/<int:pk>/undo/", views.undo_submit, name="undo_submit"),
    path("settings/after-submit/", views.after_submit_setting, name="after_submit_setting"),
]

api_urlpatterns = [
    path("studies/<int:study_pk>/next/", api.ClaimNextAPI.as_view(), name="claim_next"),
    path("queue/", api.QueueAPI.as_view(), name="queue"),
    path("assignments/<int:pk>/", api.AssignmentDetailAPI.as_view(), name="assignment_detail"),
    path("assignments/<int:pk>/draft/", api.DraftAPI.as_view(), name="draft"),
    path("assignments/<int:pk>/submit/", api.SubmitAPI.as_view(), name="submit"),
    path("assignments/<int:pk>/skip/", api.SkipAPI.as_view(), name="skip"),
    path("assignments/<int:pk>/edit/", api.AssignmentEditAPI.as_view(), name="edit"),
    path("assignments/<int:pk>/release/", api.AssignmentReleaseAPI.as_view(), name="release"),
]
