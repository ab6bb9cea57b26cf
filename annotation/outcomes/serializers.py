"""Input and output serializers of the curation API.
"""

from __future__ import annotations

from rest_framework import serializers

from annotation.models import Curation, Study
from annotation.outcomes.curation.build import NAME_PATTERN
from cases.models import Release


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
