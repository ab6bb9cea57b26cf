"""Physician review: people, studies, scales, items, assignments, ratings and inspection.

Nothing here is overwritten. An assignment moves through states and each move is an
`ReviewEvent`; a rating is written once per round (round 1 = the independent first-round
label used for agreement statistics); the label that stands after inspection is a `FinalLabel`.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.audit import GENESIS_HASH
from annotation.audit import event_hash as audit_event_hash
from annotation.audit import timestamp as audit_timestamp
from annotation.i18n import TRANSLATIONS_HELP, TextDisplay, Translated
from cases.models import MCQ, CaseRevision, ModelResponse, QuestionSet, Release, RubricCriterion
from medreview.errors import ConflictError


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
    CASE = "case", "Case"
    RESPONSE = "response", "Model response"
    QUESTION_SET = "question_set", "Question set"
    PAIR = "pair", "Pair of model responses"


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
        RATER = "rater", "Rater"
        INSPECTOR = "inspector", "Inspector"

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices)
    admitted_at = models.DateTimeField(
        null=True, blank=True,
        help_text="Raters of a study with calibration items: when they were admitted to the main queue",
    )
    group = models.CharField(
        max_length=1, blank=True, choices=[("A", "Group A"), ("B", "Group B")],
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
        CALIBRATION = "calibration", "Calibration item"  # known answers; round 0, no slots (issue 11)

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
        CLAIMED = "claimed", _("Claimed")
        DRAFT = "draft", _("Draft")
        SUBMITTED = "submitted", _("Submitted")
        RETURNED = "returned", _("Revision requested")
        REVISED = "revised", _("Revised")
        SKIPPED = "skipped", _("Skipped")
        EXPIRED = "expired", _("Lease expired")

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
    imported = models.BooleanField(
        default=False, help_text="Labels collected outside medreview and imported (annotation.outside_labels)"
    )

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
    text_version = models.JSONField(
        default=dict, blank=True,
        help_text='The text the rater read: {"display", "original_language", "translations": [ids]}',
    )
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


APPEND_ONLY = "Review events are append-only: they are never changed or deleted."


class ReviewEventQuerySet(models.QuerySet["ReviewEvent"]):
    def record(
        self, *, kind: str, actor: object | None, item: Item | None = None, study: "Study | None" = None,
        assignment: "Assignment | None" = None, reason: str = "", data: dict | None = None,
    ) -> "ReviewEvent":
        """Write one event; one about a whole study (an export, a curation) names the study, no item."""
        study_id = study.pk if study is not None else (item.study_id if item is not None else None)
        return self.create(item=item, study_id=study_id, assignment=assignment, actor=actor, kind=kind,
                           reason=reason, data=data or {})

    def bulk_create(self, objs, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        objs = list(objs)
        _prepare_for_chain(objs)
        created = super().bulk_create(objs, *args, **kwargs)
        _seal_on_commit({e.study_id for e in objs})
        return created

    # The audit trail is append-only (docs/curation.md); the hash chain catches what bypasses this.
    def update(self, **kwargs):  # type: ignore[no-untyped-def]
        raise ConflictError(APPEND_ONLY)

    def bulk_update(self, objs, fields, batch_size=None):  # type: ignore[no-untyped-def]
        raise ConflictError(APPEND_ONLY)

    def delete(self):  # type: ignore[no-untyped-def]
        raise ConflictError(APPEND_ONLY)


class ReviewEvent(models.Model):
    """Every state change, with who, when and why: the study's append-only, hash-chained audit trail."""

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
        EXPORTED = "exported", "Exported (labels or audit trail)"
        CURATED = "curated", "Curated into a new release"
        EDITED = "edited", "Edited after submission"
        RELEASED = "released", "Released by the rater"
        ADMITTED = "admitted", "Admitted after calibration"

    # PROTECT: deleting a study, item or assignment must not take its audit trail with it.
    study = models.ForeignKey("Study", on_delete=models.PROTECT, related_name="events")
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.PROTECT, related_name="events")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor_pseudonym = models.CharField(max_length=32, blank=True, help_text="The actor's pseudonym when written")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    seq = models.PositiveIntegerField(null=True, blank=True, help_text="Position in the study's chain, from 1; empty until sealed")
    prev_hash = models.CharField(max_length=64, blank=True, help_text="Hash of the study's previous event")
    hash = models.CharField(max_length=64, blank=True, help_text="SHA-256 of prev_hash and this event")

    objects = ReviewEventQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["study", "seq"], name="reviewevent_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} on {self.item_id or 'study ' + str(self.study_id)}"

    def save(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        """Written pending, sealed into the study's chain on commit; never saved twice (append-only)."""
        if not self._state.adding:
            raise ConflictError(APPEND_ONLY)
        _prepare_for_chain([self])
        super().save(*args, **kwargs)
        _seal_on_commit({self.study_id})

    def delete(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise ConflictError(APPEND_ONLY)

    @classmethod
    def lease_lapsed(cls, assignment: Assignment) -> "ReviewEvent":
        """The (unsaved) EXPIRED event of a claim or draft whose lease ran out before submission."""
        return cls(
            item_id=assignment.item_id, assignment=assignment, actor=None, kind=cls.Kind.EXPIRED,
            reason="Lease lapsed before submission",
            data={"lease_expired_at": assignment.lease_expires_at.isoformat() if assignment.lease_expires_at else None},
        )


class AuditChainHead(models.Model):
    """The last link of a study's audit chain, locked while pending events are sealed onto it."""

    study = models.OneToOneField(Study, on_delete=models.CASCADE, primary_key=True, related_name="audit_head")
    seq = models.PositiveIntegerField(default=0)
    hash = models.CharField(max_length=64, default=GENESIS_HASH)

    def __str__(self) -> str:
        return f"audit chain of study {self.study_id} at {self.seq}"


def chain_fields(event: "ReviewEvent") -> dict:
    """What an event's hash covers (`annotation.audit.HASHED_FIELDS`), as the export writes it."""
    return {
        "study": event.study_id, "seq": event.seq, "item": event.item_id, "assignment": event.assignment_id,
        "actor": event.actor_pseudonym or None, "kind": event.kind, "reason": event.reason, "data": event.data,
        "created_at": audit_timestamp(event.created_at),
    }


def _prepare_for_chain(events: list["ReviewEvent"]) -> None:
    """Fill what the hash will cover and never changes: the study, the actor's pseudonym, the time."""
    from accounts.models import Profile

    need_study = {e.item_id for e in events if e.study_id is None and e.item_id is not None}
    study_of = dict(Item.objects.filter(pk__in=need_study).values_list("pk", "study_id")) if need_study else {}
    actors = {e.actor_id for e in events if e.actor_id is not None}
    pseudonyms = dict(Profile.objects.filter(user_id__in=actors).values_list("user_id", "pseudonym")) if actors else {}
    now = timezone.now()
    for event in events:
        if event.study_id is None:
            event.study_id = study_of.get(event.item_id)
        if event.study_id is None:
            raise ValidationError("A review event needs its study (or an item of it).")
        if event.actor_id is not None:
            event.actor_pseudonym = pseudonyms.get(event.actor_id) or f"R-{event.actor_id}"
        event.created_at = now
        event.seq, event.prev_hash, event.hash = None, "", ""


def _seal_on_commit(study_ids: set[int]) -> None:
    # After the writer's commit, in a transaction of its own: review writes never wait for the chain.
    for study_id in sorted(study_ids):
        transaction.on_commit(lambda study_id=study_id: seal_audit_chain(study_id), robust=True)


def seal_audit_chain(study_id: int) -> int:
    """Number and hash the study's pending events in writing order onto the chain; returns how many.
    Readers of the trail (exports, item history, `verify_audit_trail --against-db`) call it first."""
    # Why atomic: locks the study's chain head so two sealers never give out the same numbers; the
    # pending rows are only ever written here, under that lock.
    with transaction.atomic():
        head, _ = AuditChainHead.objects.select_for_update().get_or_create(study_id=study_id)
        pending = list(ReviewEvent.objects.filter(study_id=study_id, seq__isnull=True).order_by("pk"))
        for event in pending:
            event.seq, event.prev_hash = head.seq + 1, head.hash
            event.hash = audit_event_hash(chain_fields(event), event.prev_hash)
            head.seq, head.hash = event.seq, event.hash
        for event in pending:
            # The one write to an existing event: filling in its place in the chain, once (the model's
            # queryset refuses updates, hence the base class).
            models.QuerySet.update(
                ReviewEvent.objects.filter(pk=event.pk, seq__isnull=True),
                seq=event.seq, prev_hash=event.prev_hash, hash=event.hash,
            )
        if pending:
            head.save(update_fields=["seq", "hash"])
    return len(pending)


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


class Curation(models.Model):
    """A curated release: a release and the final labels of chosen studies, written in the benchmark's
    own format under MEDIA_ROOT/curations/<name>/ with a manifest (docs/curation.md)."""

    name = models.CharField(max_length=100, unique=True, help_text="e.g. v202601-reviewed")
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="curations")
    format = models.CharField(max_length=32)
    studies = models.ManyToManyField(Study, related_name="curations")
    rules = models.JSONField(default=dict, blank=True)
    manifest = models.JSONField(default=dict, blank=True)
    files = models.JSONField(default=dict, blank=True, help_text="file name -> SHA-256")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return self.name
