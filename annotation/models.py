"""Physician review: people, studies, scales, items, assignments, ratings and inspection.

Nothing here is overwritten. An assignment moves through states and each move is an
`ReviewEvent`; a rating is written once per round (round 1 = the independent first-round
label used for agreement statistics); the label that stands after inspection is a `FinalLabel`.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from cases.models import MCQ, CaseRevision, ModelResponse, QuestionSet, RubricCriterion


def field_id(task_slug: str, field_key: str) -> str:
    """The id of one rated field, `"<task slug>|<field key>"`: the key of drafts, submissions and reports."""
    return f"{task_slug}|{field_key}"


class Scale(models.Model):
    """The categories a rater picks from. Scales are data: a new task needs no new code."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    ordered = models.BooleanField(default=False, help_text="Ordinal (0-2, Likert) vs nominal")
    description = models.TextField(blank=True)

    def __str__(self) -> str:
        return self.name


class ScaleCategory(models.Model):
    scale = models.ForeignKey(Scale, on_delete=models.CASCADE, related_name="categories")
    value = models.CharField(max_length=32, help_text="Stored label, e.g. 2, agree, met, A")
    label = models.CharField(max_length=100)
    description = models.TextField(blank=True, help_text="Shown to the rater")
    order = models.PositiveSmallIntegerField(default=0)
    shortcut = models.CharField(max_length=1, blank=True, help_text="Keyboard key, e.g. 2 or y")
    approves = models.BooleanField(
        default=False, help_text="Counts as approval in the data-quality report (e.g. 2 Perfect, Agree)"
    )

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


class ItemKind(models.TextChoices):
    CASE = "case", "Case"
    RESPONSE = "response", "Model response"
    QUESTION_SET = "question_set", "Question set"
    PAIR = "pair", "Pair of model responses"


class TaskType(models.Model):
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

    class Meta:
        ordering = ["order", "slug"]

    def __str__(self) -> str:
        return self.name


class Study(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        RUNNING = "running", "Running"
        CLOSED = "closed", "Closed"

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
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, through="StudyMember", related_name="studies")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
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
        RATER = "rater", "Rater"
        INSPECTOR = "inspector", "Inspector"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
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
        OPEN = "open", "Collecting ratings"
        INSPECTION = "inspection", "Awaiting inspection"
        RETURNED = "returned", "Returned for revision"
        RESOLVED = "resolved", "Resolved"

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
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # By the key column: following the related model's own ordering would join it into every query.
        ordering = ["study_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "key"], name="item_unique_key"),
        ]
        indexes = [models.Index(fields=["study", "status"])]

    def __str__(self) -> str:
        return f"{self.study_id}/{self.key}"


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    def holding_slot(self, *, now) -> "AssignmentQuerySet":
        """Assignments that occupy one of an item's `raters_per_item` slots."""
        return self.filter(
            Q(state__in=Assignment.SLOT_STATES)
            | Q(state__in=Assignment.LEASED_STATES, lease_expires_at__gt=now)
        )

    def in_progress(self, *, now) -> "AssignmentQuerySet":
        """Claimed or drafted work whose lease still runs."""
        return self.filter(state__in=Assignment.LEASED_STATES, lease_expires_at__gt=now)

    def finished(self) -> "AssignmentQuerySet":
        """Assignments whose labels count: submitted, or revised after inspection."""
        return self.filter(state__in=Assignment.FINISHED_STATES)


class Assignment(models.Model):
    class State(models.TextChoices):
        CLAIMED = "claimed", "Claimed"
        DRAFT = "draft", "Draft"
        SUBMITTED = "submitted", "Submitted"
        RETURNED = "returned", "Revision requested"
        REVISED = "revised", "Revised"
        SKIPPED = "skipped", "Skipped"
        EXPIRED = "expired", "Lease expired"

    # Finished or returned work always holds its slot; claimed and drafted work holds it only while
    # its lease runs (saving a draft renews the lease), so an abandoned tab frees the slot.
    SLOT_STATES = (State.SUBMITTED, State.RETURNED, State.REVISED)
    LEASED_STATES = (State.CLAIMED, State.DRAFT)
    # Work whose labels stand (an inspector may return it; a returned assignment is not finished).
    FINISHED_STATES = (State.SUBMITTED, State.REVISED)
    # Work with ratings on record: finished, or returned for revision (SLOT_STATES by another name).
    RATED_STATES = SLOT_STATES

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments")
    state = models.CharField(max_length=10, choices=State.choices, default=State.CLAIMED)
    round = models.PositiveSmallIntegerField(default=1, help_text="1 = independent first round")
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    draft = models.JSONField(default=dict, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    pair_order = models.CharField(max_length=2, blank=True, help_text="ab / ba: order shown to this rater")
    skip_reason = models.TextField(blank=True)
    claimed_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        # By the key column: following the related model's own ordering would join it into every query.
        ordering = ["item_id", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "rater"], name="assignment_unique_rater"),
        ]
        indexes = [models.Index(fields=["rater", "state"])]

    def __str__(self) -> str:
        return f"{self.item} by {self.rater_id} ({self.state})"


class Rating(models.Model):
    """One label on one field of an item, written once per round and never updated."""

    assignment = models.ForeignKey(Assignment, on_delete=models.PROTECT, related_name="ratings")
    task = models.ForeignKey(TaskType, on_delete=models.PROTECT, related_name="ratings")
    field_key = models.CharField(max_length=100, blank=True, help_text='"", criterion:<id>, mcq:<id>, axis:<name>')
    criterion = models.ForeignKey(
        RubricCriterion, null=True, blank=True, on_delete=models.PROTECT, related_name="ratings"
    )
    mcq = models.ForeignKey(MCQ, null=True, blank=True, on_delete=models.PROTECT, related_name="ratings")
    round = models.PositiveSmallIntegerField(default=1)
    label = models.CharField(max_length=32)
    comment = models.TextField(blank=True)
    seconds_spent = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # By the key column: following the related model's own ordering would join it into every query.
        ordering = ["assignment_id", "task_id", "field_key", "round"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "task", "field_key", "round"], name="rating_unique_round"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.task.slug}/{self.field_key or '-'} r{self.round}: {self.label}"


class ReviewEventQuerySet(models.QuerySet["ReviewEvent"]):
    def record(
        self, *, item: Item, kind: str, actor: object | None, assignment: "Assignment | None" = None,
        reason: str = "", data: dict | None = None,
    ) -> "ReviewEvent":
        """Write one event (a convenience over `create` with the defaults every caller wants)."""
        return self.create(item=item, assignment=assignment, actor=actor, kind=kind, reason=reason, data=data or {})


class ReviewEvent(models.Model):
    """Every state change, with who, when and why."""

    class Kind(models.TextChoices):
        CLAIMED = "claimed"
        DRAFTED = "drafted"
        SUBMITTED = "submitted"
        SKIPPED = "skipped"
        EXPIRED = "expired"
        SENT_TO_INSPECTION = "sent_to_inspection"
        ACCEPTED = "accepted"
        RETURNED = "returned"
        REVISED = "revised"
        ADJUDICATED = "adjudicated"
        RESOLVED = "resolved", "Resolved by consensus"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="events")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ReviewEventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.kind} on {self.item_id}"

    @classmethod
    def lease_lapsed(cls, assignment: Assignment) -> "ReviewEvent":
        """The (unsaved) EXPIRED event of a claim or draft whose lease ran out before submission."""
        return cls(
            item_id=assignment.item_id, assignment=assignment, actor=None, kind=cls.Kind.EXPIRED,
            reason="Lease lapsed before submission",
            data={"lease_expired_at": assignment.lease_expires_at.isoformat() if assignment.lease_expires_at else None},
        )


class Inspection(models.Model):
    class Action(models.TextChoices):
        ACCEPT = "accept", "Accept"
        ADJUDICATE = "adjudicate", "Set final label"
        RETURN = "return", "Return to annotator"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="inspections")
    inspector = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=12, choices=Action.choices)
    comment = models.TextField(blank=True)
    returned_to = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="returns"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.action} on {self.item_id}"


class FinalLabel(models.Model):
    """The label that stands for a resolved item, kept apart from the raters' own ratings.

    Written for every resolved item: by an inspector (accept / adjudicate), or automatically when
    the raters agreed and the policy sent the item to no inspection (`source` consensus, no
    inspection and no deciding user).
    """

    class Source(models.TextChoices):
        CONSENSUS = "consensus", "Raters agreed (not inspected)"
        ACCEPTED = "accepted", "Accepted by an inspector"
        ADJUDICATED = "adjudicated", "Set by an inspector"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="final_labels")
    task = models.ForeignKey(TaskType, on_delete=models.PROTECT, related_name="+")
    field_key = models.CharField(max_length=100, blank=True)
    criterion = models.ForeignKey(RubricCriterion, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    mcq = models.ForeignKey(MCQ, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=32)
    reason = models.TextField(blank=True)
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.ADJUDICATED)
    inspection = models.ForeignKey(
        Inspection, null=True, blank=True, on_delete=models.PROTECT, related_name="final_labels"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "task", "field_key"], name="finallabel_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}/{self.field_key or '-'}: {self.label}"
