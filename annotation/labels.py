"""Labels as raters send them, checked against each field's scale (drafts, submissions,
adjudication, calibration); pairwise labels as shown vs as stored; an item's labels by field.

Pairwise: a rater answers "A" / "B" for the response shown first / second. Ratings store them
canonically (A = `item.response`, B = `item.response_b`, like `graders.PairwiseJudgement`) and
`Assignment.pair_order` records the order the rater saw; drafts keep the labels as shown.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from annotation.fields import Field, choices_text, field_titles
from annotation.models import (
    Assignment,
    FinalLabel,
    Inspection,
    Item,
    Rating,
    TaskTarget,
    field_id,
)
from medreview.db.precompiled import PrecompiledQuery


def pair_label_to_canonical(label: str, pair_order: str) -> str:
    """A rater's "A" is the response shown first; store it in terms of item.response / response_b."""
    if pair_order == "ba" and label in ("A", "B"):
        return "B" if label == "A" else "A"
    return label


pair_label_as_shown = pair_label_to_canonical  # swapping is its own inverse



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


User = AbstractBaseUser


# Read under the item's lock by every submit that may complete the item: compiled once per process.
_RATED_ASSIGNMENTS: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda item_id: Assignment.objects.filter(item_id=item_id, state__in=Assignment.RATED_STATES).order_by("pk")
)


def rated_assignments(item: Item) -> list[Assignment]:
    rows = _RATED_ASSIGNMENTS.all(item_id=item.pk)
    for a in rows:
        a.item = item  # as the item's related manager would: callers read a.item without a query
    return rows


# An item's ratings, read when its last rater submits and on its inspection: compiled once per process.
_ITEM_RATINGS: PrecompiledQuery[Rating] = PrecompiledQuery(
    lambda item_id: Rating.objects.filter(assignment__item_id=item_id).select_related("task").order_by("round", "pk")
)


def labels_by_field(assignments: list[Assignment], *, round_: str) -> dict[str, dict[int, Rating]]:
    """{field id: {assignment id: rating}} using each assignment's first or latest round (the
    assignments are one item's)."""
    out: dict[str, dict[int, Rating]] = defaultdict(dict)
    wanted = {a.pk for a in assignments}
    if not wanted:
        return out
    items = {a.item_id for a in assignments}
    if len(items) != 1:
        raise ValueError("labels_by_field: the assignments must be of one item.")
    for r in _ITEM_RATINGS.all(item_id=items.pop()):
        if r.assignment_id in wanted and (round_ != "first" or r.round == 1):
            out[field_id(r.task.slug, r.field_key)][r.assignment_id] = r
    return out


def write_final_labels(
    item: Item, fields: list[Field], labels: dict[str, str], *, source: str, inspection: Inspection | None,
    decided_by: User | None, reason: str,
) -> None:
    FinalLabel.objects.bulk_create(
        FinalLabel(item=item, task=f.task, field_key=f.key, criterion=f.criterion, mcq=f.mcq,
                   label=labels[f.id], reason=reason, source=source, inspection=inspection, decided_by=decided_by)
        for f in fields if f.id in labels
    )


def own_latest_labels(assignment: Assignment) -> dict[str, dict[str, str]]:
    """The rater's own submitted labels, latest round per field, as they were shown to them."""
    out: dict[str, dict[str, str]] = {}
    if assignment.state in Assignment.LEASED_STATES and assignment.round == 1:
        return out  # never submitted: nothing to read
    for r in Rating.objects.filter(assignment=assignment).select_related("task").order_by("round", "pk"):
        label = r.label
        if r.task.target == TaskTarget.PAIRWISE:
            label = pair_label_as_shown(label, assignment.pair_order)
        out[field_id(r.task.slug, r.field_key)] = {"label": label, "comment": r.comment}
    return out
