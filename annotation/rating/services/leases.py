"""A claim's lease: how long it runs, whether an assignment holds one of its item's slots, reviving
a lapsed claim whose slot is still free, and expiring lapsed ones.

Slots: submitted, returned and revised assignments always hold one of an item's `raters_per_item`
slots; claimed and drafted ones only while their lease runs.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from annotation.models import Assignment, Item, ReviewEvent, Study


def lease_until(study: Study, now: datetime) -> datetime:
    return now + timedelta(minutes=study.lease_minutes)


def slot_holders(item: Item, now: datetime, *, excluding: Assignment | None = None) -> int:
    qs = Assignment.objects.holding_slot(now=now).filter(item=item)
    if excluding is not None:
        qs = qs.exclude(pk=excluding.pk)
    return qs.count()


def expire(lapsed: list[Assignment]) -> None:
    """Mark these lapsed claims EXPIRED, each with its event (caller holds their item's lock)."""
    for a in lapsed:
        a.state = Assignment.State.EXPIRED
        a.save(update_fields=["state"])
        ReviewEvent.lease_lapsed(a).save()


def expire_lapsed_on_item(item: Item, now: datetime) -> None:
    """Mark the item's lapsed claims EXPIRED (caller holds the item lock)."""
    expire(list(
        Assignment.objects.filter(item=item, state__in=Assignment.LEASED_STATES, lease_expires_at__lte=now)
    ))


def holds_slot(a: Assignment, now: datetime) -> bool:
    if a.state in Assignment.SLOT_STATES:
        return True
    return a.state in Assignment.LEASED_STATES and a.lease_expires_at is not None and a.lease_expires_at > now


def revive(a: Assignment, item: Item, study: Study, now: datetime) -> bool:
    """Give a lapsed claim a fresh lease if its slot is still free (not saved); whether it was.

    Caller holds the item and assignment locks, with `a` read under them.
    """
    if item.status != Item.Status.OPEN or slot_holders(item, now, excluding=a) >= study.raters_per_item:
        return False
    if a.state == Assignment.State.EXPIRED:
        a.state = Assignment.State.DRAFT if a.draft else Assignment.State.CLAIMED
    a.lease_expires_at = lease_until(study, now)
    return True


def ensure_live(a: Assignment, item: Item, study: Study, now: datetime) -> None:
    """Raise unless the rater may still write to `a`; revive a lapsed claim whose slot is still free.

    Caller holds the item and assignment locks (`lock_assignment`).
    """
    if a.state in Assignment.FINISHED_STATES:
        raise ValidationError({"state": gettext("state: already submitted; it can change only if an inspector returns it.")})
    if a.state == Assignment.State.SKIPPED:
        raise ValidationError({"state": gettext("state: you skipped this item.")})
    if a.state == Assignment.State.RETURNED:
        return
    if study.status != Study.Status.RUNNING:
        raise ValidationError({"state": gettext("state: this study is not running.")})
    if a.state in Assignment.LEASED_STATES and a.lease_expires_at and a.lease_expires_at > now:
        return
    if revive(a, item, study, now):
        return
    raise ValidationError(
        {"state": gettext("state: your claim on this item lapsed and another rater took the slot; take the next item.")}
    )


def lease_expire(*, now: datetime | None = None) -> int:
    """Mark every lapsed claim or draft EXPIRED (with an event); returns how many."""
    now = now or timezone.now()
    # Locks the lapsed assignments and their items (skipping any a claim or draft save holds right
    # now); the locked rows are re-checked by the database, so a renewed lease is never expired.
    with transaction.atomic():
        lapsed = list(
            Assignment.objects.filter(state__in=Assignment.LEASED_STATES, lease_expires_at__lte=now)
            .select_for_update(skip_locked=True)
            .select_related("item")
        )
        for a in lapsed:
            Assignment.objects.filter(pk=a.pk).update(state=Assignment.State.EXPIRED)
        ReviewEvent.objects.bulk_create(ReviewEvent.lease_lapsed(a) for a in lapsed)
    return len(lapsed)
