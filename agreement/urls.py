from django.urls import path

from agreement import views
from agreement.quality_check import views as quality_views
from agreement.views_translation import study_translation_consistency

app_name = "agreement"

urlpatterns = [
    path("", views.report_index, name="report_index"),
    path("study/<int:pk>/", views.study_report, name="report"),
    path("study/<int:pk>/export/<str:fmt>/", views.study_export, name="study_export"),
    path("study/<int:pk>/labels.csv", views.study_labels, name="study_labels"),
    path("study/<int:pk>/chart/<slug:key>.png", views.study_chart, name="study_chart"),
    path("study/<int:pk>/report.pdf", views.study_pdf, name="study_pdf"),
    path("release/<int:pk>/", views.release_report, name="release_report"),
    path("release/<int:pk>/export/<str:fmt>/", views.release_export, name="release_export"),
    path("release/<int:pk>/labels.csv", views.release_labels, name="release_labels"),
    path("release/<int:pk>/chart/<slug:key>.png", views.release_chart, name="release_chart"),
    # LiveClin's quality check (agreement/quality_check): outcomes, funnel, Judge vs physicians, export.
    path("release/<int:pk>/quality/", quality_views.release_quality, name="release_quality"),
    path("release/<int:pk>/validated.jsonl", quality_views.release_validated_export, name="release_validated_export"),
    path("study/<int:pk>/team/", quality_views.study_team, name="study_team"),
    path("study/<int:pk>/translation-consistency/", study_translation_consistency,
         name="study_translation_consistency"),
    path("release/<int:pk>/report.pdf", views.release_pdf, name="release_pdf"),
]
