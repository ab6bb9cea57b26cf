from django.urls import path

from annotation import views, views_rating_flow

app_name = "annotation"

urlpatterns = [
    path("", views.physician_dashboard, name="physician_dashboard"),
    path("studies/<int:study_pk>/next/", views.next_item, name="next_item"),
    path("assignments/<int:pk>/", views.rate, name="rate"),
    path("assignments/<int:pk>/submit-next/", views_rating_flow.submit_and_next, name="submit_and_next"),
    path("assignments/<int:pk>/draft/", views.save_draft, name="save_draft"),
    path("assignments/<int:pk>/skip/", views.skip, name="skip"),
    path("inspection/", views.inspector_dashboard, name="inspector_dashboard"),
    path("inspection/items/<int:pk>/", views.inspect, name="inspect"),
    path("studies/", views.admin_dashboard, name="admin_dashboard"),
    path("studies/<int:pk>/", views.study_detail, name="study_detail"),
    path("studies/<int:pk>/members/", views.study_add_members, name="study_add_members"),
    path("studies/<int:pk>/items/", views.study_add_items, name="study_add_items"),
    path("studies/<int:pk>/status/", views.study_status, name="study_status"),
]
