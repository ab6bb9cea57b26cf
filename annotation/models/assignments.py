"""One rater on one item (`Assignment`) and the labels they gave (`Rating`).

A rating is written once per round: round 1 is the independent first-round label used for
agreement statistics; revisions after a return are new rounds, never overwrites.
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.expressions import OrderBy
from django.db.models.functions import Coalesce
from django.utils.translation import gettext_lazy as _

from annotation.models.studies import Item
from annotation.models.tasks import TaskType
from cases.models import MCQ, RubricCriterion


def _latest_work_order() -> tuple[OrderBy, OrderBy]:
    """The rater's latest work first: a submission's time, else its claim's, then the newest id.

    One definition for the index that holds this order (`assignment_rater_latest_idx`) and the
    queries that read it: the index serves a query only while both spell the same expressions.
    """
    return Coalesce("submitted_at", "claimed_at").desc(), F("id").desc()


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

    def latest_work_first(self) -> "AssignmentQuerySet":
        """Newest first, in the order `assignment_rater_latest_idx` holds (filter on the rater to use it)."""
        return self.order_by(*_latest_work_order())


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
    # The rater's own work still to do: claimed, drafted, or returned for revision.
    UNFINISHED_STATES = (*LEASED_STATES, State.RETURNED)
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
        indexes = [
            models.Index(fields=["rater", "state"]),
            # The rater's latest work first: the page's list of done items (the newest 15) and the undo
            # bar's last submission read a few entries here instead of sorting all of the rater's work,
            # joined to every case revision (at 1,000 items rated: 2.9 -> 0.3 and 2.6 -> 0.1 ms).
            models.Index(F("rater"), *_latest_work_order(), name="assignment_rater_latest_idx"),
        ]

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
