from rest_framework import serializers

from cases.models import Dataset, ImportFormat, Release, Taxonomy, TaxonomyLevel, TaxonomyNode
from cases.services import DEFAULT_GRADER_MODEL


class ReleaseSerializer(serializers.ModelSerializer):
    imported_by = serializers.StringRelatedField(allow_null=True, help_text="null when imported from the command line")

    class Meta:
        model = Release
        fields = ["id", "label", "format", "model_name", "file_name", "sha256", "imported_by", "imported_at",
                  "counts", "status"]


class DatasetSerializer(serializers.ModelSerializer):
    case_count = serializers.IntegerField(read_only=True)
    releases = ReleaseSerializer(many=True, read_only=True, source="release_list")

    class Meta:
        model = Dataset
        fields = ["id", "name", "description", "case_count", "releases"]


class ImportRequestSerializer(serializers.Serializer):
    format = serializers.ChoiceField(choices=ImportFormat.choices)
    file = serializers.FileField()
    dataset = serializers.CharField(max_length=100, required=False, allow_blank=True)
    release = serializers.CharField(max_length=100, required=False, allow_blank=True)
    model = serializers.CharField(max_length=200, required=False, allow_blank=True)
    grader_model = serializers.CharField(max_length=200, required=False, default=DEFAULT_GRADER_MODEL)
    dry_run = serializers.BooleanField(required=False, default=False)
    case_reports = serializers.FileField(
        required=False, help_text="liveclin only: a side file of source case reports (see docs/formats.md)"
    )
    taxonomy = serializers.CharField(
        max_length=101, required=False, allow_blank=True,
        help_text="ai-labels and liveclin-labels: the taxonomy of taxonomy labels, key or key@version (default liveclin)",
    )


class ImportErrorSerializer(serializers.Serializer):
    file = serializers.CharField()
    record = serializers.IntegerField(allow_null=True, help_text="Position in a JSON list (from 1) or line number")
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class CreatedCountsSerializer(serializers.Serializer):
    cases = serializers.IntegerField()
    criteria = serializers.IntegerField()
    question_sets = serializers.IntegerField()
    mcqs = serializers.IntegerField()
    responses = serializers.IntegerField()
    grader_decisions = serializers.IntegerField()
    revisions = serializers.IntegerField()
    judge_scores = serializers.IntegerField(required=False, help_text="judge-scores files only")
    pairwise_judgements = serializers.IntegerField(required=False, help_text="pairwise-verdicts files only")
    ai_labels = serializers.IntegerField(required=False, help_text="ai-labels and liveclin-labels files only")


class ImportReportSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["imported", "unchanged", "dry-run", "refused"])
    format = serializers.CharField()
    file = serializers.CharField()
    sha256 = serializers.CharField()
    dataset = serializers.CharField()
    release = serializers.CharField()
    model = serializers.CharField()
    records = serializers.IntegerField()
    created = CreatedCountsSerializer()
    unchanged = serializers.DictField(child=serializers.IntegerField())
    changed = serializers.ListField(child=serializers.CharField())
    errors = ImportErrorSerializer(many=True)
    release_id = serializers.IntegerField(allow_null=True)
    grader_run_id = serializers.IntegerField(allow_null=True)
    seconds = serializers.FloatField()


class TaxonomyLevelSerializer(serializers.ModelSerializer):
    class Meta:
        model = TaxonomyLevel
        fields = ["depth", "name", "name_zh", "generated_from"]


class TaxonomySerializer(serializers.ModelSerializer):
    levels = TaxonomyLevelSerializer(many=True, read_only=True)

    class Meta:
        model = Taxonomy
        fields = ["id", "key", "version", "name", "name_zh", "description", "source", "counts", "levels"]


class TaxonomyNodeSerializer(serializers.ModelSerializer):
    class Meta:
        model = TaxonomyNode
        fields = ["id", "level", "code", "name", "name_zh", "parent", "code_range"]


class TaxonomyNodeQuerySerializer(serializers.Serializer):
    level = serializers.IntegerField(required=False, min_value=1)
    parent = serializers.IntegerField(required=False, min_value=1, help_text="Only the children of this node")
    q = serializers.CharField(required=False, allow_blank=True, max_length=100,
                              help_text="A code prefix or part of a name (English or Chinese)")
