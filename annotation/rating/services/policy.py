"""After a rater's submission: send the item to inspection, resolve it by consensus, or leave it
open (the study's inspection policy). Called by `rating_submit` while it holds the item lock.
"""

from __future__ import annotations

from annotation.fields import Field
from annotation.labels import labels_by_field, rated_assignments, write_final_labels
from annotation.models import Assignment, FinalLabel, Item, ReviewEvent, Study


def _inspection_reasons(item: Item, study: Study, differing: list[str]) -> list[str]:
    why = []
    if study.inspect_all:
        why.append("inspect_all")
    if differing and study.inspect_disagreements:
        why.append("disagreement")
    if item.sampled_for_inspection:
        why.append("sampled")
    return why


def apply_policy(item: Item, study: Study, fields: list[Field], *, revised: bool) -> None:
    """After a submission: send the item to inspection, resolve it by consensus, or leave it open.

    Caller holds the item lock (`rating_submit`).
    """
    if revised:
        if item.status == Item.Status.RETURNED and not item.assignments.filter(state=Assignment.State.RETURNED).exists():
            item.status = Item.Status.INSPECTION
            item.save(update_fields=["status"])
            ReviewEvent.objects.record(item=item, actor=None, kind=ReviewEvent.Kind.SENT_TO_INSPECTION,
                                       reason="Revision submitted", data={"why": "revised"})
        return
    if item.status != Item.Status.OPEN:
        return
    finished = rated_assignments(item)
    if len(finished) < study.raters_per_item:
        return
    first = labels_by_field(finished, round_="first")
    differing = [f.id for f in fields if len({r.label for r in first.get(f.id, {}).values()}) > 1]
    why = _inspection_reasons(item, study, differing)
    if why:
        item.status = Item.Status.INSPECTION
        item.save(update_fields=["status"])
        ReviewEvent.objects.record(item=item, actor=None, kind=ReviewEvent.Kind.SENT_TO_INSPECTION,
                                   reason=", ".join(why), data={"why": why, "differing_fields": differing})
        return
    agreed = {
        f.id: next(iter(labels)).label
        for f in fields
        if (labels := first.get(f.id, {}).values()) and len({r.label for r in labels}) == 1
    }
    write_final_labels(item, fields, agreed, source=FinalLabel.Source.CONSENSUS, inspection=None,
                        decided_by=None, reason="Raters agreed")
    item.status = Item.Status.RESOLVED
    item.save(update_fields=["status"])
    ReviewEvent.objects.record(item=item, actor=None, kind=ReviewEvent.Kind.RESOLVED,
                               reason="Raters agreed; not selected for inspection",
                               data={"unresolved_fields": differing})
