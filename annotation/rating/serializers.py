"""Input and output serializers of the rater's API. Outputs are built from plain dicts (see
`annotation.rating.api`) so that what a rater can receive is spelled out here field by field: never
another rater's labels, never a grader decision, never a model's name on a blinded item.
"""

from __future__ import annotations

from rest_framework import serializers

from annotation.labels import MAX_SECONDS
from annotation.models import Assignment, ItemKind


class CategorySerializer(serializers.Serializer):
    value = serializers.CharField()
    label = serializers.CharField()
    description = serializers.CharField()
    shortcut = serializers.CharField()
    approves = serializers.BooleanField()


class CriterionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    text = serializers.CharField()
    points = serializers.IntegerField()
    axis = serializers.CharField()


class MCQSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    order = serializers.IntegerField()
    stage = serializers.CharField()
    question = serializers.CharField()
    options = serializers.DictField(child=serializers.CharField())
    correct_answer = serializers.CharField(
        allow_null=True,
        help_text="Both LiveClin views show it: the auditor checks it, the examinee judges whether it is deducible",
    )
    step = serializers.IntegerField(
        required=False, help_text="Examinee view: judging question n, read questions 1..n and their answers"
    )
    image_details = serializers.JSONField(help_text="Image captions only in the auditor view")
    table_details = serializers.JSONField()


class FieldSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='"<task slug>|<field key>": the key of drafts and labels')
    task = serializers.CharField(help_text="Task type slug")
    task_name = serializers.CharField()
    key = serializers.CharField(help_text='"", criterion:<id>, mcq:<id> or axis:<name>')
    label = serializers.CharField(help_text="What the rater judges: criterion text, MCQ question, axis, task")
    criterion = CriterionSerializer(allow_null=True)
    mcq_id = serializers.IntegerField(allow_null=True)
    requires_explanation = serializers.BooleanField()
    shows_privileged_source = serializers.BooleanField()
    categories = CategorySerializer(many=True)


class ShownResponseSerializer(serializers.Serializer):
    position = serializers.CharField(help_text="A = shown first (left), B = shown second (right)")
    text = serializers.CharField()


class QuestionSetContentSerializer(serializers.Serializer):
    """LiveClin (Appendix G): the auditor view adds the privileged source; the examinee view has
    neither the report nor any caption."""

    scenario = serializers.CharField()
    scenario_images = serializers.JSONField()
    scenario_tables = serializers.JSONField()
    mcqs = MCQSerializer(many=True)
    case_report = serializers.CharField(required=False, allow_blank=True,
                                        help_text="Auditor view only: the source case report (Markdown)")
    case_report_source = serializers.CharField(required=False, allow_blank=True,
                                               help_text='Auditor view only: "record", "side file" or "" (missing)')
    source_url = serializers.CharField(required=False, allow_blank=True,
                                       help_text="Auditor view only: the public page of the case report")
    image_captions = serializers.JSONField(required=False, help_text="Auditor view only: every image caption")


class PhaseSerializer(serializers.Serializer):
    current = serializers.CharField(help_text="auditor (phase 1, factual) or examinee (phase 2, solvability)")
    phases = serializers.ListField(child=serializers.CharField())


class ItemContentSerializer(serializers.Serializer):
    """What a rater reads. Model names are hidden; grader decisions and other raters' labels absent."""

    id = serializers.IntegerField()
    study = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ItemKind.choices)
    language = serializers.CharField()
    narrative = serializers.CharField()
    core_request = serializers.CharField()
    doctor_advice = serializers.CharField()
    conversation = serializers.JSONField()
    criteria = CriterionSerializer(many=True)
    response = serializers.CharField(allow_null=True, help_text="The model response (response items)")
    responses = ShownResponseSerializer(many=True, help_text="Pair items, in this rater's order")
    question_set = QuestionSetContentSerializer(allow_null=True)


class AssignmentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    study = serializers.IntegerField()
    study_name = serializers.CharField()
    item = serializers.IntegerField()
    item_key = serializers.CharField()
    state = serializers.ChoiceField(choices=Assignment.State.choices)
    round = serializers.IntegerField()
    lease_expires_at = serializers.DateTimeField(allow_null=True)
    draft = serializers.JSONField(help_text="The rater's own draft: {field id: {label, comment}}")
    draft_saved_at = serializers.DateTimeField(allow_null=True)
    submitted_at = serializers.DateTimeField(allow_null=True)
    seconds_spent = serializers.IntegerField()
    pair_order = serializers.CharField()
    revision_request = serializers.CharField(
        allow_blank=True, help_text="The inspector's comment when the assignment was returned"
    )


class AssignmentEnvelopeSerializer(serializers.Serializer):
    assignment = AssignmentSerializer()


class AssignmentDetailSerializer(serializers.Serializer):
    assignment = AssignmentSerializer()
    fields = FieldSerializer(many=True)
    item = ItemContentSerializer()
    phase = PhaseSerializer(required=False, help_text="LiveClin question sets: the phase shown (fields and content)")
    prescreen = serializers.JSONField(
        required=False, help_text="Studies that show the pre-screen: {field id: {verdict, explanation}} of the Judge"
    )
    my_labels = serializers.JSONField(help_text="This rater's own submitted labels, latest round, as shown")
    guidelines = serializers.CharField()


class ClaimSerializer(serializers.Serializer):
    assignment = AssignmentSerializer(allow_null=True)
    fields = FieldSerializer(many=True)
    item = ItemContentSerializer(allow_null=True)
    phase = PhaseSerializer(required=False, help_text="LiveClin question sets: the phase shown (fields and content)")
    prescreen = serializers.JSONField(
        required=False, help_text="Studies that show the pre-screen: {field id: {verdict, explanation}} of the Judge"
    )
    my_labels = serializers.JSONField(
        required=False, help_text="This rater's own submitted labels (a returned item), latest round, as shown"
    )
    guidelines = serializers.CharField()
    detail = serializers.CharField()


class DraftInputSerializer(serializers.Serializer):
    draft = serializers.DictField(
        child=serializers.JSONField(),
        help_text='{field id: {"label": "...", "comment": "..."}}; merged into the saved draft',
    )
    seconds_spent = serializers.IntegerField(
        min_value=0, max_value=MAX_SECONDS, help_text="Time on this item in this round so far"
    )


class SubmitInputSerializer(serializers.Serializer):
    labels = serializers.DictField(
        child=serializers.JSONField(),
        help_text='{field id: {"label": "...", "comment": "..."}} for every field of the item',
    )
    seconds_spent = serializers.IntegerField(min_value=0, max_value=MAX_SECONDS)


class SkipInputSerializer(serializers.Serializer):
    reason = serializers.CharField(max_length=2000)


class QueueCountsSerializer(serializers.Serializer):
    in_progress = serializers.IntegerField()
    returned = serializers.IntegerField()
    done = serializers.IntegerField()
    skipped = serializers.IntegerField()


class QueueSerializer(serializers.Serializer):
    in_progress = AssignmentSerializer(many=True)
    returned = AssignmentSerializer(many=True)
    done = AssignmentSerializer(many=True)
    counts = QueueCountsSerializer()
    available = serializers.IntegerField(help_text="Open items with room that this rater has not touched")


class ReleaseResultSerializer(serializers.Serializer):
    released = serializers.BooleanField(help_text="False when the claim holds a draft (it is kept)")
    assignment = AssignmentSerializer()
