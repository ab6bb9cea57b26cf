"""The label tasks over the API: the next unit, a unit's body (blind for an assignment), an answer,
taking it back, an inspector's decision, and the report."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from liveclin.labelling import access, selectors
from liveclin.labelling.reports import task_report
from liveclin.labelling.serializers import AnswerInSerializer, DecisionInSerializer
from liveclin.labelling.services import label_answer_submit, label_answer_withdraw, label_unit_decide
from liveclin.models import LabelTask, LabelUnit
from medreview.drf import TokenFirstAPIView


def unit_body(unit: LabelUnit, user: Any) -> dict[str, Any]:
    """What a rater reads of a unit. Assignment: the case text and the taxonomy, no AI label."""
    task = unit.task
    own = unit.answers.filter(rater_id=user.pk).first()
    body: dict[str, Any] = {"id": unit.pk, "task": task.pk, "kind": task.kind, "order": unit.order,
                            "status": unit.status}
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        body.update(case=selectors.case_content(unit), taxonomy=task.taxonomy_id,
                    own_answer={"path": [n.pk for n in selectors.node_path(own.node)]} if own else None)
    else:
        item = selectors.audited_item(unit)
        body.update(item={k: v for k, v in item.items() if k != "table"},
                    own_answer={"verdict": own.verdict, "value": own.value} if own else None)
    return body


class LabelTaskNextAPI(TokenFirstAPIView):
    @extend_schema(request=None, responses=OpenApiTypes.OBJECT, summary="The next unit of a label task for me")
    def post(self, request: Request, pk: int) -> Response:
        task = access.access_task_for_rating(request.user, pk)
        unit = selectors.next_unit(task, request.user)
        if unit is None:
            return Response(status=204)
        return Response(unit_body(unit, request.user))


class LabelUnitAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, summary="A unit as its rater sees it (blind for an assignment)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(unit_body(access.access_unit_for_rating(request.user, pk), request.user))


class LabelAnswerAPI(TokenFirstAPIView):
    @extend_schema(request=AnswerInSerializer, responses=OpenApiTypes.OBJECT, summary="Answer a unit")
    def post(self, request: Request, pk: int) -> Response:
        unit = access.access_unit_for_rating(request.user, pk)
        data = AnswerInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        label_answer_submit(unit=unit, rater=request.user, **data.validated_data)
        return Response(unit_body(unit, request.user), status=201)

    @extend_schema(request=None, responses={204: None}, summary="Take my answer back (until an inspector decides)")
    def delete(self, request: Request, pk: int) -> Response:
        label_answer_withdraw(unit=access.access_unit_for_rating(request.user, pk), rater=request.user)
        return Response(status=204)


class LabelDecisionAPI(TokenFirstAPIView):
    @extend_schema(request=DecisionInSerializer, responses=OpenApiTypes.OBJECT,
                   summary="An inspector's final label for a unit awaiting inspection")
    def post(self, request: Request, pk: int) -> Response:
        unit = access.access_unit_for_inspection(request.user, pk)
        data = DecisionInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        decision = label_unit_decide(unit=unit, inspector=request.user, **data.validated_data)
        return Response({"unit": unit.pk, "status": unit.status, "node": decision.node_id,
                         "verdict": decision.verdict, "value": decision.value}, status=201)


class LabelTaskReportAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT,
                   summary="A label task's report: accuracy per level (assignment) or per family (audit), Wilson CI")
    def get(self, request: Request, pk: int) -> Response:
        return Response(task_report(access.access_task_for_report(request.user, pk)))
