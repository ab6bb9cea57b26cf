"""Review events: the study's append-only, hash-chained audit trail (docs/curation.md).

Every event joins its study's chain on commit (`seal_audit_chain`); the hashing itself is the pure
`annotation.models.chain`.
"""

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from annotation.models.assignments import Assignment
from annotation.models.chain import GENESIS_HASH
from annotation.models.chain import event_hash as audit_event_hash
from annotation.models.chain import timestamp as audit_timestamp
from annotation.models.sealer import batch_sealer
from annotation.models.studies import Item, Study
from medreview.after_response import after_response, in_request
from medreview.errors import ConflictError

APPEND_ONLY = "Review events are append-only: they are never changed or deleted."
# Every seal logs the study's new head here: route it outside the database (docs/deployment.md).
audit_log = logging.getLogger("medreview.audit")


class AuditChainBroken(ConflictError):
    """The study's chain no longer ends where its head says: sealed events were removed, unsealed or
    added behind the head's back. Nothing more is sealed until `verify_audit_trail --db` is read."""


def audit_chain_keys() -> dict[str, bytes]:
    """{key id: secret} from AUDIT_CHAIN_KEYS; the first seals, all verify."""
    return {key_id: secret.encode("utf-8") for key_id, secret in settings.AUDIT_CHAIN_KEYS.items()}


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
    sealed_at = models.DateTimeField(null=True, blank=True, help_text="When it joined the chain (since issue 22)")
    key_id = models.CharField(max_length=32, blank=True, help_text="The AUDIT_CHAIN_KEYS key its hash is keyed with")

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
    sealed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"audit chain of study {self.study_id} at {self.seq}"

    def as_dict(self) -> dict:
        """The head as exports and manifests carry it: a copy of it outside the database."""
        return {"study": self.study_id, "seq": self.seq, "hash": self.hash,
                "sealed_at": audit_timestamp(self.sealed_at) if self.sealed_at else None}


def chain_fields(event: "ReviewEvent") -> dict:
    """What an event's hash covers (`annotation.audit.HASHED_FIELDS`), as the export writes it."""
    return {
        "study": event.study_id, "seq": event.seq, "item": event.item_id, "assignment": event.assignment_id,
        "actor": event.actor_pseudonym or None, "kind": event.kind, "reason": event.reason, "data": event.data,
        "created_at": audit_timestamp(event.created_at),
        "sealed_at": audit_timestamp(event.sealed_at) if event.sealed_at else None, "key_id": event.key_id,
    }


def _prepare_for_chain(events: list["ReviewEvent"]) -> None:
    """Fill what the hash will cover and never changes: the study, the actor's pseudonym, the time."""
    from accounts.models import Profile

    need_study = {e.item_id for e in events if e.study_id is None and e.item_id is not None}
    study_of = dict(Item.objects.filter(pk__in=need_study).values_list("pk", "study_id")) if need_study else {}
    pseudonyms: dict[int, str] = {}
    for event in events:
        # The actor as the request loaded it, with its profile (token authentication joins it): no query.
        actor = event._state.fields_cache.get("actor") if event.actor_id is not None else None
        profile = actor._state.fields_cache.get("profile") if actor is not None else None
        if profile is not None and profile.pseudonym:
            pseudonyms[event.actor_id] = profile.pseudonym
    actors = {e.actor_id for e in events if e.actor_id is not None and e.actor_id not in pseudonyms}
    if actors:
        pseudonyms.update(Profile.objects.filter(user_id__in=actors).values_list("user_id", "pseudonym"))
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
    # In a request, after its answer has been sent (issue 27: the rater does not wait for the seal);
    # what a crash in between leaves pending, the next writer or reader of the trail seals.
    for study_id in sorted(study_ids):
        transaction.on_commit(lambda study_id=study_id: _seal_after_commit(study_id), robust=True)


def _seal_after_commit(study_id: int) -> None:
    if in_request() and settings.AUDIT_SEAL_BATCH_SECONDS > 0:
        _sealer.owe(study_id)  # annotation/models/sealer.py: one seal per study per interval
    else:  # a command or a task seals before it ends; with batching off, a request after its answer
        after_response(("audit-seal", study_id), lambda: seal_audit_chain_nowait(study_id))


# Rounds a non-waiting sealer goes on sealing what others committed meanwhile (see below).
_NOWAIT_ROUNDS = 8


def seal_audit_chain_nowait(study_id: int) -> int:
    """Seal the study's pending events unless another sealer holds the chain head; returns how many.

    A writer's on-commit step: under load every rater of a study committing at once would otherwise
    queue on the one head row. A writer that finds the head locked leaves its event to the holder,
    which, after its own commit, looks for events committed meanwhile and seals them too: the
    writer committed before it tried the lock, and the holder looks again after releasing it, so
    every committed event is sealed by someone without anyone waiting.
    """
    sealed = 0
    for _round in range(_NOWAIT_ROUNDS):
        done = _seal(study_id, wait=False)
        if done is None:  # another sealer holds the head: it will see our committed events
            return sealed
        sealed += done
        # Nothing sealed this round: what is left pending was refused (logged), not raced.
        if not done or not ReviewEvent.objects.filter(study_id=study_id, seq__isnull=True).exists():
            return sealed
    return sealed + seal_audit_chain(study_id)


# This process's background sealer (issues 26 and 27), for events written in requests.
_sealer = batch_sealer(seal_audit_chain_nowait, lambda: settings.AUDIT_SEAL_BATCH_SECONDS)


def _check_head(study_id: int, head: AuditChainHead) -> None:
    """The chain must end where its head says: the event numbered head.seq carries head.hash, and
    none is numbered beyond it (one indexed query)."""
    tail = list(ReviewEvent.objects.filter(study_id=study_id, seq__gte=head.seq).order_by("seq")
                .values_list("seq", "hash")[:3])
    expected = [(head.seq, head.hash)] if head.seq else []
    if tail != expected:
        audit_log.error("audit chain of study %s does not end at its head (seq %s): %s", study_id, head.seq, tail[:3])
        raise AuditChainBroken(gettext(
            "The audit chain of study %(study)s does not end at its head (event %(seq)s): events were removed, "
            "unsealed or added outside medreview. Run `manage.py verify_audit_trail --db`."
        ) % {"study": study_id, "seq": head.seq})


def _refused(event: "ReviewEvent", head: AuditChainHead, grace: timedelta) -> bool:
    """Written long before the head was last sealed: backdated, or a sealed event whose seq and hash
    were cleared so it would be sealed again (a live writer commits within `grace`)."""
    return head.sealed_at is not None and event.created_at < head.sealed_at - grace


def seal_audit_chain(study_id: int) -> int:
    """Number and hash the study's pending events in writing order onto the chain; returns how many.
    Readers of the trail (exports, item history, `verify_audit_trail --db`) call it first.

    Refuses (AuditChainBroken) when the chain does not end at its head; leaves pending, and logs, an
    event written long before the last seal (`AUDIT_SEAL_GRACE_SECONDS`); `verify_audit_trail --db`
    reports both."""
    return _seal(study_id, wait=True) or 0


# Events whose places in the chain one UPDATE fills in, at most: each takes 7 parameters (two in each
# of three CASEs, one in the IN list), and a database may cap a statement's parameters (Django assumes
# 999 for SQLite, whose older builds refuse more).
_SEAL_STATEMENT_EVENTS = 500


def _seal_statement_events() -> int:
    cap = connection.features.max_query_params
    return min(_SEAL_STATEMENT_EVENTS, cap // 7) if cap else _SEAL_STATEMENT_EVENTS


def _fill_in_chain_places(events: list["ReviewEvent"], sealed_at: datetime, key_id: str) -> None:
    """The one write to an existing event: its place in the chain, filled in once, for a batch of
    events in one statement (one per event cost a round trip and a compile each, on every request's
    event). The model's queryset refuses updates, hence SQL of our own; on PostgreSQL a trigger allows
    no other write. Written here, not compiled by the ORM: three CASEs of one WHEN per event took the
    ORM longer to build than the database to run (py-spy put 8% of a queue worker's processor time there
    under load)."""
    meta = ReviewEvent._meta
    quote = connection.ops.quote_name
    pk = quote(meta.pk.column)
    assignments, params = [], []
    for name in ("seq", "prev_hash", "hash"):
        field = meta.get_field(name)
        # Typed: with server-side binding a bare parameter in a CASE would arrive as text.
        value = f"CAST(%s AS {field.db_type(connection)})"
        assignments.append(f"{quote(field.column)} = CASE {pk} {' '.join([f'WHEN %s THEN {value}'] * len(events))} END")
        for event in events:
            params += [event.pk, field.get_db_prep_value(getattr(event, name), connection)]
    for name, value in (("sealed_at", sealed_at), ("key_id", key_id)):
        field = meta.get_field(name)
        assignments.append(f"{quote(field.column)} = %s")
        params.append(field.get_db_prep_value(value, connection))
    params += [event.pk for event in events]
    sql = (f"UPDATE {quote(meta.db_table)} SET {', '.join(assignments)} "  # noqa: S608 (our own names, values bound)
           f"WHERE {pk} IN ({', '.join(['%s'] * len(events))}) AND {quote(meta.get_field('seq').column)} IS NULL")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _seal(study_id: int, *, wait: bool) -> int | None:
    """Seal the pending events under the chain head's lock; None when `wait` is off and it is held."""
    keys = audit_chain_keys()
    key_id = next(iter(keys), "")
    grace = timedelta(seconds=settings.AUDIT_SEAL_GRACE_SECONDS)
    # Why atomic: locks the study's chain head so two sealers never give out the same numbers; the
    # pending rows are only ever written here, under that lock.
    with transaction.atomic():
        if wait:
            head, _ = AuditChainHead.objects.select_for_update().get_or_create(study_id=study_id)
        else:
            head = AuditChainHead.objects.select_for_update(skip_locked=True).filter(study_id=study_id).first()
            if head is None:
                if AuditChainHead.objects.filter(study_id=study_id).exists():
                    return None
                head, _ = AuditChainHead.objects.select_for_update().get_or_create(study_id=study_id)
        _check_head(study_id, head)
        pending = list(ReviewEvent.objects.filter(study_id=study_id, seq__isnull=True).order_by("pk"))
        refused = [e for e in pending if _refused(e, head, grace)]
        if refused:
            audit_log.error("audit chain of study %s: refused to seal events %s, written before its last seal",
                            study_id, [e.pk for e in refused])
        pending = [e for e in pending if e not in refused]
        # Seal times never go backwards along the chain, even if this machine's clock does.
        now: datetime = max(timezone.now(), head.sealed_at) if head.sealed_at else timezone.now()
        for event in pending:
            event.seq, event.prev_hash, event.sealed_at, event.key_id = head.seq + 1, head.hash, now, key_id
            event.hash = audit_event_hash(chain_fields(event), event.prev_hash, keys.get(key_id))
            head.seq, head.hash, head.sealed_at = event.seq, event.hash, now
        size = _seal_statement_events()
        for start in range(0, len(pending), size):
            _fill_in_chain_places(pending[start:start + size], now, key_id)
        if pending:
            head.save(update_fields=["seq", "hash", "sealed_at"])
            audit_log.info("audit chain head: study=%s seq=%s hash=%s key=%s sealed_at=%s", study_id, head.seq,
                           head.hash, key_id or "-", audit_timestamp(now))
    return len(pending)
