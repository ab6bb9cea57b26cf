"""Labels as raters send them, checked against each field's scale (drafts, submissions, adjudication)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from annotation.field_names import choices_text, field_titles
from annotation.pairwise import pair_label_as_shown, pair_label_to_canonical
from annotation.selectors import Field

__all__ = ["MAX_SECONDS", "clean_entries", "pair_label_as_shown", "pair_label_to_canonical"]

# Time columns are PositiveIntegerField: PostgreSQL stores at most 2^31 - 1.
MAX_SECONDS = 2**31 - 1


def _clean_entry(fid: str, raw: Any, field: Field | None, title: str) -> dict[str, Any]:
    """One {label, comment[, seconds]} entry checked against its field; ValueError names the problem
    in the rater's words (`title`, e.g. "Question 2, factual check")."""
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
        raise ValueError(_("%(title)s: %(label)s is not on the scale; choose %(choices)s.")
                         % {"title": title, "label": repr(label), "choices": choices_text(field)})
    out: dict[str, Any] = {"label": label, "comment": comment.strip()}
    seconds = entry.get("seconds")
    if isinstance(seconds, int) and seconds > MAX_SECONDS:
        raise ValueError(f"{fid}: seconds must be at most {MAX_SECONDS}.")
    if isinstance(seconds, int) and seconds >= 0:
        out["seconds"] = seconds
    return out


def _completeness_error(field: Field, entry: dict[str, Any] | None, title: str) -> str | None:
    """Why a submission's entry for `field` is incomplete: no label, or a required explanation missing."""
    if not entry or not entry["label"]:
        return _("%(title)s: a label is required; choose %(choices)s.") % {"title": title, "choices": choices_text(field)}
    category = field.category(entry["label"])
    if field.task.requires_explanation and category is not None and not category.approves and not entry["comment"]:
        return _("%(title)s: explain why you answered %(label)s.") % {"title": title, "label": category.shown_label}
    return None


def clean_entries(entries: dict[str, Any], fields: list[Field], *, require_all: bool) -> dict[str, dict[str, Any]]:
    """Check labels against each field's scale. Returns {field id: entry}.

    Errors are keyed by field id (so a page can mark and focus the field) and worded for the rater.
    """
    if not isinstance(entries, dict):
        raise ValidationError({"labels": "labels: expected an object mapping field ids to labels."})
    by_id = {f.id: f for f in fields}
    titles = field_titles(fields)
    errors: dict[str, str] = {}
    cleaned: dict[str, dict[str, Any]] = {}
    for fid, raw in entries.items():
        try:
            cleaned[fid] = _clean_entry(fid, raw, by_id.get(fid), titles.get(fid, fid))
        except ValueError as exc:
            errors[fid] = str(exc)
    if require_all:
        for f in fields:
            if f.id not in errors and (problem := _completeness_error(f, cleaned.get(f.id), titles[f.id])):
                errors[f.id] = problem
    if errors:
        raise ValidationError(errors)
    return cleaned
