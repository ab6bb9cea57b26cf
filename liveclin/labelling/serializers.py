"""The label tasks' API bodies. A blind assignment's unit body carries the case text and the
taxonomy to pick from, never an AI label (`selectors.case_content`)."""

from __future__ import annotations

from rest_framework import serializers


class AnswerInSerializer(serializers.Serializer):
    path = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), max_length=10, required=False, default=list,
                                 help_text="Assignment: the node ids picked, level 1 first")
    verdict = serializers.ChoiceField(choices=["correct", "edited"], required=False, allow_blank=True, default="",
                                      help_text="Audit: correct, or edited with `value`")
    value = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    comment = serializers.CharField(required=False, allow_blank=True, default="")
    seconds = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=0)


class DecisionInSerializer(serializers.Serializer):
    path = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=2**31 - 1), max_length=10, required=False, default=list)
    verdict = serializers.ChoiceField(choices=["correct", "edited"], required=False, allow_blank=True, default="")
    value = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)
    reason = serializers.CharField(allow_blank=False)
