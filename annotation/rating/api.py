"""The rater's API: claim the next item, read it, save drafts, submit, skip, edit before inspection,
give a claim back.

The same access functions, selectors and services as the pages, with session or token auth.
Services' ValidationErrors propagate: `medreview.drf.exception_handler` answers 400 with
{field: [message]} (409 for a ConflictError); objects the user may not see answer 404; read-only
roles attempting a write answer 403.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access
from annotation.fields import item_fields
from annotation.labels import own_latest_labels
from annotation.models import Assignment, Item, ReviewEvent, Study
from annotation.protocols import protocol_for, submission_labels
from annotation.rating.bodies import field_body, item_body
from annotation.rating.selectors import rater_queue
from annotation.rating.serializers import (
    AssignmentDetailSerializer,
    AssignmentEnvelopeSerializer,
    ClaimSerializer,
    DraftInputSerializer,
    QueueSerializer,
    ReleaseResultSerializer,
    SkipInputSerializer,
    SubmitInputSerializer,
)
from annotation.rating.services.editing import assignment_release, rating_edit
from annotation.rating.services.queue import assignment_claim_next, assignment_skip
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from medreview.drf import TokenFirstAPIView


def hot_output(body: dict[str, Any]) -> dict[str, Any]:
    """The body of claim, draft and submit responses, returned as built.

    These three run on every step of every rater, and instantiating the nested output serializers
    (which deep-copy their declared fields) cost more CPU than the whole service call. The
    serializers named in their `extend_schema` stay the documented contract, and
    tests/annotation/test_api.py checks that every body renders identically through them.
    """
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
    all_fields = item_fields(item)
    # A protocol's phase (LiveClin: 409 for phase 2 before phase 1 is done), else every field.
    protocol = protocol_for(item)
    current = protocol.current_phase(item, all_fields, dict(a.draft or {}), phase)
    fields = protocol.phase_fields(all_fields, current) if current else all_fields
    body = {
        "assignment": _assignment(a, _revision_requests([a])),
        "fields": [field_body(f) for f in fields],
        "item": item_body(item, fields, pair_order=a.pair_order),
        "my_labels": own_latest_labels(a),
        "guidelines": item.study.guidelines,
    }
    if current:
        body["phase"] = {"current": current, "phases": protocol.phases(item, all_fields)}
        prescreen = protocol.prescreen_body(item.study, item, fields)
        if prescreen:
            body["prescreen"] = prescreen
    return body


class ClaimNextAPI(TokenFirstAPIView):
    @extend_schema(request=None, responses=ClaimSerializer,
                   summary="Claim the next item (or get back your unfinished one)",
                   description="Returns the assignment, its fields with their scales, and the item content. "
                               "Never includes other raters' labels or grader decisions. `assignment` is "
                               "null when nothing is left for you.")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_rating(request.user, study_pk)
        assignment = assignment_claim_next(study=study, rater=request.user)
        if assignment is None:
            detail = (
                "Nothing left for you in this study." if study.status == Study.Status.RUNNING
                else "This study is not running."
            )
            return Response(hot_output({"assignment": None, "fields": [], "item": None,
                                        "guidelines": study.guidelines, "detail": detail}))
        body = _assignment_detail(assignment)
        return Response(hot_output({**body, "detail": "ok"}))


class AssignmentDetailAPI(TokenFirstAPIView):
    @extend_schema(responses=AssignmentDetailSerializer, summary="One of your assignments, with your draft",
                   parameters=[OpenApiParameter(
                       "phase", str, enum=["auditor", "examinee"], required=False,
                       description="LiveClin question sets: which view (default: the first with work left); "
                                   "examinee before the auditor phase is complete is a 409")])
    def get(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        phase = request.query_params.get("phase", "")
        return Response(AssignmentDetailSerializer(_assignment_detail(a, phase=phase)).data)


class DraftAPI(TokenFirstAPIView):
    @extend_schema(request=DraftInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Save a draft (merged into the saved one; renews the lease)")
    def put(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = DraftInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        saved = assignment_save_draft(
            assignment=a, rater=request.user, draft=data.validated_data["draft"], seconds_spent=data.validated_data["seconds_spent"],
        )
        return Response(hot_output({"assignment": _assignment(saved, {})}))

    @extend_schema(request=DraftInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Save a draft (same as PUT)")
    def patch(self, request: Request, pk: int) -> Response:
        return self.put(request, pk)


class SubmitAPI(TokenFirstAPIView):
    @extend_schema(request=SubmitInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Submit labels for every field (a revision when the item was returned)")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        labels = data.validated_data["labels"]
        fields = item_fields(a.item)
        if protocol_for(a.item).phases(a.item, fields) and isinstance(labels, dict):
            # LiveClin: phase 1's verdicts were saved as a draft; phase 2's screen sends its own.
            labels = submission_labels(fields, dict(a.draft or {}), labels)
        done = rating_submit(
            assignment=a, rater=request.user, labels=labels, seconds_spent=data.validated_data["seconds_spent"],
        )
        return Response(hot_output({"assignment": _assignment(done, {})}))


class SkipAPI(TokenFirstAPIView):
    @extend_schema(request=SkipInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Skip an item with a reason")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SkipInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        skipped = assignment_skip(assignment=a, rater=request.user, reason=data.validated_data["reason"])
        return Response(AssignmentEnvelopeSerializer({"assignment": _assignment(skipped, {})}).data)


class QueueAPI(TokenFirstAPIView):
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
        queue = rater_queue(rater=request.user, study=study)
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


class AssignmentEditAPI(TokenFirstAPIView):
    @extend_schema(request=SubmitInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Change your submitted labels before the item's inspection starts (409 after)")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        edited = rating_edit(assignment=a, rater=request.user, labels=data.validated_data["labels"],
                             seconds_spent=data.validated_data["seconds_spent"])
        return Response(AssignmentEnvelopeSerializer({"assignment": _assignment(edited, {})}).data)


class AssignmentReleaseAPI(TokenFirstAPIView):
    @extend_schema(request=None, responses=ReleaseResultSerializer,
                   summary="Stop for the day: give back a claim that holds no draft")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        released = assignment_release(assignment=a, rater=request.user)
        a.refresh_from_db()
        return Response(ReleaseResultSerializer({"released": released, "assignment": _assignment(a, {})}).data)
