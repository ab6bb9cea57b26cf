"""The summary an inspector confirms before a decision is stored: per field, the raters' labels ->
the final label, and the reason (or, for a return, the annotator, the fields to look at and the
comment).

It is built from the same plans the services write (`services.accept_plan`, `adjudication_plan`,
`set_rejection_plan`, `return_plan`), so what it shows is what will be stored. Its `digest` covers
everything shown; the confirmation carries it back and is refused when the summary the server would
show now differs (the form was changed, or the item changed meanwhile): nothing is stored that the
inspector did not see.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.translation import gettext as _

from annotation.access import check_can_decide_item
from annotation.fields import Field, field_titles, item_fields
from annotation.inspection.display import PairModels, label_text, pair_models
from annotation.inspection.selectors import InspectionView, inspection_view
from annotation.inspection.services import accept_plan, adjudication_plan, return_plan, set_rejection_plan
from annotation.models import Assignment, Item

ACTIONS = ("accept", "adjudicate", "reject_set", "return")


@dataclass(frozen=True)
class SummaryRow:
    field_id: str
    title: str
    raters: list[tuple[str, str]]  # (rater, their latest label as the inspector reads it)
    final: str  # the final label that will be stored, as read ("" for a return)
    final_value: str  # the stored value
    reason: str
    marked: bool = False  # a return: the annotator is asked to look at this field

    @property
    def changes_a_rater(self) -> bool:
        """The final label differs from at least one rater's latest label."""
        return bool(self.final) and any(label != self.final for _, label in self.raters)


@dataclass(frozen=True)
class DecisionSummary:
    action: str
    rows: list[SummaryRow]
    reason: str  # the accept comment, adjudication reason, set reason or return comment
    returned_to: str = ""  # a return: the annotator
    assignment: int | None = None
    posted: list[tuple[str, str]] = field(default_factory=list)  # the form to post again on confirmation

    @property
    def digest(self) -> str:
        shown = {
            "action": self.action, "reason": self.reason, "returned_to": self.assignment,
            "rows": [[r.field_id, r.raters, r.final_value, r.marked] for r in self.rows],
        }
        return hashlib.sha256(json.dumps(shown, sort_keys=True, ensure_ascii=False).encode()).hexdigest()

    @property
    def stores_final_labels(self) -> bool:
        return self.action != "return"


def _posted(data: QueryDict, fields: list[Field]) -> list[tuple[str, str]]:
    """The inputs a confirmation posts again (only those the decision reads)."""
    keys = ["action", "comment", "reason", "set_reason", "assignment"]
    keys += [f"final:{f.id}" for f in fields]
    pairs = [(key, data.get(key, "")) for key in keys if data.get(key, "") != ""]
    return pairs + [("fields", value) for value in data.getlist("fields")]


def _rater_labels(view: InspectionView, pair: PairModels | None) -> dict[str, list[tuple[str, str]]]:
    return {
        c.field.id: [(cell.rater_name, label_text(c.field, cell.label, pair)) for cell in c.cells if cell.label]
        for c in view.fields
    }


def _finals(item: Item, action: str, data: QueryDict, fields: list[Field]) -> tuple[dict[str, str], str]:
    """(final labels, reason) of accept, adjudicate or reject_set, as the services will plan them."""
    if action == "accept":
        return accept_plan(item, fields), data.get("comment", "").strip()
    labels = {f.id: data.get(f"final:{f.id}", "").strip() for f in fields}
    labels = {key: value for key, value in labels.items() if value}
    if action == "reject_set":
        reason = data.get("set_reason", "").strip()
        return set_rejection_plan(item, fields, labels, reason), reason
    reason = data.get("reason", "").strip()
    return adjudication_plan(fields, labels, reason), reason


def _return_target(item: Item, data: QueryDict) -> Assignment:
    raw = data.get("assignment", "")
    target = item.assignments.select_related("rater").filter(pk=int(raw)).first() if raw.isdigit() else None
    if target is None:
        raise ValidationError({"assignment": _("Choose the annotator to return the item to.")})
    return target


def decision_summary(*, item: Item, inspector: AbstractBaseUser, data: QueryDict) -> DecisionSummary:
    """What the posted action would store; raises ValidationError (the page's errors) when it would be
    refused, PermissionDenied when this inspector may not decide the item."""
    action = data.get("action", "")
    if action not in ACTIONS:
        raise ValidationError({"action": _("Unknown action.")})
    check_can_decide_item(inspector, item)
    view = inspection_view(item=item)
    fields = [c.field for c in view.fields] or item_fields(item)
    titles = field_titles(fields)
    pair = pair_models(item)
    raters = _rater_labels(view, pair)
    by_id = {f.id: f for f in fields}
    if action == "return":
        target = _return_target(item, data)
        comment = data.get("comment", "").strip()
        marked = return_plan(item, fields, target, comment, data.getlist("fields"))
        rows = [SummaryRow(f.id, titles[f.id], raters.get(f.id, []), "", "", comment, f.id in marked) for f in fields]
        return DecisionSummary(action=action, rows=rows, reason=comment, assignment=target.pk,
                               returned_to=target.rater.get_full_name() or target.rater.get_username(),
                               posted=_posted(data, fields))
    finals, reason = _finals(item, action, data, fields)
    rows = [
        SummaryRow(fid, titles[fid], raters.get(fid, []), label_text(by_id[fid], value, pair), value, reason)
        for fid, value in ((f.id, finals[f.id]) for f in fields if f.id in finals)
    ]
    return DecisionSummary(action=action, rows=rows, reason=reason, posted=_posted(data, fields))


def summary_context(summary: DecisionSummary) -> dict[str, Any]:
    """Template variables of the confirmation page beside the summary itself."""
    return {"summary": summary, "changed_rows": sum(1 for r in summary.rows if r.changes_a_rater)}
