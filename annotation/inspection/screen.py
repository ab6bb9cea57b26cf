"""The inspection page's context (every rater's labels side by side, differences, the proposed final
label, what the item's protocol adds) and its decisions as the inspector confirmed them.

A decision is two posts: the action (the page answers with `summary.decision_summary`, nothing
stored), then its confirmation carrying the summary's digest (`inspection_decide` stores it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.inspection.display import (
    PairModels,
    label_text,
    order_seen_text,
    pair_models,
    rater_choice_text,
)
from annotation.inspection.selectors import (
    Cell,
    FieldComparison,
    InspectionView,
    inspection_view,
    question_set_flagged,
)
from annotation.inspection.services import (
    inspection_accept,
    inspection_adjudicate,
    inspection_reject_set,
    inspection_return,
)
from annotation.inspection.summary import DecisionSummary
from annotation.models import Assignment, Item, ItemKind
from annotation.protocols import protocol_for
from annotation.rating.selectors import item_content_context
from medreview.errors import error_messages

# Translated when shown, in the inspector's language.
DONE = {
    "accept": gettext_noop("Accepted: the raters' labels stand as final labels."),
    "adjudicate": gettext_noop("Final labels set."),
    "reject_set": gettext_noop("Question set rejected; its final labels are set."),
    "return": gettext_noop("Returned to the annotator for revision."),
}


def inspection_decide(request: HttpRequest, item: Item, summary: DecisionSummary) -> list[str]:
    """Store the confirmed decision through its service (which checks it again under the item lock)."""
    finals = {row.field_id: row.final_value for row in summary.rows if row.final_value}
    try:
        if summary.action == "accept":
            inspection_accept(item=item, inspector=request.user, comment=summary.reason)
        elif summary.action == "adjudicate":
            inspection_adjudicate(item=item, inspector=request.user, labels=finals, reason=summary.reason)
        elif summary.action == "reject_set":
            inspection_reject_set(item=item, inspector=request.user, labels=finals, reason=summary.reason)
        else:
            target = item.assignments.get(pk=summary.assignment)
            inspection_return(item=item, inspector=request.user, assignment=target, comment=summary.reason,
                              fields=[row.field_id for row in summary.rows if row.marked])
    except ValidationError as exc:
        return error_messages(exc)
    messages.success(request, _(DONE[summary.action]))
    return []


@dataclass
class InspectionCell:
    cell: Cell
    label: str  # the rater's latest label as the inspector reads it ("prefers model-x" for pairs)
    first_label: str
    order_seen: str = ""  # pairs: "saw model-x first"


@dataclass
class InspectionRow:
    comparison: FieldComparison
    cells: list[InspectionCell]
    proposed: str  # preselected final label: the existing final label, else the agreed one
    choices: list[tuple[str, str]]  # (stored value, as the inspector reads it) of the final-label select
    phase: str = ""  # a protocol's phase the field belongs to (LiveClin: auditor, examinee)
    judge: Any = None  # the Judge's verdict on this field, when the protocol shows it

    final_text: str = ""  # the stored final label as the inspector reads it

    @property
    def field(self) -> Any:
        return self.comparison.field


def _inspection_rows(view: InspectionView, pair: PairModels | None, extras: dict[str, Any]) -> list[InspectionRow]:
    rows = []
    phase_of = extras.get("phase_of", {})
    judge = extras.get("judge_notes", {})
    for comparison in view.fields:
        field = comparison.field
        cells = [
            InspectionCell(
                cell=cell,
                label=rater_choice_text(field, cell.label, pair),
                first_label=rater_choice_text(field, cell.first.label if cell.first else None, pair),
                order_seen=order_seen_text(cell.assignment, pair) if pair is not None else "",
            )
            for cell in comparison.cells
        ]
        latest = {cell.label for cell in comparison.cells if cell.label}
        proposed = comparison.final.label if comparison.final else (latest.pop() if len(latest) == 1 else "")
        rows.append(InspectionRow(
            comparison=comparison, cells=cells, proposed=proposed,
            choices=[(c.value, label_text(field, c.value, pair)) for c in field.categories],
            phase=phase_of.get(field.id, ""), judge=judge.get(field.id),
            final_text=label_text(field, comparison.final.label, pair) if comparison.final else "",
        ))
    return rows


def _rated_by(view: InspectionView, user: Any) -> bool:
    return any(a.rater_id == user.pk for a in view.assignments)


def inspection_page_context(item: Item, errors: list[str], user: Any) -> dict[str, Any]:
    view = inspection_view(item=item)
    fields = [comparison.field for comparison in view.fields]
    returnable = [a for a in view.assignments if a.state in Assignment.FINISHED_STATES]
    pair = pair_models(item)
    extras = protocol_for(item).inspection_context(item, fields)
    rows = _inspection_rows(view, pair, extras)
    rated_by_me = _rated_by(view, user)
    return {
        "item": item,
        "study": item.study,
        "view": view,
        "rows": rows,
        "columns": len(view.assignments) + 2 + (1 if extras.get("judge_notes") else 0),
        "first_differing": next((r.field.id for r in rows if r.comparison.differs), rows[0].field.id if rows else ""),
        "returnable": returnable,
        "rated_by_me": rated_by_me,
        # Decisions only on an item awaiting inspection, never by an inspector who rated it (the
        # services refuse it too: the buttons would only lead to a refusal).
        "can_act": item.status == Item.Status.INSPECTION and not rated_by_me,
        # LiveClin: any MCQ check answered "no" flags the question set (docs/review.md).
        "flagged": item.kind == ItemKind.QUESTION_SET and question_set_flagged(item),
        "pair_models": pair,
        "pair_orders_differ": pair is not None and len({a.pair_order for a in view.assignments}) > 1,
        "errors": errors,
        **item_content_context(item, None, fields),
        **extras,
    }
