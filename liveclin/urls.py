"""LiveClin's quality-check addresses: pages under /reports/ (namespace `liveclin`), API under
/api/reports/ (namespace `liveclin_api`), beside the agreement reports they belong with."""

from django.urls import path

from liveclin import api, views
from liveclin.consolidation import urls as consolidation_urls
from liveclin.labelling import urls as labelling_urls

urlpatterns = [
    path("release/<int:pk>/quality/", views.release_quality, name="release_quality"),
    path("release/<int:pk>/validated.jsonl", views.release_validated_export, name="release_validated_export"),
    path("release/<int:pk>/validated.manifest.json", views.release_validated_manifest,
         name="release_validated_manifest"),
    path("study/<int:pk>/team/", views.study_team, name="study_team"),
    path("study/<int:pk>/judge-run/", views.study_judge_run, name="study_judge_run"),
    path("pipelines/", views.pipeline_comparison, name="pipeline_comparison"),
]

api_urlpatterns = [
    path("releases/<int:pk>/quality/", api.ReleaseQualityAPI.as_view(), name="release_quality"),
    path("releases/<int:pk>/validated/", api.ReleaseValidatedExportAPI.as_view(), name="release_validated_export"),
    path("releases/<int:pk>/validated/manifest/", api.ReleaseValidatedManifestAPI.as_view(),
         name="release_validated_manifest"),
    path("studies/<int:pk>/team/", api.StudyTeamAPI.as_view(), name="study_team"),
    path("studies/<int:pk>/judge-run/", api.StudyJudgeRunAPI.as_view(), name="study_judge_run"),
    path("pipelines/", api.PipelineComparisonAPI.as_view(), name="pipeline_comparison"),
]

# The physician tasks over the AI's labels (App. E, J): pages under /review/labels/, API under
# /api/review/labels/.
labelling_urlpatterns = labelling_urls.urlpatterns
labelling_api_urlpatterns = labelling_urls.api_urlpatterns
consolidation_urlpatterns = consolidation_urls.urlpatterns
consolidation_api_urlpatterns = consolidation_urls.api_urlpatterns
