"""The JSON bodies of a field and of an item as a rater may see it: the rater's API builds its
answers from them, and the inspector's API shows the item the same way.
"""

from __future__ import annotations

from typing import Any

from annotation.fields import Field
from annotation.models import Item
from annotation.protocols import protocol_for
from annotation.rating.selectors import item_content_for_rater


def criterion_body(c: Any) -> dict[str, Any]:
    return {"id": c.pk, "order": c.order, "text": c.text, "points": c.points, "axis": c.axis}


def field_body(f: Field) -> dict[str, Any]:
    return {
        "id": f.id, "task": f.task.slug, "task_name": f.task.name, "key": f.key, "label": f.label,
        "criterion": criterion_body(f.criterion) if f.criterion else None,
        "mcq_id": f.mcq.pk if f.mcq else None,
        "requires_explanation": f.task.requires_explanation,
        "shows_privileged_source": f.task.shows_privileged_source,
        "categories": [
            {"value": c.value, "label": c.label, "description": c.description, "shortcut": c.shortcut,
             "approves": c.approves}
            for c in f.categories
        ],
    }


def item_body(item: Item, fields: list[Field], *, pair_order: str) -> dict[str, Any]:
    """The blinded item content (`item_content_for_rater`) as JSON; a question set as its protocol
    shows it to these fields (LiveClin: the auditor or the examinee view)."""
    content = item_content_for_rater(item, fields, pair_order=pair_order)
    revision = content.revision
    body: dict[str, Any] = {
        "id": item.pk, "study": item.study_id, "kind": item.kind, "language": revision.language,
        "narrative": content.narrative,
        "core_request": revision.core_request,
        "doctor_advice": revision.doctor_advice,
        "conversation": revision.conversation,
        "criteria": [criterion_body(c) for c in content.criteria],
        "response": content.response.text if content.response else None,
        "responses": [],
        "question_set": None,
    }
    if content.pair:
        first, second = content.pair
        body["responses"] = [{"position": "A", "text": first.text}, {"position": "B", "text": second.text}]
    if content.question_set:
        body["question_set"] = protocol_for(item).content_body(item, privileged=content.privileged)
    return body
