"""The review API: the same access functions, selectors and services as the pages, with session or token auth.

Services' ValidationErrors propagate: `medreview.drf.exception_handler` answers 400 with
{field: [message]} (409 for a ConflictError); objects the user may not see answer 404; read-only
roles attempting a write answer 403.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Role
from accounts.roles import user_role
from annotation import access, liveclin, selectors, services
from annotation.models import Assignment, Item, ReviewEvent, Study, StudyMember
from annotation.serializers import (
    AcceptInputSerializer,
    AdjudicateInputSerializer,
    AssignmentDetailSerializer,
    AssignmentEnvelopeSerializer,
    ClaimSerializer,
    DraftInputSerializer,
    InspectionDetailSerializer,
    InspectionQueueSerializer,
    InspectionResultSerializer,
    ProgressSerializer,
    QueueSerializer,
    ReturnInputSerializer,
    SkipInputSerializer,
    StudyCreateInputSerializer,
    StudySerializer,
    SubmitInputSerializer,
)
from medreview.authentication import ProfileTokenAuthentication


class ReviewBaseAPI(APIView):
    # Token first so that a missing or bad token answers 401 with a WWW-Authenticate header.
    authentication_classes = [ProfileTokenAuthentication, SessionAuthentication]


def hot_output(body: dict[str, Any]) -> dict[str, Any]:
    """The body of claim, draft and submit responses, returned as built.

    These three run on every step of every rater, and instantiating the nested output serializers
    (which deep-copy their declared fields) cost more CPU than the whole service call. The
    serializers named in their `extend_schema` stay the documented contract, and
    tests/annotation/test_api.py checks that every body renders identically through them.
    """
    return body


# --- output builders -----------------------------------------------------------------------------


def _criterion(c: Any) -> dict[str, Any]:
    return {"id": c.pk, "order": c.order, "text": c.text, "points": c.points, "axis": c.axis}


def _field(f: selectors.Field) -> dict[str, Any]:
    return {
        "id": f.id, "task": f.task.slug, "task_name": f.task.name, "key": f.key, "label": f.label,
        "criterion": _criterion(f.criterion) if f.criterion else None,
        "mcq_id": f.mcq.pk if f.mcq else None,
        "requires_explanation": f.task.requires_explanation,
        "shows_privileged_source": f.task.shows_privileged_source,
        "categories": [
            {"value": c.value, "label": c.label, "description": c.description, "shortcut": c.shortcut,
             "approves": c.approves}
            for c in f.categories
        ],
    }


def _item_content(item: Item, fields: list[selectors.Field], *, pair_order: str) -> dict[str, Any]:
    """The blinded item content (`selectors.item_content_for_rater`) as JSON; a LiveClin question set
    as the auditor or the examinee view (`annotation.liveclin`), by the fields shown."""
    content = selectors.item_content_for_rater(item, fields, pair_order=pair_order)
    revision = content.revision
    body: dict[str, Any] = {
        "id": item.pk, "study": item.study_id, "kind": item.kind, "language": revision.language,
        "narrative": content.narrative,
        "core_request": revision.core_request,
        "doctor_advice": revision.doctor_advice,
        "conversation": revision.conversation,
        "criteria": [_criterion(c) for c in content.criteria],
        "response": content.response.text if content.response else None,
        "responses": [],
        "question_set": None,
    }
    if content.pair:
        first, second = content.pair
        body["responses"] = [{"position": "A", "text": first.text}, {"position": "B", "text": second.text}]
    if content.question_set:
        qs = content.question_set
        body["question_set"] = (
            liveclin.auditor_content(qs, item.revision.source) if content.privileged else liveclin.examinee_content(qs)
        )
    return body


def _revision_requests(assignments: list[Assignment]) -> dict[int, str]:
    returned = [a.pk for a in assignments if a.state == Assignment.State.RETURNED]
    if not returned:
        return {}
    out: dict[int, str] = {}
    for assignment_id, reason in (
        ReviewEvent.objects.filter(assignment_id__in=returned, kind=ReviewEvent.Kind.RETURNED)
        .order_by("created_at", "pk").values_list("assignment_id", "reason")
    ):
        out[assignment_id] = reason
    return out


def _assignment(a: Assignment, requests: dict[int, str]) -> dict[str, Any]:
    return {
        "id": a.pk, "study": a.item.study_id, "study_name": a.item.study.name, "item": a.item_id,
        "item_key": a.item.key, "state": a.state, "round": a.round, "lease_expires_at": a.lease_expires_at,
        "draft": a.draft, "draft_saved_at": a.draft_saved_at, "submitted_at": a.submitted_at,
        "seconds_spent": a.seconds_spent, "pair_order": a.pair_order,
        "revision_request": requests.get(a.pk, ""),
    }


def _assignment_detail(a: Assignment, *, phase: str = "") -> dict[str, Any]:
    loaded = a._state.fields_cache.get("item")
    if loaded is not None and {"study", "revision"} <= set(loaded._state.fields_cache):
        item = loaded  # a fresh claim comes with its item and case text already joined
    else:
        item = (
            Item.objects.select_related("study", "revision", "response", "response_b", "question_set")
            .defer("revision__raw", "revision__extra", "response__raw", "response_b__raw")
            .get(pk=a.item_id)
        )
        a.item = item
    all_fields = selectors.item_fields(item)
    # LiveClin: one phase of a two-phase question-set review (409 for phase 2 before phase 1 is done).
    current = liveclin.current_phase(item, all_fields, liveclin.assignment_values(a), phase)
    fields = liveclin.phase_fields(all_fields, current) if current else all_fields
    body = {
        "assignment": _assignment(a, _revision_requests([a])),
        "fields": [_field(f) for f in fields],
        "item": _item_content(item, fields, pair_order=a.pair_order),
        "my_labels": selectors.own_latest_labels(a),
        "guidelines": item.study.guidelines,
    }
    if current:
        body["phase"] = {"current": current, "phases": liveclin.phases(item, all_fields)}
        notes = liveclin.prescreen_notes(item.study, item, fields)  # only when the study shows the pre-screen
        if notes:
            body["prescreen"] = {fid: {"verdict": n.label, "explanation": n.explanation} for fid, n in notes.items()}
    return body


def _item_summary(item: Item) -> dict[str, Any]:
    return {"id": item.pk, "study": item.study_id, "study_name": item.study.name, "key": item.key,
            "kind": item.kind, "status": item.status}


def _study(study: Study, roles: list[str]) -> dict[str, Any]:
    return {
        "id": study.pk, "name": study.name, "status": study.status,
        "tasks": [t.slug for t in study.tasks.all()], "raters_per_item": study.raters_per_item,
        "inspect_all": study.inspect_all, "inspect_disagreements": study.inspect_disagreements,
        "inspect_share": study.inspect_share, "deadline": study.deadline, "guidelines": study.guidelines,
        "items": study.item_count if hasattr(study, "item_count") else study.items.count(),
        "my_roles": roles,
    }


# --- rater endpoints -----------------------------------------------------------------------------


class StudyListAPI(ReviewBaseAPI):
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
        return Response(StudySerializer([_study(s, roles.get(s.pk, [])) for s in studies], many=True).data)

    @extend_schema(request=StudyCreateInputSerializer, responses={201: StudySerializer},
                   summary="Create a study (admin)")
    def post(self, request: Request) -> Response:
        access.check_can_manage_studies(request.user, "Only admins create studies.")
        data = StudyCreateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = dict(data.validated_data)
        users = get_user_model().objects
        raters = list(users.filter(username__in=v["raters"]))
        inspectors = list(users.filter(username__in=v["inspectors"]))
        missing = sorted(set(v["raters"]) - {u.username for u in raters}) + sorted(
            set(v["inspectors"]) - {u.username for u in inspectors}
        )
        if missing:
            raise ValidationError({"raters": [f"raters/inspectors: unknown usernames {missing}"]})
        selection = services.ItemSelection(
            kind=v["kind"], dataset=v["dataset"], release_label=v["release_label"], model_names=v["model_names"],
            specialties=v["specialties"], themes=v["themes"], difficulty=v["difficulty"], register=v["register"],
            language=v["language"], post_month_from=v["post_month_from"], post_month_to=v["post_month_to"],
            sample_n=v["sample_n"], seed=v["seed"], passed_prescreen=v["passed_prescreen"], validated=v["validated"],
        )
        study = services.study_create(
            name=v["name"], created_by=request.user, task_slugs=v["task_slugs"], selection=selection, raters_per_item=v["raters_per_item"], inspect_all=v["inspect_all"],
            inspect_disagreements=v["inspect_disagreements"], inspect_share=v["inspect_share"],
            guidelines=v["guidelines"], deadline=v["deadline"], required_specialties=v["required_specialties"],
            required_languages=v["required_languages"], lease_minutes=v["lease_minutes"], seed=v["seed"],
            show_prescreen=v["show_prescreen"], min_inspector_rank=v["min_inspector_rank"],
        )
        if raters:
            services.study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=request.user)
        if inspectors:
            services.study_add_members(study=study, users=inspectors, role=StudyMember.Role.INSPECTOR,
                                       actor=request.user)
        if v["start"]:
            services.study_start(study=study, actor=request.user)
        return Response(StudySerializer(_study(study, [])).data, status=status.HTTP_201_CREATED)


class ClaimNextAPI(ReviewBaseAPI):
    @extend_schema(request=None, responses=ClaimSerializer,
                   summary="Claim the next item (or get back your unfinished one)",
                   description="Returns the assignment, its fields with their scales, and the item content. "
                               "Never includes other raters' labels or grader decisions. `assignment` is "
                               "null when nothing is left for you.")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_rating(request.user, study_pk)
        assignment = services.assignment_claim_next(study=study, rater=request.user)
        if assignment is None:
            detail = (
                "Nothing left for you in this study." if study.status == Study.Status.RUNNING
                else "This study is not running."
            )
            return Response(hot_output({"assignment": None, "fields": [], "item": None,
                                        "guidelines": study.guidelines, "detail": detail}))
        body = _assignment_detail(assignment)
        return Response(hot_output({**body, "detail": "ok"}))


class AssignmentDetailAPI(ReviewBaseAPI):
    @extend_schema(responses=AssignmentDetailSerializer, summary="One of your assignments, with your draft",
                   parameters=[OpenApiParameter(
                       "phase", str, enum=["auditor", "examinee"], required=False,
                       description="LiveClin question sets: which view (default: the first with work left); "
                                   "examinee before the auditor phase is complete is a 409")])
    def get(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        phase = request.query_params.get("phase", "")
        return Response(AssignmentDetailSerializer(_assignment_detail(a, phase=phase)).data)


class DraftAPI(ReviewBaseAPI):
    @extend_schema(request=DraftInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Save a draft (merged into the saved one; renews the lease)")
    def put(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = DraftInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        saved = services.assignment_save_draft(
            assignment=a, rater=request.user, draft=data.validated_data["draft"], seconds_spent=data.validated_data["seconds_spent"],
        )
        return Response(hot_output({"assignment": _assignment(saved, {})}))

    @extend_schema(request=DraftInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Save a draft (same as PUT)")
    def patch(self, request: Request, pk: int) -> Response:
        return self.put(request, pk)


class SubmitAPI(ReviewBaseAPI):
    @extend_schema(request=SubmitInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Submit labels for every field (a revision when the item was returned)")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        labels = data.validated_data["labels"]
        fields = selectors.item_fields(a.item)
        if liveclin.phases(a.item, fields) and isinstance(labels, dict):
            # LiveClin: phase 1's verdicts were saved as a draft; phase 2's screen sends its own.
            labels = liveclin.submission_labels(fields, liveclin.assignment_values(a), labels)
        done = services.rating_submit(
            assignment=a, rater=request.user, labels=labels, seconds_spent=data.validated_data["seconds_spent"],
        )
        return Response(hot_output({"assignment": _assignment(done, {})}))


class SkipAPI(ReviewBaseAPI):
    @extend_schema(request=SkipInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Skip an item with a reason")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SkipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        skipped = services.assignment_skip(assignment=a, rater=request.user, reason=data.validated_data["reason"])
        return Response(AssignmentEnvelopeSerializer({"assignment": _assignment(skipped, {})}).data)


class QueueAPI(ReviewBaseAPI):
    @extend_schema(
        parameters=[OpenApiParameter("study", int, required=False, description="Only this study")],
        responses=QueueSerializer, summary="My queue: in progress, returned to me, done",
    )
    def get(self, request: Request) -> Response:
        access.check_can_read_own_queue(request.user)
        study = None
        if request.query_params.get("study"):
            try:
                study = access.access_study_for_rating(request.user, int(request.query_params["study"]))
            except ValueError as exc:
                raise Http404("Not found.") from exc
        queue = selectors.rater_queue(rater=request.user, study=study)
        everything = queue.in_progress + queue.returned + queue.done
        requests = _revision_requests(everything)
        body = {
            "in_progress": [_assignment(a, requests) for a in queue.in_progress],
            "returned": [_assignment(a, requests) for a in queue.returned],
            "done": [_assignment(a, requests) for a in queue.done],
            "counts": queue.counts,
            "available": queue.available,
        }
        return Response(QueueSerializer(body).data)


class ProgressAPI(ReviewBaseAPI):
    @extend_schema(responses=ProgressSerializer,
                   summary="Study progress (admin, the study's inspectors, researchers)")
    def get(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_progress(request.user, study_pk)
        progress = selectors.study_progress(study=study)
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


# --- inspector endpoints -------------------------------------------------------------------------


class InspectionQueueAPI(ReviewBaseAPI):
    @extend_schema(responses=InspectionQueueSerializer, summary="Inspection queue: pending, returned, resolved")
    def get(self, request: Request) -> Response:
        access.check_can_read_inspection_queue(request.user)
        queue = selectors.inspector_queue(inspector=request.user)
        return Response(InspectionQueueSerializer({
            "pending": [_item_summary(i) for i in queue.pending],
            "returned": [_item_summary(i) for i in queue.returned],
            "resolved": [_item_summary(i) for i in queue.resolved],
        }).data)


class InspectionDetailAPI(ReviewBaseAPI):
    @extend_schema(responses=InspectionDetailSerializer,
                   summary="Every rater's labels side by side, with differences and the item's history")
    def get(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        view = selectors.inspection_view(item=item)
        fields = [c.field for c in view.fields]
        content = _item_content(item, fields, pair_order="ab")
        if item.question_set_id:
            # Inspectors are senior physicians checking both LiveClin phases: the privileged source too.
            content["question_set"] = liveclin.auditor_content(item.question_set, item.revision.source)
        comparisons = [
            {
                "field": _field(c.field),
                "cells": [
                    {"assignment": cell.assignment.pk, "rater": cell.rater_name, "state": cell.assignment.state,
                     "first_label": cell.first.label if cell.first else None,
                     "latest_label": cell.latest.label if cell.latest else None,
                     "first_comment": cell.first.comment if cell.first else "",
                     "latest_comment": cell.latest.comment if cell.latest else "",
                     "seconds": cell.latest.seconds_spent if cell.latest else None,
                     "changed": cell.changed}
                    for cell in c.cells
                ],
                "differs": c.differs, "first_round_differs": c.first_round_differs,
                "final_label": c.final.label if c.final else None,
            }
            for c in view.fields
        ]
        events = [
            {"kind": e.kind, "actor": e.actor.get_username() if e.actor else None, "assignment": e.assignment_id,
             "reason": e.reason, "data": e.data, "created_at": e.created_at}
            for e in view.events
        ]
        pair = {}
        if item.kind == "pair" and item.response_id and item.response_b_id:
            pair = {"A": item.response.text, "B": item.response_b.text}
        return Response(InspectionDetailSerializer({
            "item": content, "status": item.status, "pair_responses": pair,
            "comparisons": comparisons, "events": events,
        }).data)


def _inspection_result(inspection: Any) -> dict[str, Any]:
    return {"id": inspection.pk, "action": inspection.action, "comment": inspection.comment,
            "item_status": Item.objects.values_list("status", flat=True).get(pk=inspection.item_id)}


class AcceptAPI(ReviewBaseAPI):
    @extend_schema(request=AcceptInputSerializer, responses=InspectionResultSerializer,
                   summary="Accept the raters' agreeing labels as final")
    def post(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        data = AcceptInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        inspection = services.inspection_accept(item=item, inspector=request.user,
                                                comment=data.validated_data["comment"])
        return Response(InspectionResultSerializer(_inspection_result(inspection)).data)


class AdjudicateAPI(ReviewBaseAPI):
    @extend_schema(request=AdjudicateInputSerializer, responses=InspectionResultSerializer,
                   summary="Set the final label of every field, with a reason")
    def post(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        data = AdjudicateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        inspection = services.inspection_adjudicate(
            item=item, inspector=request.user, labels=data.validated_data["labels"], reason=data.validated_data["reason"],
        )
        return Response(InspectionResultSerializer(_inspection_result(inspection)).data)


class ReturnAPI(ReviewBaseAPI):
    @extend_schema(request=ReturnInputSerializer, responses=InspectionResultSerializer,
                   summary="Return one rater's work on this item for revision, with a comment")
    def post(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        data = ReturnInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = Assignment.objects.filter(pk=data.validated_data["assignment"], item=item).first()
        if assignment is None:
            raise ValidationError({"assignment": ["assignment: no such assignment on this item."]})
        inspection = services.inspection_return(item=item, inspector=request.user, assignment=assignment,
                                                comment=data.validated_data["comment"])
        return Response(InspectionResultSerializer(_inspection_result(inspection)).data)
