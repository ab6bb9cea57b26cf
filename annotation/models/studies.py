"""Studies, their members and items.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.tasks import ItemKind, TaskType
from annotation.models.translated import TextDisplay
from cases.models import CaseRevision, ModelResponse, QuestionSet


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        RUNNING = "running", _("Running")
        CLOSED = "closed", _("Closed")

    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    guidelines = models.TextField(blank=True, help_text="Markdown, shown to raters")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DRAFT)
    tasks = models.ManyToManyField(TaskType, related_name="studies")
    raters_per_item = models.PositiveSmallIntegerField(default=2)
    required_specialties = models.JSONField(
        default=list, blank=True, help_text="A rater needs at least one of these (empty: anyone)"
    )
    required_languages = models.JSONField(
        default=list, blank=True, help_text="A rater must read the item's language (empty: anyone)"
    )
    inspect_all = models.BooleanField(default=False)
    inspect_disagreements = models.BooleanField(default=True)
    inspect_share = models.FloatField(default=0.0, help_text="Random share sent to inspection, 0..1")
    seed = models.BigIntegerField(default=0, help_text="Seed for sampling and randomised orders")
    selection = models.JSONField(default=dict, blank=True, help_text="How items were chosen, for the record")
    lease_minutes = models.PositiveSmallIntegerField(default=30)
    deadline = models.DateTimeField(null=True, blank=True)
    # LiveClin Sec. 5: the Judge's verdicts as the raters' "structured audit trail", next to each MCQ.
    show_prescreen = models.BooleanField(
        default=False, help_text="Show the Judge's pre-screen verdicts to raters (LiveClin question sets)"
    )
    # LiveClin Sec. 3.4: senior physicians inspect. Ranks order attending < associate chief < chief.
    min_inspector_rank = models.CharField(
        max_length=16, blank=True, help_text="Lowest rank allowed to inspect (empty: any inspector)"
    )
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="StudyMember", related_name="studies")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Issue 11 (docs/review.md): edits after submission, calibration admission.
    edit_window_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="Minutes after submitting during which a rater may still edit (empty: "
        "until inspection starts)",
    )
    calibration_threshold = models.FloatField(
        null=True, blank=True, help_text="Share of calibration labels matching the expected answer that "
        "admits a rater automatically, 0..1 (empty: an admin admits)",
    )
    hourly_rate = models.DecimalField(
        max_digits=8, decimal_places=2, null=True, blank=True,
        help_text="Cost of one hour of active review, for the effort and cost report (e.g. 24.00)",
    )
    currency = models.CharField(max_length=3, default="USD")
    # What each rater reads of case text (docs/i18n.md): the original, a translation, or both.
    text_display = models.CharField(max_length=12, choices=TextDisplay.choices, default=TextDisplay.AUTO)
    translation_language = models.CharField(
        max_length=16, blank=True, default="zh-Hans", help_text="Language of the translations shown (BCP 47)"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "studies"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(raters_per_item__gte=1), name="study_raters_min"),
            models.CheckConstraint(
                condition=Q(inspect_share__gte=0) & Q(inspect_share__lte=1), name="study_share_range"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class StudyMember(models.Model):
    class Role(models.TextChoices):
        RATER = "rater", _("Rater")
        INSPECTOR = "inspector", _("Inspector")

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    admitted_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Raters of a study with calibration items: when they were admitted to the main queue",
    )
    group = models.CharField(
        max_length=1, blank=True, choices=[("A", _("Group A")), ("B", _("Group B"))],
        help_text="Expert group by design (raters only): the queue gives each item one rater of each group",
    )
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user", "role"], name="studymember_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} in {self.study}"


class Item(models.Model):
    """One thing to be rated in a study. `revision` is always the exact case text shown."""

    class Status(models.TextChoices):
        OPEN = "open", _("Collecting ratings")
        INSPECTION = "inspection", _("Awaiting inspection")
        RETURNED = "returned", _("Returned for revision")
        RESOLVED = "resolved", _("Resolved")
        CALIBRATION = "calibration", _("Calibration item")  # known answers; round 0, no slots (issue 11)

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=16, choices=ItemKind.choices)
    key = models.CharField(max_length=100, help_text="Identity within the study, e.g. case:12")
    revision = models.ForeignKey(CaseRevision, on_delete=models.PROTECT, related_name="review_items")
    response = models.ForeignKey(
        ModelResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="review_items"
    )
    response_b = models.ForeignKey(
        ModelResponse, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    question_set = models.ForeignKey(
        QuestionSet, null=True, blank=True, on_delete=models.PROTECT, related_name="review_items"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    sampled_for_inspection = models.BooleanField(default=False)
    # Calibration items (status CALIBRATION): {field id: {"label": ..., "explanation": ...}}.
    expected = models.JSONField(default=dict, blank=True, help_text="Calibration items: the expected answers")
    created_at = models.DateTimeField(auto_now_add=True)
    # When a rater was first given the item. The queue looks for items other raters have started
    # among these only (a partial index), instead of counting the slots of every open item.
    first_claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        # By the key column: following the related model's own ordering would join it into every query.
        ordering = ["study_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "key"], name="item_unique_key"),
        ]
        indexes = [
            models.Index(fields=["study", "status"]),
            models.Index(fields=["study", "id"], name="item_open_started_idx",
                         condition=models.Q(status="open", first_claimed_at__isnull=False)),
            # A claim's last look, the first open item with room: in id order among the study's open
            # items only, not every item of every study before it.
            models.Index(fields=["study", "id"], name="item_open_idx", condition=models.Q(status="open")),
        ]

    def __str__(self) -> str:
        return f"{self.study_id}/{self.key}"
