"""Calibration items and admission (issue 11; Potato's gold items, Label Studio's ground truth).

A study may hold calibration items (status CALIBRATION) with known answers (`Item.expected`:
{field id: {"label", "explanation"}}). A rater not yet admitted (`StudyMember.admitted_at` empty)
is given the calibration items first, one assignment each in round 0, outside the item's slots;
after each they see the expected answer and its explanation. When they have done all of them an
admin admits them, or the study's `calibration_threshold` (share of matching labels) does it at
once. Round 0 never enters agreement statistics (they read round 1), and calibration items are
never inspected (the inspection policy only acts on open items).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone
from django.utils.translation import gettext

from annotation.access import check_can_manage_studies, check_can_write_assignment
from annotation.fields import item_fields
from annotation.labels import clean_entries
from annotation.models import Assignment, Item, Rating, ReviewEvent, Study, StudyMember, field_id
from medreview.errors import ConflictError

User = AbstractBaseUser
CALIBRATION_ROUND = 0


@dataclass
class CalibrationScore:
    items_done: int
    items_total: int
    matched: int
    fields: int

    @property
    def share(self) -> float | None:
        return self.matched / self.fields if self.fields else None

    @property
    def complete(self) -> bool:
        return self.items_total > 0 and self.items_done >= self.items_total


def calibration_mark(*, item: Item, actor: User, expected: dict[str, Any]) -> Item:
    """Make `item` a calibration item with these expected answers ({field id: {label, explanation}}).

    Every field needs an expected label on its scale. Items someone already rated cannot become
    calibration items (their ratings would count twice).
    """
    check_can_manage_studies(actor, gettext("Only admins choose calibration items."))
    fields = item_fields(item)
    entries = {
        fid: {"label": (e or {}).get("label", ""), "comment": (e or {}).get("explanation", "")}
        if isinstance(e, dict) else e
        for fid, e in (expected or {}).items()
    } if isinstance(expected, dict) else expected
    cleaned = clean_entries(entries, fields, require_all=False)
    missing = [f.id for f in fields if not cleaned.get(f.id, {}).get("label")]
    if missing:
        raise ValidationError({fid: gettext("%(field)s: an expected label is required.") % {"field": fid} for fid in missing})
    # Locks the item: a claim must not give it out as an ordinary item while it becomes a calibration one.
    with transaction.atomic():
        locked = Item.objects.select_for_update().get(pk=item.pk)
        if locked.status not in (Item.Status.OPEN, Item.Status.CALIBRATION):
            raise ConflictError(gettext("Only an open item can become a calibration item."))
        if locked.status == Item.Status.OPEN and locked.assignments.exists():
            raise ConflictError(gettext("This item has been given to raters; choose one nobody has rated."))
        locked.status = Item.Status.CALIBRATION
        locked.expected = {fid: {"label": e["label"], "explanation": e["comment"]} for fid, e in cleaned.items()}
        locked.save(update_fields=["status", "expected"])
    return locked


def calibration_set_threshold(*, study: Study, actor: User, threshold: float | None) -> Study:
    """The share of matching calibration labels that admits a rater at once (None: an admin admits).
    Raters already admitted stay admitted; the others are measured against it at their next submission."""
    check_can_manage_studies(actor, gettext("Only admins choose calibration items."))
    if threshold is not None and not 0 <= threshold <= 1:
        raise ValidationError({"calibration_threshold": "calibration_threshold: a share between 0 and 1."})
    # One row, written with a plain update: nothing else reads and writes it in the same step.
    Study.objects.filter(pk=study.pk).update(calibration_threshold=threshold)
    study.calibration_threshold = threshold
    return study


def calibration_candidates(study: Study) -> list[Item]:
    """Items that can become calibration items: open and given to nobody yet (`calibration_mark`)."""
    return list(
        study.items.filter(status=Item.Status.OPEN).exclude(Exists(Assignment.objects.filter(item_id=OuterRef("pk"))))
        .select_related("revision__case").order_by("pk")
    )


def calibration_import(*, study: Study, actor: User, rows: list[dict[str, Any]]) -> int:
    """Mark items by key: rows of {"item": "<item key>", "expected": {field id: {label, explanation}}}."""
    check_can_manage_studies(actor, gettext("Only admins choose calibration items."))
    if not isinstance(rows, list):
        raise ValidationError({"rows": gettext("rows: expected a list of {item, expected}.")})
    items = {i.key: i for i in study.items.select_related("study")}
    # One transaction (savepoints inside): a file marks all its items or none.
    with transaction.atomic():
        for n, row in enumerate(rows, start=1):
            if not isinstance(row, dict):
                raise ValidationError({"rows": f'row {n}: expected an object {{"item": ..., "expected": {{...}}}}.'})
            item = items.get(str(row.get("item", "")))
            if item is None:
                raise ValidationError({"rows": gettext("row %(n)s: no item %(item)r in this study.") % {"n": n, "item": row.get("item")}})
            calibration_mark(item=item, actor=actor, expected=row.get("expected") or {})
    return len(rows)


def calibration_pending_q() -> Q:
    """On a StudyMember query: a member not yet admitted to a study that holds calibration items
    (the claim reads it with the rater's membership, in the same query)."""
    calibration = Item.objects.filter(study_id=OuterRef("study_id"), status=Item.Status.CALIBRATION)
    return Q(admitted_at__isnull=True) & Q(Exists(calibration))


def calibration_pending(study: Study, rater: User) -> bool:
    """Whether the rater must (still) go through calibration before the main queue (1 query)."""
    return StudyMember.objects.filter(
        study=study, user=rater, role=StudyMember.Role.RATER,
    ).filter(calibration_pending_q()).exists()


def calibration_claim_next(*, study: Study, rater: User, now: datetime | None = None) -> Assignment | None:
    """The rater's unfinished calibration item, else the next one they have not done, else None."""
    now = now or timezone.now()
    lease = now + timedelta(minutes=study.lease_minutes)
    # Locks the rater's membership row, as the main queue does: one rater's two tabs claim one at a time.
    with transaction.atomic():
        StudyMember.objects.select_for_update().filter(study=study, user=rater, role=StudyMember.Role.RATER).first()
        mine = list(Assignment.objects.filter(item__study=study, item__status=Item.Status.CALIBRATION, rater=rater))
        unfinished = next((a for a in mine if a.state not in Assignment.FINISHED_STATES), None)
        if unfinished is not None:
            unfinished.state = Assignment.State.DRAFT if unfinished.draft else Assignment.State.CLAIMED
            unfinished.lease_expires_at = lease
            unfinished.save(update_fields=["state", "lease_expires_at"])
            return unfinished
        item = (
            study.items.filter(status=Item.Status.CALIBRATION).exclude(pk__in=[a.item_id for a in mine])
            .order_by("pk").first()
        )
        if item is None:
            return None
        assignment = Assignment.objects.create(
            item=item, rater=rater, state=Assignment.State.CLAIMED, lease_expires_at=lease, round=CALIBRATION_ROUND,
        )
        ReviewEvent.objects.record(item=item, assignment=assignment, actor=rater, kind=ReviewEvent.Kind.CLAIMED,
                                   data={"calibration": True, "lease_expires_at": lease.isoformat()})
    return assignment


def calibration_scores(study: Study) -> dict[int, CalibrationScore]:
    """{rater id: score} over the study's calibration items: labels matching the expected ones (3 queries)."""
    items = {i.pk: i.expected or {} for i in study.items.filter(status=Item.Status.CALIBRATION)}
    raters = StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).values_list("user_id", flat=True)
    scores = {r: CalibrationScore(items_done=0, items_total=len(items), matched=0, fields=0) for r in raters}
    done = Assignment.objects.filter(item_id__in=list(items), state__in=Assignment.FINISHED_STATES)
    for rater_id in done.values_list("rater_id", flat=True):
        if rater_id in scores:
            scores[rater_id].items_done += 1
    ratings = Rating.objects.filter(assignment__in=done, round=CALIBRATION_ROUND).values_list(
        "assignment__rater_id", "assignment__item_id", "task__slug", "field_key", "label")
    for rater_id, item_id, slug, key, label in ratings:
        expected = items[item_id].get(field_id(slug, key))
        if rater_id in scores and expected:
            scores[rater_id].fields += 1
            scores[rater_id].matched += int(expected.get("label") == label)
    return scores


def rater_admit(*, study: Study, rater: User, actor: User | None, reason: str = "") -> StudyMember:
    """Let a rater into the study's main queue (an admin; `actor` None: the study's threshold)."""
    if actor is not None:
        check_can_manage_studies(actor, gettext("Only admins admit raters."))
    # Locks the membership row, which the rater's claims also lock.
    with transaction.atomic():
        membership = (
            StudyMember.objects.select_for_update().filter(study=study, user=rater, role=StudyMember.Role.RATER).first()
        )
        if membership is None:
            raise ValidationError({"rater": "rater: not a rater of this study."})
        if membership.admitted_at is None:
            membership.admitted_at = timezone.now()
            membership.save(update_fields=["admitted_at"])
            ReviewEvent.objects.record(study=study, actor=actor, kind=ReviewEvent.Kind.ADMITTED,
                                       reason=reason or "Admitted by an admin",
                                       data={"rater": rater.pk})
    return membership


def admit_if_threshold_met(*, assignment: Assignment, rater: User) -> bool:
    """After a calibration submission: admit the rater when they have done every calibration item
    and the study has a threshold they meet. Call inside the submit's transaction."""
    check_can_write_assignment(rater, assignment)
    study = assignment.item.study
    if study.calibration_threshold is None:
        return False
    score = calibration_scores(study).get(rater.pk)
    if score is None or not score.complete or score.share is None or score.share < study.calibration_threshold:
        return False
    rater_admit(study=study, rater=rater, actor=None,
                reason=f"Calibration {score.matched}/{score.fields} met the study's threshold "
                       f"{study.calibration_threshold:.0%}")
    return True
