"""Inspection: accept, adjudicate, reject a question set, return (the Annotation -> Inspection loop);
final labels; sending a decided item back to inspection.

Each decision is planned before anything is written (`accept_plan`, `adjudication_plan`,
`return_plan`): the page's summary shows the plan, and the service recomputes the same plan under
the item lock and writes exactly it. The policy that sends an item here after its raters submit is
the rating workflow's (`annotation.rating.services.policy.apply_policy`).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from annotation.access import check_can_decide_item
from annotation.fields import Field, field_titles, item_fields
from annotation.labels import (
    clean_entries,
    labels_by_field,
    pair_label_as_shown,
    rated_assignments,
    write_final_labels,
)
from annotation.locks import lock_item_in
from annotation.models import Assignment, FinalLabel, Inspection, Item, ItemKind, ReviewEvent, TaskTarget

User = AbstractBaseUser


# --- plans: what a decision will store, computed and checked before anything is written ----------


def accept_plan(item: Item, fields: list[Field]) -> dict[str, str]:
    """{field id: the raters' agreed latest label}; refused when they disagree on any field."""
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
        raise ValidationError({"labels": _("labels: the raters disagree on %(fields)s. Set the final labels "
                                           "(adjudicate) or return the item to an annotator.")
                               % {"fields": _("; ").join(disagreeing)}})
    return agreed


def adjudication_plan(fields: list[Field], labels: dict[str, Any] | Any, reason: str) -> dict[str, str]:
    """{field id: final label}: a label on its field's scale for every field, and a reason."""
    if not reason or not reason.strip():
        raise ValidationError({"reason": _("reason: say why you set these final labels.")})
    cleaned = clean_entries(
        {fid: {"label": v} if isinstance(v, str) else v for fid, v in (labels or {}).items()}
        if isinstance(labels, dict) else labels,
        fields, require_all=False,
    )
    missing = [f.id for f in fields if not cleaned.get(f.id, {}).get("label")]
    if missing:
        titles = field_titles(fields)
        raise ValidationError({fid: _("%(title)s: a final label is required.") % {"title": titles[fid]}
                               for fid in missing})
    return {fid: e["label"] for fid, e in cleaned.items()}


def set_rejection_plan(item: Item, fields: list[Field], labels: dict[str, Any], reason: str) -> dict[str, str]:
    """A question set rejected as a whole: its per-field final labels, and the set's own reason."""
    if item.kind != ItemKind.QUESTION_SET:
        raise ValidationError({"action": _("action: only a question set can be rejected as a whole.")})
    if not reason or not reason.strip():
        raise ValidationError({"set_reason": _("set_reason: say why the whole set is rejected "
                                               "(e.g. wrong scenario, duplicate case).")})
    return adjudication_plan(fields, labels, reason)


def return_plan(item: Item, fields: list[Field], assignment: Assignment, comment: str,
                marked: list[str] | None) -> list[str]:
    """The fields the annotator is asked to look at (those of this item), once the return is checked."""
    if not comment or not comment.strip():
        raise ValidationError({"comment": _("comment: tell the annotator what to revise.")})
    if assignment.item_id != item.pk:
        raise ValidationError({"assignment": _("assignment: it does not belong to this item.")})
    if assignment.state not in Assignment.FINISHED_STATES:
        raise ValidationError({"assignment": _("assignment: only submitted or revised work can be returned.")})
    known = {f.id for f in fields}
    return [fid for fid in (marked or []) if fid in known]


# --- decisions -----------------------------------------------------------------------------------


def _resolve(item: Item, *, inspector: User, action: str, fields: list[Field], finals: dict[str, str],
             source: str, reason: str, event: str, data: dict[str, Any]) -> Inspection:
    """Write one decision that resolves the item (caller holds the item lock)."""
    inspection = Inspection.objects.create(item=item, inspector=inspector, action=action, comment=reason)
    write_final_labels(item, fields, finals, source=source, inspection=inspection, decided_by=inspector,
                       reason=reason)
    item.status = Item.Status.RESOLVED
    item.save(update_fields=["status"])
    ReviewEvent.objects.record(item=item, actor=inspector, kind=event, reason=reason, data=data)
    return inspection


def inspection_accept(*, item: Item, inspector: User, comment: str = "") -> Inspection:
    """Accept the raters' labels when they agree on every field; they become the final labels."""
    check_can_decide_item(inspector, item)
    # Locks the item so two inspectors cannot both resolve it; the plan is read under the lock.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION,))
        fields = item_fields(item)
        agreed = accept_plan(item, fields)
        return _resolve(item, inspector=inspector, action=Inspection.Action.ACCEPT, fields=fields, finals=agreed,
                        source=FinalLabel.Source.ACCEPTED, reason=comment.strip(), event=ReviewEvent.Kind.ACCEPTED,
                        data={"labels": agreed})


def inspection_adjudicate(*, item: Item, inspector: User, labels: dict[str, str], reason: str) -> Inspection:
    """Set the final label of every field, with a reason."""
    check_can_decide_item(inspector, item)
    fields = item_fields(item)
    final = adjudication_plan(fields, labels, reason)
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION,))
        return _resolve(item, inspector=inspector, action=Inspection.Action.ADJUDICATE, fields=fields, finals=final,
                        source=FinalLabel.Source.ADJUDICATED, reason=reason.strip(),
                        event=ReviewEvent.Kind.ADJUDICATED, data={"labels": final})


def inspection_reject_set(*, item: Item, inspector: User, labels: dict[str, str], reason: str) -> Inspection:
    """Reject a LiveClin question set as a whole (wrong scenario, duplicate case) with a reason; its
    per-field final labels are stored beside the rejection (LiveClin Sec. 3.4: conservatism)."""
    check_can_decide_item(inspector, item)
    fields = item_fields(item)
    final = set_rejection_plan(item, fields, labels, reason)
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION,))
        return _resolve(item, inspector=inspector, action=Inspection.Action.REJECT_SET, fields=fields,
                        finals=final, source=FinalLabel.Source.ADJUDICATED, reason=reason.strip(),
                        event=ReviewEvent.Kind.SET_REJECTED, data={"labels": final})


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
        raise ValidationError({"comment": _("comment: tell the annotator what to revise.")})
    all_fields = item_fields(item)
    # Locks the item, then the assignment, like the rater's services.
    with transaction.atomic():
        item = lock_item_in(item, (Item.Status.INSPECTION, Item.Status.RETURNED))
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        marked = return_plan(item, all_fields, a, comment, fields)
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


# --- back to inspection --------------------------------------------------------------------------


def requeue_in(item: Item, *, actor: User | None, why: str, reason: str, data: dict[str, Any]) -> None:
    """Send a resolved item back to inspection (caller's transaction). Its final labels are taken
    off, so nothing reads the old decision as standing; what stood is kept in the event's data."""
    item = lock_item_in(item, (Item.Status.RESOLVED,))
    previous = {
        f"{fl.task.slug}|{fl.field_key}": {"label": fl.label, "source": fl.source, "reason": fl.reason}
        for fl in FinalLabel.objects.filter(item=item).select_related("task").order_by("pk")
    }
    FinalLabel.objects.filter(item=item).delete()
    item.status = Item.Status.INSPECTION
    item.save(update_fields=["status"])
    ReviewEvent.objects.record(item=item, actor=actor, kind=ReviewEvent.Kind.SENT_TO_INSPECTION, reason=reason,
                               data={"why": [why], **data, "previous_final_labels": previous})
