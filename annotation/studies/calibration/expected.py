"""The expected answers of a calibration item entered on a rating-like form (issue 24): one row per
field with its scale's categories to pick and an explanation, never JSON or internal field keys.
Rows are numbered on the page; the field ids stay on the server."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from annotation.fields import Field, field_titles, item_fields
from annotation.models import Item


@dataclass
class ExpectedRow:
    index: int
    field_id: str
    title: str
    text: str
    choices: list[tuple[str, str, str]]  # value, label, description
    label: str = ""
    explanation: str = ""
    errors: list[str] = field(default_factory=list)


def expected_rows(item: Item, *, posted: Mapping[str, Any] | None = None,
                  errors: Mapping[str, list[str]] | None = None) -> list[ExpectedRow]:
    """The form's rows: what was posted (kept after a refusal), else the item's stored expected answers."""
    fields = item_fields(item)
    titles = field_titles(fields)
    stored = item.expected or {}
    rows = []
    for n, f in enumerate(fields):
        given = ({"label": posted.get(f"label-{n}", ""), "explanation": posted.get(f"explanation-{n}", "")}
                 if posted is not None else stored.get(f.id, {}))
        rows.append(ExpectedRow(
            index=n, field_id=f.id, title=titles[f.id], text=_text(f),
            choices=[(c.value, c.shown_label, c.shown_description) for c in f.categories],
            label=str(given.get("label") or ""), explanation=str(given.get("explanation") or ""),
            errors=list((errors or {}).get(f.id, [])),
        ))
    return rows


def _text(f: Field) -> str:
    return f.label if f.key else ""


def expected_from_post(item: Item, posted: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """{field id: {label, explanation}} from the numbered rows of the form."""
    return {
        f.id: {"label": str(posted.get(f"label-{n}", "")).strip(),
               "explanation": str(posted.get(f"explanation-{n}", "")).strip()}
        for n, f in enumerate(item_fields(item))
    }
