"""Input and output serializers of the studies API.
"""

from __future__ import annotations

from rest_framework import serializers

from annotation.models import ItemKind, Study, StudyMember
from annotation.models.translated import TextDisplay


class RaterProgressSerializer(serializers.Serializer):
    rater = serializers.CharField(help_text="Username; a pseudonym for researchers")
    in_progress = serializers.IntegerField()
    submitted = serializers.IntegerField()
    returned = serializers.IntegerField()
    revised = serializers.IntegerField()
    skipped = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)


class TaskProgressSerializer(serializers.Serializer):
    task = serializers.CharField()
    first_round_ratings = serializers.IntegerField()
    items_rated = serializers.IntegerField()


class DayCountSerializer(serializers.Serializer):
    day = serializers.DateField()
    submissions = serializers.IntegerField()


class ProgressSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    total_items = serializers.IntegerField()
    items_by_status = serializers.DictField(child=serializers.IntegerField())
    per_rater = RaterProgressSerializer(many=True)
    per_task = TaskProgressSerializer(many=True)
    throughput = DayCountSerializer(many=True)
    submissions_per_day = serializers.FloatField()
    median_seconds_per_item = serializers.FloatField(allow_null=True)
    stuck_items = serializers.ListField(child=serializers.IntegerField())


class JudgeRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    grader_model = serializers.CharField()
    created_at = serializers.CharField()
    pinned_at = serializers.DateTimeField()


class StudySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.ChoiceField(choices=Study.Status.choices)
    tasks = serializers.ListField(child=serializers.CharField())
    raters_per_item = serializers.IntegerField()
    inspect_all = serializers.BooleanField()
    inspect_disagreements = serializers.BooleanField()
    inspect_share = serializers.FloatField()
    deadline = serializers.DateTimeField(allow_null=True)
    guidelines = serializers.CharField(allow_blank=True)
    items = serializers.IntegerField()
    my_roles = serializers.ListField(child=serializers.ChoiceField(choices=StudyMember.Role.choices))
    show_prescreen = serializers.BooleanField(help_text="LiveClin: raters see the Judge's verdicts beside each question")
    min_inspector_rank = serializers.CharField(
        allow_blank=True, help_text="Lowest rank allowed to inspect (attending < associate_chief < chief; empty: any)")
    judge_run = JudgeRunSerializer(allow_null=True, help_text="LiveClin: the Judge run the quality check uses, "
                                                              "pinned when the study started")


class StudyCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    task_slugs = serializers.ListField(child=serializers.SlugField(), min_length=1)
    kind = serializers.ChoiceField(choices=ItemKind.choices)
    dataset = serializers.CharField(required=False, allow_null=True, default=None)
    release_label = serializers.CharField(required=False, allow_null=True, default=None)
    model_names = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    specialties = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    themes = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    difficulty = serializers.CharField(required=False, allow_null=True, default=None)
    register = serializers.CharField(required=False, allow_null=True, default=None)
    language = serializers.CharField(required=False, allow_null=True, default=None)
    post_month_from = serializers.CharField(required=False, allow_null=True, default=None, help_text="YYYY-MM")
    post_month_to = serializers.CharField(required=False, allow_null=True, default=None, help_text="YYYY-MM")
    sample_n = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1)
    seed = serializers.IntegerField(required=False, allow_null=True, default=None)
    passed_prescreen = serializers.BooleanField(
        required=False, default=False, help_text="LiveClin: only question sets that passed the Judge pre-screen"
    )
    validated = serializers.BooleanField(required=False, default=False, help_text="LiveClin: only validated sets")
    show_prescreen = serializers.BooleanField(
        required=False, default=False, help_text="LiveClin: show the Judge's verdicts beside each question"
    )
    min_inspector_rank = serializers.ChoiceField(
        choices=["", "attending", "associate_chief", "chief"], required=False, default="",
        help_text="Lowest rank allowed to inspect (attending < associate_chief < chief)",
    )
    raters_per_item = serializers.IntegerField(required=False, default=2, min_value=1)
    inspect_all = serializers.BooleanField(required=False, default=False)
    inspect_disagreements = serializers.BooleanField(required=False, default=True)
    inspect_share = serializers.FloatField(required=False, default=0.0, min_value=0, max_value=1)
    guidelines = serializers.CharField(required=False, allow_blank=True, default="")
    deadline = serializers.DateTimeField(required=False, allow_null=True, default=None)
    required_specialties = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    required_languages = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    lease_minutes = serializers.IntegerField(required=False, default=30, min_value=1)
    raters = serializers.ListField(child=serializers.CharField(), required=False, default=list,
                                   help_text="Usernames of raters")
    inspectors = serializers.ListField(child=serializers.CharField(), required=False, default=list,
                                       help_text="Usernames of inspectors")
    groups = serializers.DictField(
        child=serializers.ChoiceField(choices=["A", "B"]), required=False, default=dict,
        help_text="Expert groups (ClinConsensus Sec. 3.4): {rater username: \"A\" or \"B\"}; each must be a rater",
    )
    calibration_threshold = serializers.FloatField(
        required=False, allow_null=True, default=None, min_value=0, max_value=1,
        help_text="Share of calibration labels matching the expected answer that admits a rater (empty: an admin)",
    )
    hourly_rate = serializers.DecimalField(
        max_digits=8, decimal_places=2, required=False, allow_null=True, default=None, min_value=0,
        help_text="Cost of one hour of active review, for the effort and cost report",
    )
    currency = serializers.CharField(required=False, default="USD", min_length=3, max_length=3)
    text_display = serializers.ChoiceField(
        choices=TextDisplay.choices, required=False, default=TextDisplay.AUTO,
        help_text="What raters read of case text: the original, a translation, both, or auto (both for bilingual raters)",
    )
    translation_language = serializers.CharField(required=False, default="zh-Hans", max_length=16,
                                                 help_text="Language of the translations shown (BCP 47)")
    start = serializers.BooleanField(required=False, default=False, help_text="Start the study right away")


class LabelsImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV, JSON Lines or a JSON list in the long format of docs/formats.md")
    dry_run = serializers.BooleanField(required=False, default=False)
