"""Inspection's addresses (pages under /review/, API under /api/review/; see `annotation.rating.urls`)."""

from django.urls import path

from annotation.inspection import api, views

urlpatterns = [
    path("inspection/", views.inspector_dashboard, name="inspector_dashboard"),
    path("inspection/items/<int:pk>/", views.inspect, name="inspect"),
    path("items/<int:pk>/history/", views.item_history, name="item_history"),
]

api_urlpatterns = [
    path("inspection/", api.InspectionQueueAPI.as_view(), name="inspection_queue"),
    path("inspection/items/<int:pk>/", api.InspectionDetailAPI.as_view(), name="inspection_detail"),
    path("inspection/items/<int:pk>/accept/", api.AcceptAPI.as_view(), name="inspection_accept"),
    path("inspection/items/<int:pk>/adjudicate/", api.AdjudicateAPI.as_view(), name="inspection_adjudicate"),
    path("inspection/items/<int:pk>/return/", api.ReturnAPI.as_view(), name="inspection_return"),
    path("inspection/items/<int:pk>/reject-set/", api.RejectSetAPI.as_view(), name="inspection_reject_set"),
    path("items/<int:pk>/history/", api.ItemHistoryAPI.as_view(), name="item_history"),
]
