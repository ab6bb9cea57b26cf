"""Consolidation addresses: pages under /review/consolidations/ (namespace `consolidation`), API
under /api/review/consolidations/ (namespace `consolidation_api`); `liveclin.urls` hands them on."""

from django.urls import path

from liveclin.consolidation import api, views

urlpatterns = [
    path("", views.consolidation_list, name="list"),
    path("<int:pk>/", views.consolidation_detail, name="detail"),
    path("<int:pk>/review/", views.consolidation_review_label, name="review"),
    path("<int:pk>/revise/", views.consolidation_revise_view, name="revise"),
    path("<int:pk>/approve/", views.consolidation_approve_view, name="approve"),
    path("<int:pk>/report/", views.consolidation_report, name="report"),
]

api_urlpatterns = [
    path("<int:pk>/", api.ConsolidationAPI.as_view(), name="detail"),
    path("<int:pk>/review/", api.ConsolidationReviewAPI.as_view(), name="review"),
    path("<int:pk>/report/", api.ConsolidationReportAPI.as_view(), name="report"),
]
