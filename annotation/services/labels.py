"""Labels as raters send them, checked against each field's scale (drafts, submissions, adjudication)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError

from annotation.pairwise import pair_label_as_shown, pair_label_to_canonical
from annotation.selectors import Field

__all__ = ["clean_entries", "pair_label_as_shown", "pair_label_to_canonical"]


def _clean_entry(fid: str, raw: Any, field: Field | None) -> dict[str, Any]:
    """One {label, comment[, seconds]} entry checked against its field; ValueError names the problem."""
    if field is None:
        raise ValueError(f"{fid}: no such field on this item.")
    entry = {"label": raw} if isinstance(raw, str) else raw
    if not isinstance(entry, dict):
        raise ValueError(f"{fid}: expected {{'label': ..., 'comment': ...}}.")
    label = entry.get("label") or ""
    comment = entry.get("comment") or ""
    if not isinstance(label, str) or not isinstance(comment, str):
        raise ValueError(f"{fid}: label and comment must be text.")
    if label and field.category(label) is None:
        raise ValueError(f"{fid} ({field.label[:60]}): {label!r} is not on the scale {field.values}.")
    out: dict[str, Any] = {"label": label, "comment": comment.strip()}
    seconds = entry.get("seconds")
    if isinstance(seconds, int) and seconds >= 0:
        out["seconds"] = seconds
    return out


def _completeness_error(field: Field, entry: dict[str, Any] | None) -> str | None:
    """Why a submission's entry for `field` is incomplete: no label, or a required explanation missing."""
    if not entry or not entry["label"]:
        return f"{field.id} ({field.label[:60]}): a label is required."
    category = field.category(entry["label"])
    if field.task.requires_explanation and category is not None and not category.approves and not entry["comment"]:
        return f"{field.id} ({field.label[:60]}): explain why you answered {category.label!r}."
    return None


def clean_entries(entries: dict[str, Any], fields: list[Field], *, require_all: bool) -> dict[str, dict[str, Any]]:
    """Check labels against each field's scale; errors name the field. Returns {field id: entry}."""
    if not isinstance(entries, dict):
        raise ValidationError({"labels": "labels: expected an object mapping field ids to labels."})
    by_id = {f.id: f for f in fields}
    errors: dict[str, str] = {}
    cleaned: dict[str, dict[str, Any]] = {}
    for fid, raw in entries.items():
        try:
            cleaned[fid] = _clean_entry(fid, raw, by_id.get(fid))
        except ValueError as exc:
            errors[fid] = str(exc)
    if require_all:
        for f in fields:
            if f.id not in errors and (problem := _completeness_error(f, cleaned.get(f.id))):
                errors[f.id] = problem
    if errors:
        raise ValidationError(errors)
    return cleaned
