"""The studies API: the studies a user may see, creating one, its progress, and importing
physicians' labels collected outside medreview into it.

The labels import is for admins only (like managing the study). One file, one transaction: 201 with
the report when imported, 200 for a dry run, 400 with every located error (file, record, field).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authentication import SessionAuthentication
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.roles import user_role
from annotation import access
from annotation.access import access_study_for_management
from annotation.models import Study, StudyMember
from annotation.protocols import study_fields
from annotation.studies.groups import study_set_rater_groups
from annotation.studies.outside_labels import physician_labels_import
from annotation.studies.selectors import study_progress
from annotation.studies.serializers import (
    LabelsImportSerializer,
    ProgressSerializer,
    StudyCreateInputSerializer,
    StudySerializer,
)
from annotation.studies.services import ItemSelection
from annotation.studies.setup import StudySetUp, cost_options, study_set_up, users_by_username
from medreview.authentication import ProfileTokenAuthentication
from medreview.drf import TokenFirstAPIView


def _study(study: Study, roles: list[str], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "id": study.pk, "name": study.name, "status": study.status,
        "tasks": [t.slug for t in study.tasks.all()], "raters_per_item": study.raters_per_item,
        "inspect_all": study.inspect_all, "inspect_disagreements": study.inspect_disagreements,
        "inspect_share": study.inspect_share, "deadline": study.deadline, "guidelines": study.guidelines,
        "items": study.item_count if hasattr(study, "item_count") else study.items.count(),
        "my_roles": roles,
        # What decides what raters and inspectors see and who may inspect (issue 20).
        "show_prescreen": study.show_prescreen, "min_inspector_rank": study.min_inspector_rank,
        "judge_run": None, **(extra or {}),
    }


class StudyListAPI(TokenFirstAPIView):
    @extend_schema(responses=StudySerializer(many=True), summary="Studies the user may see")
    def get(self, request: Request) -> Response:
        studies = list(
            access.access_studies_for_listing(request.user).annotate(item_count=Count("items", distinct=True))
            .prefetch_related("tasks").order_by("-created_at")
        )
        roles: dict[int, list[str]] = {}
        for study_id, role in StudyMember.objects.filter(user=request.user, study__in=studies).values_list(
            "study_id", "role"
        ):
            roles.setdefault(study_id, []).append(role)
        extras = study_fields(studies)
        return Response(StudySerializer([_study(s, roles.get(s.pk, []), extras.get(s.pk)) for s in studies],
                                        many=True).data)

    @extend_schema(request=StudyCreateInputSerializer, responses={201: StudySerializer},
                   summary="Create a study (admin)")
    def post(self, request: Request) -> Response:
        access.check_can_manage_studies(request.user, gettext("Only admins create studies."))
        data = StudyCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        raters = users_by_username(v["raters"], "raters")
        inspectors = users_by_username(v["inspectors"], "inspectors")
        group_users = {u.get_username(): u for u in users_by_username(list(v["groups"]), "groups")}
        selection = ItemSelection(
            kind=v["kind"], dataset=v["dataset"], release_label=v["release_label"], model_names=v["model_names"],
            specialties=v["specialties"], themes=v["themes"], difficulty=v["difficulty"], register=v["register"],
            language=v["language"], post_month_from=v["post_month_from"], post_month_to=v["post_month_to"],
            sample_n=v["sample_n"], seed=v["seed"], passed_prescreen=v["passed_prescreen"], validated=v["validated"],
        )
        option_names = (
            "raters_per_item", "inspect_all", "inspect_disagreements", "inspect_share", "guidelines", "deadline",
            "required_specialties", "required_languages", "lease_minutes", "seed", "show_prescreen",
            "min_inspector_rank", "calibration_threshold", "text_display", "translation_language",
        )
        spec = StudySetUp(
            name=v["name"], task_slugs=v["task_slugs"], selection=selection, raters=raters, inspectors=inspectors,
            groups={group_users[name]: group for name, group in v["groups"].items()}, start=v["start"],
            options={**{name: v[name] for name in option_names},
                     **cost_options(hourly_rate=v["hourly_rate"], currency=v["currency"])},
        )
        study = study_set_up(spec=spec, actor=request.user)
        return Response(StudySerializer(_study(study, [], study_fields([study]).get(study.pk))).data,
                        status=status.HTTP_201_CREATED)


class ProgressAPI(TokenFirstAPIView):
    @extend_schema(responses=ProgressSerializer,
                   summary="Study progress (admin, the study's inspectors, researchers)")
    def get(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_progress(request.user, study_pk)
        progress = study_progress(study=study)
        pseudonyms = user_role(request.user) == Role.RESEARCHER
        body = {
            "study": study.pk,
            "total_items": progress.total_items,
            "items_by_status": progress.items_by_status,
            "per_rater": [
                {"rater": r.pseudonym if pseudonyms else r.name, "in_progress": r.in_progress,
                 "submitted": r.submitted, "returned": r.returned, "revised": r.revised, "skipped": r.skipped,
                 "median_seconds": r.median_seconds}
                for r in progress.per_rater
            ],
            "per_task": [{"task": t.task.slug, "first_round_ratings": t.first_round_ratings,
                          "items_rated": t.items_rated} for t in progress.per_task],
            "throughput": [{"day": d, "submissions": n} for d, n in progress.throughput],
            "submissions_per_day": progress.submissions_per_day,
            "median_seconds_per_item": progress.median_seconds_per_item,
            "stuck_items": [i.pk for i in progress.stuck],
        }
        return Response(ProgressSerializer(body).data)


class GroupsSerializer(serializers.Serializer):
    groups = serializers.DictField(
        child=serializers.ChoiceField(choices=["A", "B", ""]),
        help_text="{rater username: \"A\", \"B\" or \"\" (no group)}; raters not named keep their group",
    )


class StudyGroupsAPI(TokenFirstAPIView):
    """Expert groups by design (ClinConsensus Sec. 3.4): which of the study's raters are in group A or B."""

    @extend_schema(responses=GroupsSerializer, summary="The study's expert groups (admins)")
    def get(self, request: Request, study_pk: int) -> Response:
        study = access_study_for_management(request.user, study_pk)
        return Response(GroupsSerializer({"groups": _groups(study)}).data)

    @extend_schema(request=GroupsSerializer, responses=GroupsSerializer,
                   summary="Put raters in expert group A or B (admins)")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access_study_for_management(request.user, study_pk)
        body = GroupsSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        users = {u.get_username(): u for u in users_by_username(list(body.validated_data["groups"]), "groups")}
        study_set_rater_groups(study=study, actor=request.user,
                               groups={users[name]: group for name, group in body.validated_data["groups"].items()})
        return Response(GroupsSerializer({"groups": _groups(study)}).data)


def _groups(study: Study) -> dict[str, str]:
    return dict(StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER)
                .values_list("user__username", "group").order_by("user__username"))


MAX_BYTES = 50 * 1024 * 1024


class StudyLabelsImportAPI(APIView):
    authentication_classes = [ProfileTokenAuthentication, SessionAuthentication]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=LabelsImportSerializer, responses={200: dict, 201: dict, 400: dict},
                   summary="Import physicians' labels collected outside medreview into a study")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access_study_for_management(request.user, study_pk)
        body = LabelsImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        upload = body.validated_data["file"]
        if upload.size > MAX_BYTES:
            raise serializers.ValidationError({"file": [f"file: larger than {MAX_BYTES // (1024 * 1024)} MB."]})
        report = physician_labels_import(
            study=study, data=upload.read(), file_name=upload.name, user=request.user,
            dry_run=body.validated_data["dry_run"],
        )
        code = 400 if not report.ok else (200 if report.status == "dry-run" else 201)
        return Response(report.to_dict(), status=code)
