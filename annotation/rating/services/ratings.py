"""A rater's writes on their assignment: saving drafts and submitting ratings."""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from annotation.access import check_can_write_assignment
from annotation.fields import item_fields
from annotation.labels import MAX_SECONDS, clean_entries, pair_label_to_canonical
from annotation.locks import lock_assignment
from annotation.models import Assignment, Item, Rating, ReviewEvent, TaskTarget
from annotation.rating.services.leases import ensure_live, lease_until
from annotation.rating.services.policy import apply_policy
from annotation.rating.text_display import text_view_for
from annotation.studies.calibration.services import admit_if_threshold_met

User = AbstractBaseUser


def _check_seconds(seconds_spent: object) -> None:
    if not isinstance(seconds_spent, int) or not 0 <= seconds_spent <= MAX_SECONDS:
        raise ValidationError({"seconds_spent": f"seconds_spent: must be a whole number from 0 to {MAX_SECONDS}."})


def assignment_save_draft(
    *, assignment: Assignment, rater: User, draft: dict[str, dict], seconds_spent: int,
    now: datetime | None = None,
) -> Assignment:
    """Merge `draft` (Field.id -> {"label", "comment"}) into the assignment's draft and renew its lease.

    The lease may lapse, the draft may not: when another rater took the slot of a lapsed claim, the
    draft is still kept on the (expired) assignment, without reviving it, and comes back if the
    rater is given the item again. Check the returned state (`expired`) to tell the rater.
    """
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    _check_seconds(seconds_spent)
    cleaned = clean_entries(draft, item_fields(assignment.item), require_all=False)
    # Locks the item then the assignment (the order every service uses): reviving a lapsed lease
    # must not race a claim of the same slot.
    with transaction.atomic():
        item, a, study = lock_assignment(assignment)
        try:
            ensure_live(a, item, study, now)
        except ValidationError:
            if a.state not in (*Assignment.LEASED_STATES, Assignment.State.EXPIRED):
                raise
            a.draft = {**(a.draft or {}), **cleaned}
            a.draft_saved_at = now
            a.seconds_spent = max(a.seconds_spent, seconds_spent)
            a.save(update_fields=["draft", "draft_saved_at", "seconds_spent"])
            return a
        first_save_of_round = a.state == Assignment.State.CLAIMED or a.draft_saved_at is None
        if a.state in Assignment.LEASED_STATES:
            a.state = Assignment.State.DRAFT
            a.lease_expires_at = lease_until(study, now)
        a.draft = {**(a.draft or {}), **cleaned}
        a.draft_saved_at = now
        a.seconds_spent = max(a.seconds_spent, seconds_spent)
        a.save(update_fields=["state", "lease_expires_at", "draft", "draft_saved_at", "seconds_spent"])
        if first_save_of_round:
            ReviewEvent.objects.record(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.DRAFTED,
                                       data={"round": a.round})
    return a


def rating_submit(
    *, assignment: Assignment, rater: User, labels: dict[str, dict], seconds_spent: int,
    now: datetime | None = None,
) -> Assignment:
    """Write one Rating per field for this round, then apply the study's inspection policy."""
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    _check_seconds(seconds_spent)
    fields = item_fields(assignment.item)
    cleaned = clean_entries(labels, fields, require_all=True)
    text_version = text_view_for(assignment.item, rater).record()
    # Locks the item row: the last of its raters to submit decides the inspection policy, and two
    # raters submitting at once must not both (or neither) see the item complete.
    with transaction.atomic():
        item, a, study = lock_assignment(assignment)
        ensure_live(a, item, study, now)
        revised = a.state == Assignment.State.RETURNED
        seconds = max(a.seconds_spent, seconds_spent)
        Rating.objects.bulk_create(
            Rating(
                assignment=a, task=f.task, field_key=f.key, criterion=f.criterion, mcq=f.mcq, round=a.round,
                label=pair_label_to_canonical(cleaned[f.id]["label"], a.pair_order)
                if f.task.target == TaskTarget.PAIRWISE else cleaned[f.id]["label"],
                comment=cleaned[f.id]["comment"], seconds_spent=cleaned[f.id].get("seconds", seconds),
                text_version=text_version,
            )
            for f in fields
        )
        a.state = Assignment.State.REVISED if revised else Assignment.State.SUBMITTED
        a.submitted_at = now
        a.draft = {}
        a.lease_expires_at = None
        a.seconds_spent = seconds
        a.save(update_fields=["state", "submitted_at", "draft", "lease_expires_at", "seconds_spent"])
        ReviewEvent.objects.record(
            item=item, assignment=a, actor=rater,
            kind=ReviewEvent.Kind.REVISED if revised else ReviewEvent.Kind.SUBMITTED,
            data={"round": a.round, "seconds": seconds},
        )
        apply_policy(item, study, fields, revised=revised)
        if item.status == Item.Status.CALIBRATION:
            admit_if_threshold_met(assignment=a, rater=rater)
    return a
