"""API input and output shapes for agreement reports (documented in the OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from agreement.selection import (
    GROUPS_INCOMPLETE,
    MAX_TAU,
    STRATA,
    Selection,
    groups_incomplete,
    month_error,
    selection_from_params,
)
from cases.models import Difficulty, Register


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
    group_by = serializers.ChoiceField(
        required=False, choices=["rank", "study"],
        help_text="Expert groups by rank, or the groups the study assigned its raters to")
    group_a = serializers.CharField(required=False, help_text="Expert group A: comma-separated pseudonyms")
    group_b = serializers.CharField(required=False, help_text="Expert group B: comma-separated pseudonyms")
    tau = serializers.IntegerField(required=False, min_value=1, max_value=MAX_TAU,
                                   help_text="CACS@tau / Pass@tau threshold (default: calibrated or 10 of 30)")
    tau_model = serializers.CharField(required=False, max_length=200,
                                      help_text="Model whose responses are physician-written: tau calibrated from them")

    def validate_month(self, value: str) -> str:
        if problem := month_error(value):
            raise serializers.ValidationError(problem)
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if groups_incomplete(attrs):
            raise serializers.ValidationError(GROUPS_INCOMPLETE)
        return attrs

    def selection(self, **scope: Any) -> Selection:
        """The Selection for valid parameters; `scope` is study_id= or release_id=."""
        return selection_from_params(self.validated_data, **scope)


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
                                   "approval, positive_rate, per_rater, grader_reliability, grader_vs_rater, "
                                   "model_scores, ranking_stability, expert_groups, grader_vs_groups, coverage, "
                                   "tau_calibration, ranking_stability_cacs, position_bias, pairwise_ratings, ... "
                                   "(only the families of the study's task kinds)")
