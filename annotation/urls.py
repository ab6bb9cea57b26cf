from django.urls import path

from annotation import views, views_calibration, views_outcomes, views_rating_flow, views_review, views_triage

app_name = "annotation"

urlpatterns = [
    path("", views.physician_dashboard, name="physician_dashboard"),
    path("studies/<int:study_pk>/next/", views.next_item, name="next_item"),
    path("assignments/<int:pk>/", views.rate, name="rate"),
    path("assignments/<int:pk>/submit-next/", views_rating_flow.submit_and_next, name="submit_and_next"),
    path("assignments/<int:pk>/draft/", views.save_draft, name="save_draft"),
    path("assignments/<int:pk>/skip/", views.skip, name="skip"),
    path("assignments/<int:pk>/release/", views_review.release, name="release"),
    path("assignments/<int:pk>/undo/", views_review.undo_submit, name="undo_submit"),
    path("settings/after-submit/", views_review.after_submit_setting, name="after_submit_setting"),
    path("assignments/<int:pk>/calibration/", views_calibration.calibration_feedback, name="calibration_feedback"),
    path("studies/<int:pk>/calibration/", views_calibration.study_calibration, name="study_calibration"),
    path("studies/<int:pk>/calibration/admit/", views_calibration.calibration_admit, name="calibration_admit"),
    path("studies/<int:pk>/calibration/import/", views_calibration.calibration_upload, name="calibration_upload"),
    path("inspection/", views_triage.inspector_dashboard, name="inspector_dashboard"),
    path("inspection/items/<int:pk>/", views_triage.inspect, name="inspect"),
    path("studies/", views.admin_dashboard, name="admin_dashboard"),
    path("studies/<int:pk>/", views.study_detail, name="study_detail"),
    path("studies/<int:pk>/members/", views.study_add_members, name="study_add_members"),
    path("studies/<int:pk>/items/", views.study_add_items, name="study_add_items"),
    path("studies/<int:pk>/status/", views.study_status, name="study_status"),
    # After review (docs/curation.md): exports, item history, effort, curations.
    path("studies/<int:pk>/labels/<str:fmt>/", views_outcomes.study_labels_export, name="study_labels_export"),
    path("studies/<int:pk>/events/<str:fmt>/", views_outcomes.study_events_export, name="study_events_export"),
    path("studies/<int:pk>/hourly-rate/", views_outcomes.study_hourly_rate, name="study_hourly_rate"),
    path("releases/<int:pk>/labels/<str:fmt>/", views_outcomes.release_labels_export, name="release_labels_export"),
    path("items/<int:pk>/history/", views_outcomes.item_history, name="item_history"),
    path("curations/", views_outcomes.curation_list, name="curation_list"),
    path("curations/<int:pk>/", views_outcomes.curation_detail, name="curation_detail"),
    path("curations/<int:pk>/files/<str:name>", views_outcomes.curation_file, name="curation_file"),
]
