"""Review events: the study's append-only, hash-chained audit trail (docs/curation.md).

Every event joins its study's chain on commit (`seal_audit_chain`); the hashing itself is the pure
`annotation.models.chain`.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models.assignments import Assignment
from annotation.models.chain import GENESIS_HASH
from annotation.models.chain import event_hash as audit_event_hash
from annotation.models.chain import timestamp as audit_timestamp
from annotation.models.studies import Item, Study
from medreview.errors import ConflictError

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
        CLAIMED = "claimed", _("Claimed")
        DRAFTED = "drafted", _("Drafted")
        SUBMITTED = "submitted", _("Submitted")
        SKIPPED = "skipped", _("Skipped")
        EXPIRED = "expired", _("Expired")
        SENT_TO_INSPECTION = "sent_to_inspection", _("Sent to inspection")
        ACCEPTED = "accepted", _("Accepted")
        RETURNED = "returned", _("Returned")
        REVISED = "revised", _("Revised")
        ADJUDICATED = "adjudicated", _("Adjudicated")
        RESOLVED = "resolved", _("Resolved by consensus")
        EXPORTED = "exported", _("Exported (labels or audit trail)")
        CURATED = "curated", _("Curated into a new release")
        EDITED = "edited", _("Edited after submission")
        RELEASED = "released", _("Released by the rater")
        ADMITTED = "admitted", _("Admitted after calibration")
        SET_REJECTED = "set_rejected", _("Question set rejected by the inspector")
        JUDGE_RUN_PINNED = "judge_run_pinned", _("Judge run pinned for the study's quality check")

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
