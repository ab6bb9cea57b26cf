"""The LiveClin quality check over the API (researchers and admins, like every report)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.access import PERMISSIONS, access_release_for_report, access_study_for_report
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.rules import quality_report
from liveclin.quality.team import team_composition


class ReleaseQualityAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="LiveClin quality check of a release",
                   description="Funnel, pass rates, Judge vs physicians per check (AC1, Macro-F1) and every "
                               "question set with its pre-screen result, physician verdicts and outcome.")
    def get(self, request: Request, pk: int) -> Response:
        release = access_release_for_report(request.user, pk)
        review = release_review(release)
        body = quality_report(review.sets)
        return Response({"release": release.pk, "judge_run": review.run.pk if review.run else None, **body})


class ReleaseValidatedExportAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses={(200, "application/jsonl"): OpenApiResponse(OpenApiTypes.BINARY)},
                   summary="The validated question sets in the liveclin format (JSONL)")
    def get(self, request: Request, pk: int) -> HttpResponse:
        release = access_release_for_report(request.user, pk)
        export = validated_export(release_review(release))
        response = HttpResponse(export.data, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{export.file_name}"'
        return response


class StudyTeamAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Team composition per study phase (LiveClin Fig. 4)")
    def get(self, request: Request, pk: int) -> Response:
        study = access_study_for_report(request.user, pk)
        return Response({"study": study.pk, "phases": [p.as_dict() for p in team_composition(study)]})
