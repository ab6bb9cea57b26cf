"""The review API after review: label and audit-trail exports, effort, an item's history, curations.

Read-only except `POST curations/`. Review events are never written, changed or deleted through the
API (no endpoint accepts PUT, PATCH or DELETE on them: 405). Errors as in `annotation.api`.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access, label_exports
from annotation.api import ReviewBaseAPI
from annotation.curation.build import NAME_PATTERN
from annotation.curation.service import curation_create
from annotation.models import Curation, ReviewEvent, Study, seal_audit_chain
from annotation.outcomes import field_outcomes, study_effort
from annotation.services.audit import study_record_export
from annotation.views_outcomes import check_label_format, events_response, history_url, labels_response
from cases.access import access_release_for_browsing
from cases.exporters import CurationRules
from cases.models import Release

LABEL_FORMAT = OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(label_exports.FORMATS),
                                description="csv, jsonl or xlsx (xlsx adds an effort sheet)")
EVENT_FORMAT = OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=["jsonl", "csv"])
NAMES = OpenApiParameter("names", str, OpenApiParameter.QUERY, enum=["1"],
                         description="1: add actor_name (real user names); admins only, 403 otherwise")
FILE = {(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)}


class CurationInputSerializer(serializers.Serializer):
    name = serializers.RegexField(NAME_PATTERN, max_length=100)
    release = serializers.PrimaryKeyRelatedField(queryset=Release.objects.all())
    studies = serializers.PrimaryKeyRelatedField(queryset=Study.objects.all(), many=True)
    keep_rejected = serializers.BooleanField(default=False)
    review_block = serializers.BooleanField(default=False)
    resolved_only = serializers.BooleanField(default=False)


class CurationSerializer(serializers.ModelSerializer):
    studies = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    files = serializers.DictField(child=serializers.CharField())
    manifest = serializers.DictField()

    class Meta:
        model = Curation
        fields = ["id", "name", "release", "format", "studies", "rules", "files", "manifest", "created_at"]


class StudyLabelsExportAPI(ReviewBaseAPI):
    @extend_schema(parameters=[LABEL_FORMAT], responses=FILE,
                   summary="Final, first-round and later-round labels of a study, long format")
    def get(self, request: Request, study_pk: int, fmt: str) -> HttpResponse:
        study = access.access_study_for_export(request.user, study_pk)
        check_label_format(fmt)
        study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, via="api")
        return labels_response([study], fmt, f"study-{study.pk}-labels")


class ReleaseLabelsExportAPI(ReviewBaseAPI):
    @extend_schema(parameters=[LABEL_FORMAT], responses=FILE,
                   summary="The same, over every study that reviews one release's cases")
    def get(self, request: Request, pk: int, fmt: str) -> HttpResponse:
        release = access_release_for_browsing(request.user, pk)
        check_label_format(fmt)
        studies = list(Study.objects.filter(items__revision__release=release).distinct().order_by("pk"))
        for study in studies:
            study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, release=release.pk,
                                via="api")
        return labels_response(studies, fmt, f"release-{release.pk}-labels")


class StudyEventsExportAPI(ReviewBaseAPI):
    @extend_schema(parameters=[EVENT_FORMAT, NAMES], responses=FILE,
                   summary="A study's audit trail (hash-chained review events), pseudonyms by default")
    def get(self, request: Request, study_pk: int, fmt: str) -> HttpResponse:
        return events_response(request.user, study_pk, fmt, real_names=request.query_params.get("names") == "1",
                               via="api")


class StudyEffortAPI(ReviewBaseAPI):
    @extend_schema(responses=OpenApiTypes.OBJECT,
                   summary="Active review time, items per hour and cost per rater and in total")
    def get(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_export(request.user, study_pk)
        return Response(study_effort(study).as_dict())


class ItemHistoryAPI(ReviewBaseAPI):
    @extend_schema(responses=OpenApiTypes.OBJECT,
                   summary="An item's final decisions, ratings of every round and events (inspectors, admins)")
    def get(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_history(request.user, pk)
        seal_audit_chain(item.study_id)
        fields = [
            {"task": o.task, "field": o.field_key, "position": o.position, "label": o.decision.label,
             "rule": o.decision.rule, "source": o.decision.source, "reason": o.reason,
             "ratings": [{"rater": r.rater_name, "round": r.round, "label": r.label, "comment": r.comment,
                          "seconds": r.seconds} for r in o.ratings]}
            for o in field_outcomes([item.study], item_ids=[item.pk])
        ]
        events = [
            {"seq": e.seq, "kind": e.kind, "actor": e.actor.get_username() if e.actor else None,
             "reason": e.reason, "data": e.data, "created_at": e.created_at, "prev_hash": e.prev_hash,
             "hash": e.hash}
            for e in ReviewEvent.objects.filter(item=item).select_related("actor").order_by("seq")
        ]
        return Response({"item": item.pk, "key": item.key, "study": item.study_id, "status": item.status,
                         "fields": fields, "events": events})


class CurationListAPI(ReviewBaseAPI):
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


class CurationDetailAPI(ReviewBaseAPI):
    @extend_schema(responses=CurationSerializer, summary="One curation with its manifest (admins)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(CurationSerializer(access.access_curation_for_management(request.user, pk)).data)


def _validated(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
