"""API input and output shapes for agreement reports (documented in the OpenAPI schema)."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers

from agreement.selectors import STRATA, Selection
from cases.models import Difficulty, Register


def _split(value: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in re.split(r"[,\s]+", value or "") if p.strip())


class ReportQuerySerializer(serializers.Serializer):
    """Query parameters choosing the labels a report covers; all optional."""

    task = serializers.CharField(required=False, help_text="Task slug, e.g. grader-reliability")
    model = serializers.CharField(required=False, help_text="Only responses of this model")
    grader = serializers.IntegerField(required=False, help_text="Only this grader run id")
    specialty = serializers.CharField(required=False)
    theme = serializers.CharField(required=False)
    language = serializers.CharField(required=False)
    difficulty = serializers.ChoiceField(required=False, choices=Difficulty.choices)
    register = serializers.ChoiceField(required=False, choices=Register.choices)
    month = serializers.RegexField(r"^\d{4}-\d{2}$", required=False, help_text="Month of post time, YYYY-MM")
    axis = serializers.CharField(required=False)
    stratify_by = serializers.ChoiceField(required=False, choices=list(STRATA), help_text="Break every table down")
    group_by = serializers.ChoiceField(required=False, choices=["rank"], help_text="Expert groups by rank")
    group_a = serializers.CharField(required=False, help_text="Expert group A: comma-separated pseudonyms")
    group_b = serializers.CharField(required=False, help_text="Expert group B: comma-separated pseudonyms")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if bool(_split(attrs.get("group_a", ""))) != bool(_split(attrs.get("group_b", ""))):
            raise serializers.ValidationError("Give pseudonyms for both expert groups, or for neither.")
        return attrs

    def selection(self, **scope: Any) -> Selection:
        data = self.validated_data
        filters = tuple(
            (name, str(data[name]))
            for name in ("specialty", "theme", "language", "difficulty", "register", "month", "axis", "model")
            if data.get(name)
        )
        return Selection(
            **scope,
            tasks=(data["task"],) if data.get("task") else (),
            graders=(data["grader"],) if data.get("grader") else (),
            filters=filters,
            stratify_by=data.get("stratify_by", ""),
            group_by=data.get("group_by", ""),
            group_a=_split(data.get("group_a", "")),
            group_b=_split(data.get("group_b", "")),
        )


class StudySummarySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField()
    n_items = serializers.IntegerField()
    report_url = serializers.CharField()


class SoftwareSerializer(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.CharField()


class ReportTableSerializer(serializers.Serializer):
    title = serializers.CharField()
    note = serializers.CharField(allow_blank=True)
    columns = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(child=serializers.DictField(), help_text="One object per row, keyed by column")


class ReportSerializer(serializers.Serializer):
    """A report as JSON: the same document as the JSON export."""

    software = SoftwareSerializer()
    generated_at = serializers.CharField()
    selection = serializers.DictField()
    labels_used = serializers.CharField()
    counts = serializers.DictField(child=serializers.IntegerField())
    conventions = serializers.DictField(child=serializers.CharField())
    documentation = serializers.CharField()
    tables = serializers.DictField(child=ReportTableSerializer(), help_text="Keyed by table: data_quality, "
                                   "approval, per_rater, grader_reliability, grader_vs_rater, model_scores, "
                                   "ranking_stability, expert_groups, grader_vs_groups, position_bias")
