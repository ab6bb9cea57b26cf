"""A rater's corrections after submitting: edit a submitted item until its inspection starts, undo
the last submit, and stop for the day (release a claim that holds no draft).

Why ratings are changed in place here, when the rest of the review writes new rows: before
inspection no one has acted on the labels yet, and the first-round label the agreement reports use
is the rater's last one before inspection (issue 11). Every change is a `ReviewEvent` (EDITED) that
holds the previous and the new label of each changed field, so the audit trail keeps every value
the rating ever had; after an inspector has acted, changes are new rounds as before.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.access import check_can_write_assignment
from annotation.fields import item_fields
from annotation.labels import clean_entries, pair_label_to_canonical
from annotation.locks import lock_assignment
from annotation.models import Assignment, Item, Rating, ReviewEvent, Study, TaskTarget, field_id
from medreview.errors import ConflictError

User = AbstractBaseUser


def edit_blocker(assignment: Assignment, *, now: datetime | None = None) -> str:
    """Why the rater can no longer change this submitted item, in their words ("" when they can).

    The edit window (issue 21, issue 22 finding 2): a rater may change round 1 only while the item
    is still "open" (collecting ratings). Once it has left "open" (in an inspector's queue, returned
    to someone, decided) the inspector is judging exactly the labels stored at that moment, and the
    agreement reports read them as round 1, so nobody may change them. No query;
    `assignment.item.study` should be loaded.
    """
    now = now or timezone.now()
    item = assignment.item
    study = item.study
    if assignment.state != Assignment.State.SUBMITTED or assignment.round != 1:
        return _("Only a submitted item can be edited; after an inspector returns it, revise it instead.")
    if item.status == Item.Status.CALIBRATION:
        return _("Calibration answers are final.")
    if item.status == Item.Status.INSPECTION:
        return _("This item is in an inspector's queue, so your labels can no longer be changed.")
    if item.status != Item.Status.OPEN:  # returned to a rater, or decided
        return _("An inspector has started on this item or it has been decided, so your labels can no "
                 "longer be changed.")
    if study.status != Study.Status.RUNNING:
        return _("The study is not running, so your labels can no longer be changed.")
    window = study.edit_window_minutes
    if window is not None and assignment.submitted_at and assignment.submitted_at + timedelta(minutes=window) <= now:
        return ngettext(
            "The study's edit window (%(count)d minute after submitting) has closed.",
            "The study's edit window (%(count)d minutes after submitting) has closed.", window,
        ) % {"count": window}
    return ""


def _stored_label(field_target: str, label: str, pair_order: str) -> str:
    return pair_label_to_canonical(label, pair_order) if field_target == TaskTarget.PAIRWISE else label


def rating_edit(
    *, assignment: Assignment, rater: User, labels: dict[str, dict], seconds_spent: int = 0,
    now: datetime | None = None,
) -> Assignment:
    """Change the labels of the rater's own submitted item before its inspection starts.

    Every field needs a label, as at submission. Only changed fields are written; the EDITED event
    holds each change (from, to). Raises ConflictError (409) when the item can no longer be edited.
    """
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    fields = item_fields(assignment.item)
    cleaned = clean_entries(labels, fields, require_all=True)
    # Locks the item, then the assignment (the order every service uses): an inspector acting on
    # the item at the same moment either sees the edit or makes it impossible, never half of it.
    with transaction.atomic():
        item, a, _study = lock_assignment(assignment)
        if blocker := edit_blocker(a, now=now):
            raise ConflictError(blocker)
        current = {
            field_id(r.task.slug, r.field_key): r
            for r in Rating.objects.filter(assignment=a, round=a.round).select_related("task")
        }
        changes: dict[str, dict[str, str]] = {}
        for f in fields:
            rating = current.get(f.id)
            entry = cleaned[f.id]
            label = _stored_label(f.task.target, entry["label"], a.pair_order)
            if rating is None or (rating.label == label and rating.comment == entry["comment"]):
                continue
            changes[f.id] = {"from": rating.label, "to": label}
            if rating.comment != entry["comment"]:
                changes[f.id]["comment_from"] = rating.comment
            rating.label, rating.comment = label, entry["comment"]
            rating.save(update_fields=["label", "comment"])
        a.draft = {}  # the edit in progress (`assignment_save_edit_draft`) is now the rating
        a.seconds_spent = max(a.seconds_spent, seconds_spent)
        a.save(update_fields=["draft", "seconds_spent"])
        if changes:
            ReviewEvent.objects.record(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.EDITED,
                                       data={"round": a.round, "changes": changes})
    return a


def assignment_save_edit_draft(
    *, assignment: Assignment, rater: User, draft: dict[str, dict], now: datetime | None = None,
) -> Assignment:
    """Keep an edit in progress of a submitted item (merged, like a draft) until "Save changes", so
    a reload or a lost connection loses none of it. The ratings are not touched."""
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    cleaned = clean_entries(draft, item_fields(assignment.item), require_all=False)
    # Locks the item, then the assignment, as `rating_edit` does.
    with transaction.atomic():
        _item, a, _study = lock_assignment(assignment)
        if blocker := edit_blocker(a, now=now):
            raise ConflictError(blocker)
        a.draft = {**(a.draft or {}), **cleaned}
        a.draft_saved_at = now
        a.save(update_fields=["draft", "draft_saved_at"])
    return a


def last_editable_submission(*, study: Study, rater: User, now: datetime | None = None) -> Assignment | None:
    """The rater's most recent submission in `study` they may still change (the `u` undo), or None."""
    last = (
        Assignment.objects.filter(item__study=study, rater=rater, state=Assignment.State.SUBMITTED, round=1)
        # The undo bar names the item by its title (case id), read from the revision's case.
        .select_related("item", "item__study", "item__revision__case")
        # A submission always has its time; ordered as the rater's latest work is indexed
        # (assignment_rater_latest_idx), so this reads the rater's newest entries, not all of them.
        .latest_work_first()
        .first()
    )
    if last is None or edit_blocker(last, now=now):
        return None
    return last


def assignment_release(*, assignment: Assignment, rater: User, now: datetime | None = None) -> bool:
    """Stop for the day: give back a claim that holds no draft (True); a draft keeps its claim (False).

    A released item goes back to the pool; the rater may be offered it again.
    """
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    # Locks the item: releasing frees a slot that concurrent claims count.
    with transaction.atomic():
        item, a, _study = lock_assignment(assignment)
        if a.state != Assignment.State.CLAIMED or a.draft:
            return False
        a.state = Assignment.State.EXPIRED
        a.lease_expires_at = None
        a.save(update_fields=["state", "lease_expires_at"])
        ReviewEvent.objects.record(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.RELEASED,
                                   reason="Stopped for the day")
    return True
