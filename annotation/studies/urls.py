"""Studies' addresses, calibration rounds included (pages under /review/, API under /api/review/;
see `annotation.rating.urls`)."""

from django.urls import path

from annotation.studies import api, views
from annotation.studies.calibration import api as calibration_api
from annotation.studies.calibration import views as calibration_views

urlpatterns = [
    path("studies/", views.admin_dashboard, name="admin_dashboard"),
    path("studies/new/", views.study_new, name="study_new"),
    path("studies/new/preview/", views.study_new_preview, name="study_new_preview"),
    path("studies/<int:pk>/", views.study_detail, name="study_detail"),
    path("studies/<int:pk>/members/", views.study_add_members, name="study_add_members"),
    path("studies/<int:pk>/items/", views.study_add_items, name="study_add_items"),
    path("studies/<int:pk>/status/", views.study_status, name="study_status"),
    path("studies/<int:pk>/groups/", views.study_groups, name="study_groups"),
    path("assignments/<int:pk>/calibration/", calibration_views.calibration_feedback, name="calibration_feedback"),
    path("studies/<int:pk>/calibration/", calibration_views.study_calibration, name="study_calibration"),
    path("studies/<int:pk>/calibration/items/<int:item_pk>/", calibration_views.calibration_item,
         name="calibration_item"),
    path("studies/<int:pk>/calibration/threshold/", calibration_views.calibration_threshold,
         name="calibration_threshold"),
    path("studies/<int:pk>/calibration/admit/", calibration_views.calibration_admit, name="calibration_admit"),
    path("studies/<int:pk>/calibration/import/", calibration_views.calibration_upload, name="calibration_upload"),
]

api_urlpatterns = [
    path("studies/", api.StudyListAPI.as_view(), name="study_list"),
    path("studies/<int:study_pk>/progress/", api.ProgressAPI.as_view(), name="study_progress"),
    path("studies/<int:study_pk>/groups/", api.StudyGroupsAPI.as_view(), name="study_groups"),
    path("studies/<int:study_pk>/labels/import/", api.StudyLabelsImportAPI.as_view(), name="study_labels_import"),
    path("studies/<int:study_pk>/calibration/admit/", calibration_api.CalibrationAdmitAPI.as_view(),
         name="calibration_admit"),
]
