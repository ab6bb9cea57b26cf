"""The LiveClin quality check over the API (researchers and admins, like every report), and a study's
Judge run (its readers may see it; admins pin another)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.access import PERMISSIONS, access_release_for_report, access_study_for_report
from annotation.access import access_study_for_management, access_study_for_progress
from graders.models import GraderRun
from liveclin.judge_runs import later_runs, pinned_run, run_dict, study_judge_run_pin
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.pipelines import chosen_releases, pipeline_table
from liveclin.quality.rules import quality_report
from liveclin.quality.team import team_composition
from medreview.drf import TokenFirstAPIView

RUN = OpenApiParameter("run", int, description="Read the report with this Judge run instead of the pinned one")


class ReleaseQualityAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="LiveClin quality check of a release", parameters=[RUN],
                   description="Funnel, pass rates, Judge vs physicians per check (AC1, Macro-F1) and every "
                               "question set with its pre-screen result, physician verdicts and outcome; the Judge "
                               "run used (`basis`: pinned by the reviewing studies, asked for, or the latest when "
                               "no study pins one), later runs, and each reviewing study's options.")
    def get(self, request: Request, pk: int) -> Response:
        release = access_release_for_report(request.user, pk)
        value = request.query_params.get("run", "")
        review = release_review(release, run_id=int(value) if value.isdigit() else None)
        body = quality_report(review.sets)
        report_run = review.report_run
        return Response({
            "release": release.pk,
            "judge_run": report_run.run_dict() if report_run else None,
            "later_judge_runs": [run_dict(r) for r in report_run.later] if report_run else [],
            "studies": report_run.studies if report_run else [],
            **body,
        })


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


class ReleaseValidatedManifestAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="The validated export's manifest",
                   description="The file's SHA-256 and set count, the Judge run whose flags were weighed, and each "
                               "reviewing study's show_prescreen, min_inspector_rank and pinned Judge run.")
    def get(self, request: Request, pk: int) -> Response:
        release = access_release_for_report(request.user, pk)
        return Response(validated_export(release_review(release)).manifest)


class StudyTeamAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Team composition per study phase (LiveClin Fig. 4)")
    def get(self, request: Request, pk: int) -> Response:
        study = access_study_for_report(request.user, pk)
        return Response({"study": study.pk, "phases": [p.as_dict() for p in team_composition(study)]})


class PinInputSerializer(serializers.Serializer):
    run = serializers.IntegerField(help_text="The question-set judge run to pin")


def _pin_body(study: Any, requeued: list[int] | None = None) -> dict[str, Any]:
    run = pinned_run(study)
    body = {"study": study.pk, "judge_run": run_dict(run) if run else None,
            "later_judge_runs": [run_dict(r) for r in later_runs(study, run)]}
    return body if requeued is None else {**body, "requeued": requeued}


class StudyJudgeRunAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, summary="The Judge run a study's quality check uses, and later runs")
    def get(self, request: Request, pk: int) -> Response:
        return Response(_pin_body(access_study_for_progress(request.user, pk)))

    @extend_schema(request=PinInputSerializer, responses=OpenApiTypes.OBJECT,
                   summary="Pin another Judge run (admins); sets decided before its new flags go back to inspection")
    def post(self, request: Request, pk: int) -> Response:
        study = access_study_for_management(request.user, pk)
        data = PinInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        run = GraderRun.objects.filter(pk=data.validated_data["run"]).first()
        if run is None:
            raise serializers.ValidationError({"run": [_("run: no Judge run %(id)s.") % {"id": data.validated_data["run"]}]})
        requeued = study_judge_run_pin(study=study, run=run, actor=request.user)
        return Response(_pin_body(study, [i.pk for i in requeued]))


class PipelineComparisonAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="LiveClin Table 1: generation pipelines compared",
                   parameters=[OpenApiParameter("release", int, many=True, required=True,
                                                description="Each pipeline's release, two or more of one dataset")],
                   description="Per pipeline the physician-validated pass rate with its Wilson interval and the "
                               "pass rate on the Judge-approved sets; per pair McNemar's test on the case reports "
                               "both pipelines produced sets for.")
    def get(self, request: Request) -> Response:
        try:
            releases = chosen_releases(request.query_params.getlist("release"),
                                       lambda pk: access_release_for_report(request.user, pk))
        except ValueError as exc:
            raise serializers.ValidationError({"release": [str(exc)]}) from exc
        return Response(pipeline_table(releases))
