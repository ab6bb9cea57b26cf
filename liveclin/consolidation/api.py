"""Consolidations over the API: one version's mapping (each label's category and rule), a review,
and the distribution report naming the version used."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from cases.models import Release
from liveclin.consolidation import access, results, selectors
from liveclin.consolidation.services import consolidation_review
from liveclin.models import ConsolidationCategory, ConsolidationReview
from medreview.drf import TokenFirstAPIView


class ReviewInSerializer(serializers.Serializer):
    label = serializers.CharField(max_length=500)
    action = serializers.ChoiceField(choices=ConsolidationReview.Action.values)
    category = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1, max_value=2**31 - 1,
                                        help_text="A move: the intermediate category's id")
    reason = serializers.CharField(required=False, allow_blank=True, default="")


def _placed(p: selectors.Placed) -> dict[str, Any]:
    return {"label": p.label, "count": p.count,
            "rule": {"kind": p.rule.kind, "pattern": p.rule.pattern} if p.rule else None,
            "reviews": [{"action": r.action, "category": r.category.code if r.category else None, "reason": r.reason}
                        for r in p.reviews]}


class ConsolidationAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, summary="A consolidation version: categories, labels, rules")
    def get(self, request: Request, pk: int) -> Response:
        found = access.access_consolidation_for_reading(request.user, pk)
        view = selectors.mapping(found, selectors.label_counts(found))
        return Response({
            "id": found.pk, "key": found.key, "version": found.version, "kind": found.kind, "status": found.status,
            "based_on": found.based_on_id,
            "categories": [{"code": f["category"].code, "name": f["category"].name, "intermediate": [
                {"id": i["category"].pk, "code": i["category"].code, "name": i["category"].name,
                 "labels": [_placed(p) for p in i["labels"]]} for i in f["intermediate"]]} for f in view["finals"]],
            "unplaced": [_placed(p) for p in view["unplaced"]],
        })


class ConsolidationReviewAPI(TokenFirstAPIView):
    @extend_schema(request=ReviewInSerializer, responses=OpenApiTypes.OBJECT,
                   summary="Accept a label's place, or move it with a reason")
    def post(self, request: Request, pk: int) -> Response:
        found = access.access_consolidation_for_review(request.user, pk)
        data = ReviewInSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        raw = data.validated_data.pop("category")
        category = ConsolidationCategory.objects.filter(consolidation=found, pk=raw).first() if raw else None
        review = consolidation_review(consolidation=found, reviewer=request.user, category=category, **data.validated_data)
        return Response({"label": review.label, "action": review.action,
                         "category": review.category.code if review.category else None}, status=201)


class ConsolidationReportAPI(TokenFirstAPIView):
    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Labels per category, and each model's accuracy per category (Fig. 7A, 7C, 8)",
                   parameters=[OpenApiParameter("release", int, description="Only this release's labels")])
    def get(self, request: Request, pk: int) -> Response:
        found = access.access_consolidation_for_reading(request.user, pk)
        raw = request.query_params.get("release", "")
        release = Release.objects.filter(pk=int(raw)).first() if raw.isdigit() else None
        return Response({**selectors.distribution(found, release),
                         "results": results.category_results(found, release),
                         "results_by_chapter": results.chapter_results(release)})
