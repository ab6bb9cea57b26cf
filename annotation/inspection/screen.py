"""The inspection page's context (every rater's labels side by side, differences, the proposed
final label) and its actions (accept, adjudicate, return) as the inspector posted them.
"""

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest
from django.utils.translation import gettext as _

from annotation.fields import Field, item_fields
from annotation.inspection.selectors import (
    Cell,
    FieldComparison,
    InspectionView,
    inspection_view,
    question_set_flagged,
)
from annotation.inspection.services import inspection_accept, inspection_adjudicate, inspection_return
from annotation.models import Assignment, Item, ItemKind
from annotation.protocols import protocol_for
from annotation.rating.selectors import item_content_context
from medreview.errors import error_messages


def inspection_action(request: HttpRequest, item: Item) -> list[str]:
    action = request.POST.get("action", "")
    comment = request.POST.get("comment", "").strip()
    try:
        if action == "accept":
            inspection_accept(item=item, inspector=request.user, comment=comment)
            messages.success(request, _("Accepted: the raters' labels stand as final labels."))
        elif action == "adjudicate":
            fields = item_fields(item)
            labels = {f.id: request.POST.get(f"final:{f.id}", "").strip() for f in fields}
            labels = {key: value for key, value in labels.items() if value}
            reason = request.POST.get("reason", "").strip()
            inspection_adjudicate(item=item, inspector=request.user, labels=labels, reason=reason)
            messages.success(request, _("Final labels set."))
        elif action == "return":
            raw_pk = request.POST.get("assignment", "")
            target = item.assignments.filter(pk=int(raw_pk)).first() if raw_pk.isdigit() else None
            if target is None:
                return ["Choose the annotator to return the item to."]
            inspection_return(item=item, inspector=request.user, assignment=target, comment=comment,
                                       fields=request.POST.getlist("fields"))
            messages.success(request, _("Returned to the annotator for revision."))
        else:
            return ["Unknown action."]
    except ValidationError as exc:
        return error_messages(exc)
    return []


@dataclass
class InspectionCell:
    cell: Cell
    label: str
    first_label: str


@dataclass
class InspectionRow:
    comparison: FieldComparison
    cells: list[InspectionCell]
    proposed: str  # preselected final label: the existing final label, else the agreed one


def _category_label(field: Field, value: str | None) -> str:
    if not value:
        return ""
    category = field.category(value)
    return category.label if category is not None else value


def _inspection_rows(view: InspectionView) -> list[InspectionRow]:
    rows = []
    for comparison in view.fields:
        field = comparison.field
        cells = [
            InspectionCell(
                cell=cell,
                label=_category_label(field, cell.label),
                first_label=_category_label(field, cell.first.label if cell.first else None),
            )
            for cell in comparison.cells
        ]
        latest = {cell.label for cell in comparison.cells if cell.label}
        proposed = comparison.final.label if comparison.final else (latest.pop() if len(latest) == 1 else "")
        rows.append(InspectionRow(comparison=comparison, cells=cells, proposed=proposed))
    return rows


def inspection_page_context(item: Item, errors: list[str]) -> dict[str, Any]:
    view = inspection_view(item=item)
    fields = [comparison.field for comparison in view.fields]
    returnable = [a for a in view.assignments if a.state in Assignment.FINISHED_STATES]
    return {
        "item": item,
        "study": item.study,
        "view": view,
        "rows": _inspection_rows(view),
        "returnable": returnable,
        "can_act": item.status == Item.Status.INSPECTION,
        # LiveClin: any MCQ check answered "no" flags the question set (docs/review.md).
        "flagged": item.kind == ItemKind.QUESTION_SET and question_set_flagged(item),
        "errors": errors,
        **item_content_context(item, None, fields),
        **protocol_for(item).inspection_context(item),
    }
