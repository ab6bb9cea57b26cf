"""The API after review: label and audit-trail exports, effort, curations.

Read-only except `POST curations/`. Review events are never written, changed or deleted through the
API (no endpoint accepts PUT, PATCH or DELETE on them: 405).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access
from annotation.models import Study
from annotation.outcomes import label_exports
from annotation.outcomes.curation.service import curation_create
from annotation.outcomes.responses import (
    check_label_format,
    events_response,
    history_url,
    labels_response,
    wants_calibration,
)
from annotation.outcomes.selectors import study_effort
from annotation.outcomes.serializers import CurationInputSerializer, CurationSerializer
from annotation.outcomes.services import study_record_export
from cases.access import access_release_for_browsing
from cases.exporters import CurationRules
from medreview.drf import TokenFirstAPIView

LABEL_FORMAT = OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(label_exports.FORMATS),
                                description="csv, jsonl or xlsx (xlsx adds an effort sheet)")


CALIBRATION = OpenApiParameter(
    "calibration", str, OpenApiParameter.QUERY, enum=["1"],
    description="1: include calibration items' labels (known answers rated before a study, round 0), each row "
                "marked calibration=true; left out by default so they never mix into a study's figures")


EVENT_FORMAT = OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=["jsonl", "csv"])


NAMES = OpenApiParameter("names", str, OpenApiParameter.QUERY, enum=["1"],
                         description="1: add actor_name (real user names); admins only, 403 otherwise")


FILE = {(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)}


class StudyLabelsExportAPI(TokenFirstAPIView):
    @extend_schema(parameters=[LABEL_FORMAT, CALIBRATION], responses=FILE,
                   summary="Final, first-round and later-round labels of a study, long format")
    def get(self, request: Request, study_pk: int, fmt: str) -> HttpResponse:
        study = access.access_study_for_export(request.user, study_pk)
        check_label_format(fmt)
        study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, via="api")
        return labels_response(request.user, [study], fmt, f"study-{study.pk}-labels",
                               calibration=wants_calibration(request.query_params))


class ReleaseLabelsExportAPI(TokenFirstAPIView):
    @extend_schema(parameters=[LABEL_FORMAT, CALIBRATION], responses=FILE,
                   summary="The same, over every study that reviews one release's cases")
    def get(self, request: Request, pk: int, fmt: str) -> HttpResponse:
        release = access_release_for_browsing(request.user, pk)
        check_label_format(fmt)
        studies = list(Study.objects.filter(items__revision__release=release).distinct().order_by("pk"))
        for study in studies:
            study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, release=release.pk,
                                via="api")
        return labels_response(request.user, studies, fmt, f"release-{release.pk}-labels",
                               calibration=wants_calibration(request.query_params))


class StudyEventsExportAPI(TokenFirstAPIView):
    @extend_schema(parameters=[EVENT_FORMAT, NAMES], responses=FILE,
                   summary="A study's audit trail (hash-chained review events), pseudonyms by default")
    def get(self, request: Request, study_pk: int, fmt: str) -> HttpResponse:
        return events_response(request.user, study_pk, fmt, real_names=request.query_params.get("names") == "1",
                               via="api")


class StudyEffortAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT,
                   summary="Active review time, items per hour and cost per rater and in total")
    def get(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_export(request.user, study_pk)
        return Response(study_effort(study).as_dict())


class CurationListAPI(TokenFirstAPIView):
    @extend_schema(responses=CurationSerializer(many=True), summary="Curated releases (admins)")
    def get(self, request: Request) -> Response:
        curations = access.access_curations_for_management(request.user).prefetch_related("studies")
        return Response(CurationSerializer(curations, many=True).data)

    @extend_schema(request=CurationInputSerializer, responses={201: CurationSerializer, 200: CurationSerializer},
                   summary="Curate a release with the final labels of chosen studies (admins)")
    def post(self, request: Request) -> Response:
        access.check_can_curate(request.user)
        data: dict[str, Any] = _validated(CurationInputSerializer, request.data)
        rules = CurationRules(keep_rejected_criteria=data["keep_rejected"], review_block=data["review_block"],
                              resolved_only=data["resolved_only"])
        curation, created = curation_create(name=data["name"], release=data["release"], studies=data["studies"],
                                            rules=rules, actor=request.user, history_url=history_url)
        return Response(CurationSerializer(curation).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class CurationDetailAPI(TokenFirstAPIView):
    @extend_schema(responses=CurationSerializer, summary="One curation with its manifest (admins)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(CurationSerializer(access.access_curation_for_management(request.user, pk)).data)


def _validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
