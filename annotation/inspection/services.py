"""Inspection: accept, adjudicate, return (the Annotation -> Inspection loop); final labels.

The policy that sends an item here after its raters submit is the rating workflow's
(`annotation.rating.services.policy.apply_policy`).
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction

from annotation.access import check_can_decide_item
from annotation.fields import field_titles, item_fields
from annotation.labels import (
    clean_entries,
    labels_by_field,
    pair_label_as_shown,
    rated_assignments,
    write_final_labels,
)
from annotation.locks import lock_item_in
from annotation.models import Assignment, FinalLabel, Inspection, Item, ReviewEvent, TaskTarget

User = AbstractBaseUser


def inspection_accept(*, item: Item, inspector: User, comment: str = "") -> Inspection:
    """Accept the raters' labels when they agree on every field; they become the final labels."""
    check_can_decide_item(inspector, item)
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION,))
        fields = item_fields(item)
        finished = [a for a in rated_assignments(item) if a.state != Assignment.State.RETURNED]
        latest = labels_by_field(finished, round_="latest")
        agreed: dict[str, str] = {}
        disagreeing = []
        for f in fields:
            values = {r.label for r in latest.get(f.id, {}).values()}
            if len(values) == 1:
                agreed[f.id] = values.pop()
            else:
                disagreeing.append(f.label[:60])
        if disagreeing:
            raise ValidationError({"labels": "labels: the raters disagree on " + "; ".join(disagreeing)
                                   + ". Set the final labels (adjudicate) or return the item to an annotator."})
        inspection = Inspection.objects.create(item=item, inspector=inspector, action=Inspection.Action.ACCEPT,
                                               comment=comment.strip())
        write_final_labels(item, fields, agreed, source=FinalLabel.Source.ACCEPTED, inspection=inspection,
                            decided_by=inspector, reason=comment.strip())
        item.status = Item.Status.RESOLVED
        item.save(update_fields=["status"])
        ReviewEvent.objects.record(item=item, actor=inspector, kind=ReviewEvent.Kind.ACCEPTED, reason=comment.strip())
    return inspection


def inspection_adjudicate(*, item: Item, inspector: User, labels: dict[str, str], reason: str) -> Inspection:
    """Set the final label of every field, with a reason."""
    check_can_decide_item(inspector, item)
    if not reason or not reason.strip():
        raise ValidationError({"reason": "reason: say why you set these final labels."})
    fields = item_fields(item)
    cleaned = clean_entries(
        {fid: {"label": v} if isinstance(v, str) else v for fid, v in (labels or {}).items()}
        if isinstance(labels, dict) else labels,
        fields, require_all=False,
    )
    missing = [f.id for f in fields if not cleaned.get(f.id, {}).get("label")]
    if missing:
        titles = field_titles(fields)
        raise ValidationError({fid: f"{titles[fid]}: a final label is required." for fid in missing})
    final = {fid: e["label"] for fid, e in cleaned.items()}
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION,))
        inspection = Inspection.objects.create(item=item, inspector=inspector,
                                               action=Inspection.Action.ADJUDICATE, comment=reason.strip())
        write_final_labels(item, fields, final, source=FinalLabel.Source.ADJUDICATED, inspection=inspection,
                            decided_by=inspector, reason=reason.strip())
        item.status = Item.Status.RESOLVED
        item.save(update_fields=["status"])
        ReviewEvent.objects.record(item=item, actor=inspector, kind=ReviewEvent.Kind.ADJUDICATED,
                                   reason=reason.strip(), data={"labels": final})
    return inspection


def _returned_draft(a: Assignment) -> dict[str, dict[str, str]]:
    """The returned assignment's draft: its latest labels as the rater saw them, so they revise, not retype."""
    latest = labels_by_field([a], round_="latest")
    return {
        fid: {
            "label": pair_label_as_shown(by_a[a.pk].label, a.pair_order)
            if by_a[a.pk].task.target == TaskTarget.PAIRWISE else by_a[a.pk].label,
            "comment": by_a[a.pk].comment,
        }
        for fid, by_a in latest.items()
    }


def inspection_return(
    *, item: Item, inspector: User, assignment: Assignment, comment: str, fields: list[str] | None = None,
) -> Inspection:
    """Send one rater's work back for revision; their draft starts from their latest labels.

    `fields`: Field ids the annotator should look at; their rating screen marks them.
    """
    check_can_decide_item(inspector, item)
    if not comment or not comment.strip():
        raise ValidationError({"comment": "comment: tell the annotator what to revise."})
    if assignment.item_id != item.pk:
        raise ValidationError({"assignment": "assignment: it does not belong to this item."})
    known = {f.id for f in item_fields(item)}
    marked = [fid for fid in (fields or []) if fid in known]
    # Locks the item, then the assignment, like the rater's services.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION, Item.Status.RETURNED))
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.state not in Assignment.FINISHED_STATES:
            raise ValidationError({"assignment": "assignment: only submitted or revised work can be returned."})
        a.draft = _returned_draft(a)
        a.state = Assignment.State.RETURNED
        a.round += 1
        a.draft_saved_at = None
        a.seconds_spent = 0
        a.save(update_fields=["draft", "state", "round", "draft_saved_at", "seconds_spent"])
        inspection = Inspection.objects.create(item=item, inspector=inspector, action=Inspection.Action.RETURN,
                                               comment=comment.strip(), returned_to=a)
        item.status = Item.Status.RETURNED
        item.save(update_fields=["status"])
        ReviewEvent.objects.record(item=item, assignment=a, actor=inspector, kind=ReviewEvent.Kind.RETURNED,
                                   reason=comment.strip(), data={"round": a.round, "fields": marked})
    return inspection
