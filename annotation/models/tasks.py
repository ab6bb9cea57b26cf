"""Scales, their categories, task types and item kinds: what a rater can be asked and answer.

Shipped rows come from `annotation.catalogue` through data migrations.
"""

from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.translated import TRANSLATIONS_HELP, Translated


def field_id(task_slug: str, field_key: str) -> str:
    """The id of one rated field, `"<task slug>|<field key>"`: the key of drafts, submissions and reports."""
    return f"{task_slug}|{field_key}"


class Scale(Translated, models.Model):
    """The categories a rater picks from. Scales are data: a new task needs no new code."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    ordered = models.BooleanField(default=False, help_text="Ordinal (0-2, Likert) vs nominal")
    description = models.TextField(blank=True)
    translations = models.JSONField(default=dict, blank=True, help_text=TRANSLATIONS_HELP)

    def __str__(self) -> str:
        return self.name


class ScaleCategory(Translated, models.Model):
    scale = models.ForeignKey(Scale, on_delete=models.CASCADE, related_name="categories")
    value = models.CharField(max_length=32, help_text="Stored label, e.g. 2, agree, met, A")
    label = models.CharField(max_length=100)
    description = models.TextField(blank=True, help_text="Shown to the rater")
    order = models.PositiveSmallIntegerField(default=0)
    shortcut = models.CharField(max_length=1, blank=True, help_text="Keyboard key, e.g. 2 or y")
    approves = models.BooleanField(
        default=False, help_text="Counts as approval in the data-quality report (e.g. 2 Perfect, Agree)"
    )
    translations = models.JSONField(default=dict, blank=True, help_text=TRANSLATIONS_HELP)

    class Meta:
        # By the key column: following the related model's own ordering would join it into every query.
        ordering = ["scale_id", "order"]
        verbose_name_plural = "scale categories"
        constraints = [
            models.UniqueConstraint(fields=["scale", "value"], name="scalecategory_unique_value"),
        ]

    def __str__(self) -> str:
        return f"{self.scale.slug}:{self.value}"


class TaskTarget(models.TextChoices):
    """What a task's fields are; the only place where task kinds meet code."""

    NARRATIVE = "narrative", "Narrative & query (one field per case)"
    ADVICE = "advice", "Reference advice (one field per case)"
    CRITERION = "criterion", "Each rubric criterion of a case"
    RESPONSE_CRITERION = "response_criterion", "Each rubric criterion against a model response"
    MCQ = "mcq", "Each MCQ of a question set"
    RESPONSE_AXIS = "response_axis", "Each named axis of a model response"
    PAIRWISE = "pairwise", "One verdict on a pair of responses"
    TRANSLATION = "translation", "Each translated field: two translations side by side, no original"


class ItemKind(models.TextChoices):
    CASE = "case", _("Case")
    RESPONSE = "response", _("Model response")
    QUESTION_SET = "question_set", _("Question set")
    PAIR = "pair", _("Pair of model responses")


class TaskType(Translated, models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    scale = models.ForeignKey(Scale, on_delete=models.PROTECT, related_name="tasks")
    target = models.CharField(max_length=24, choices=TaskTarget.choices)
    item_kind = models.CharField(max_length=16, choices=ItemKind.choices)
    axes = models.JSONField(default=list, blank=True, help_text="Named axes for response_axis tasks")
    instructions = models.TextField(blank=True)
    requires_explanation = models.BooleanField(default=False)
    shows_privileged_source = models.BooleanField(
        default=True,
        help_text="LiveClin: factual validation sees the source; solvability sees only what an examinee sees",
    )
    order = models.PositiveSmallIntegerField(default=0)
    translations = models.JSONField(default=dict, blank=True, help_text=TRANSLATIONS_HELP)

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name
