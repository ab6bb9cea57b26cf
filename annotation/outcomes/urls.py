"""Outcomes' addresses: exports, effort, curations (pages under /review/, API under /api/review/;
see `annotation.rating.urls`; docs/curation.md)."""

from django.urls import path

from annotation.outcomes import api, views

urlpatterns = [
    path("effort/", views.effort_overview, name="effort_overview"),
    path("studies/<int:pk>/labels/<str:fmt>/", views.study_labels_export, name="study_labels_export"),
    path("studies/<int:pk>/events/<str:fmt>/", views.study_events_export, name="study_events_export"),
    path("studies/<int:pk>/hourly-rate/", views.study_hourly_rate, name="study_hourly_rate"),
    path("releases/<int:pk>/labels/<str:fmt>/", views.release_labels_export, name="release_labels_export"),
    path("curations/", views.curation_list, name="curation_list"),
    path("curations/<int:pk>/", views.curation_detail, name="curation_detail"),
    path("curations/<int:pk>/files/<str:name>", views.curation_file, name="curation_file"),
]

api_urlpatterns = [
    path("studies/<int:study_pk>/labels/<str:fmt>/", api.StudyLabelsExportAPI.as_view(), name="study_labels_export"),
    path("studies/<int:study_pk>/events/<str:fmt>/", api.StudyEventsExportAPI.as_view(), name="study_events_export"),
    path("studies/<int:study_pk>/effort/", api.StudyEffortAPI.as_view(), name="study_effort"),
    path("releases/<int:pk>/labels/<str:fmt>/", api.ReleaseLabelsExportAPI.as_view(), name="release_labels_export"),
    path("curations/", api.CurationListAPI.as_view(), name="curation_list"),
    path("curations/<int:pk>/", api.CurationDetailAPI.as_view(), name="curation_detail"),
]
