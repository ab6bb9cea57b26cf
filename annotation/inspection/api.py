"""The inspector's API: the queue, one item's comparison, accept, adjudicate, return; an item's
history. Same conventions as `annotation.rating.api`.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access
from annotation.inspection.display import pair_models
from annotation.inspection.selectors import inspection_view, inspector_queue
from annotation.inspection.serializers import (
    AcceptInputSerializer,
    AdjudicateInputSerializer,
    InspectionDetailSerializer,
    InspectionQueueSerializer,
    InspectionResultSerializer,
    ReturnInputSerializer,
)
from annotation.inspection.services import (
    inspection_accept,
    inspection_adjudicate,
    inspection_reject_set,
    inspection_return,
)
from annotation.models import Assignment, Item, ReviewEvent, seal_audit_chain
from annotation.outcomes.selectors import field_outcomes
from annotation.protocols import protocol_for
from annotation.rating.bodies import field_body, item_body
from medreview.drf import TokenFirstAPIView


def _item_summary(item: Item) -> dict[str, Any]:
    return {"id": item.pk, "study": item.study_id, "study_name": item.study.name, "key": item.key,
            "kind": item.kind, "status": item.status}


class InspectionQueueAPI(TokenFirstAPIView):
    @extend_schema(responses=InspectionQueueSerializer, summary="Inspection queue: pending, returned, resolved")
    def get(self, request: Request) -> Response:
        access.check_can_read_inspection_queue(request.user)
        queue = inspector_queue(inspector=request.user)
        return Response(InspectionQueueSerializer({
            "pending": [_item_summary(i) for i in queue.pending],
            "returned": [_item_summary(i) for i in queue.returned],
            "resolved": [_item_summary(i) for i in queue.resolved],
        }).data)


class InspectionDetailAPI(TokenFirstAPIView):
    @extend_schema(responses=InspectionDetailSerializer,
                   summary="Every rater's labels side by side, with differences and the item's history")
    def get(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        view = inspection_view(item=item)
        fields = [c.field for c in view.fields]
        content = item_body(item, fields, pair_order="ab")
        if item.question_set_id:
            # Inspectors are senior physicians checking both LiveClin phases: the privileged source too.
            content["question_set"] = protocol_for(item).content_body(item, privileged=True)
        pair = pair_models(item)
        comparisons = [
            {
                "field": field_body(c.field),
                "cells": [
                    {"assignment": cell.assignment.pk, "rater": cell.rater_name, "state": cell.assignment.state,
                     "pair_order": cell.assignment.pair_order,
                     "preferred_model": pair.name(cell.label or "") if pair is not None else "",
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
        return Response(InspectionDetailSerializer({
            "item": content, "status": item.status,
            "pair_responses": {"A": item.response.text, "B": item.response_b.text} if pair is not None else {},
            "pair_models": pair.as_dict() if pair is not None else {},
            "comparisons": comparisons, "events": events,
        }).data)


def _inspection_result(inspection: Any) -> dict[str, Any]:
    return {"id": inspection.pk, "action": inspection.action, "comment": inspection.comment,
            "item_status": Item.objects.values_list("status", flat=True).get(pk=inspection.item_id)}


class AcceptAPI(TokenFirstAPIView):
    @extend_schema(request=AcceptInputSerializer, responses=InspectionResultSerializer,
                   summary="Accept the raters' agreeing labels as final")
    def post(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        data = AcceptInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        inspection = inspection_accept(item=item, inspector=request.user,
                                                comment=data.validated_data["comment"])
        return Response(InspectionResultSerializer(_inspection_result(inspection)).data)


def _decide_with_labels(request: Request, pk: int, service: Any) -> Response:
    """Adjudicate or reject a set: every field's final label and a reason."""
    item = access.access_item_for_inspection(request.user, pk)
    data = AdjudicateInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    inspection = service(item=item, inspector=request.user, labels=data.validated_data["labels"],
                         reason=data.validated_data["reason"])
    return Response(InspectionResultSerializer(_inspection_result(inspection)).data)


class AdjudicateAPI(TokenFirstAPIView):
    @extend_schema(request=AdjudicateInputSerializer, responses=InspectionResultSerializer,
                   summary="Set the final label of every field, with a reason")
    def post(self, request: Request, pk: int) -> Response:
        return _decide_with_labels(request, pk, inspection_adjudicate)


class RejectSetAPI(TokenFirstAPIView):
    @extend_schema(request=AdjudicateInputSerializer, responses=InspectionResultSerializer,
                   summary="Reject a LiveClin question set as a whole, with a reason and every field's final label")
    def post(self, request: Request, pk: int) -> Response:
        return _decide_with_labels(request, pk, inspection_reject_set)


class ReturnAPI(TokenFirstAPIView):
    @extend_schema(request=ReturnInputSerializer, responses=InspectionResultSerializer,
                   summary="Return one rater's work on this item for revision, with a comment")
    def post(self, request: Request, pk: int) -> Response:
        item = access.access_item_for_inspection(request.user, pk)
        data = ReturnInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        assignment = Assignment.objects.filter(pk=data.validated_data["assignment"], item=item).first()
        if assignment is None:
            raise ValidationError({"assignment": [_("assignment: no such assignment on this item.")]})
        inspection = inspection_return(item=item, inspector=request.user, assignment=assignment,
                                                comment=data.validated_data["comment"])
        return Response(InspectionResultSerializer(_inspection_result(inspection)).data)


class ItemHistoryAPI(TokenFirstAPIView):
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
