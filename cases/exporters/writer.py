"""What every format writer is, and the pieces the rubric formats share.

A writer turns the curation's decisions into the benchmark's own records. It starts from the
source record exactly as imported (`ParsedCase.raw`), so keys medreview has no column for and the
original text survive untouched; only when the raw record cannot be used (a generic CSV row set,
or criteria that no longer line up with it) is the record rebuilt from the parsed fields.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cases.exporters.base import CaseDecision, CurationRules, outcome_dict
from cases.importers.base import ParsedCase, ParsedCriterion

VALIDITY_KEY = "physician_validity"
FLAGS_KEY = "physician_flags"
REVIEW_KEY = "physician_review"


@dataclass(frozen=True)
class Writer:
    format: str
    file_name: Callable[[str], str]  # curation name -> output file name
    decide: Callable[[ParsedCase, Any, CurationRules], CaseDecision]
    record: Callable[[CaseDecision, CurationRules, str], dict[str, Any]]
    serialize: Callable[[Sequence[Any]], bytes]
    counts: Callable[[Sequence[CaseDecision]], dict[str, Any]]


def raw_list(case: ParsedCase, key: str) -> list[Any] | None:
    """The raw record's criteria list when it still lines up with the parsed criteria, else None."""
    items = case.raw.get(key) if isinstance(case.raw, dict) else None
    if isinstance(items, list) and len(items) == len(case.criteria) and all(isinstance(i, dict) for i in items):
        return items
    return None


def curated_items(items: list[dict[str, Any]], decision: CaseDecision, marker: str = "disagree") -> list[dict[str, Any]]:
    """The kept criteria (positions are 1-based), each a copy; marked ones carry the validity key."""
    kept = []
    for position in decision.kept_criteria:
        item = copy.deepcopy(items[position - 1])
        if position in decision.marked_criteria:
            item[VALIDITY_KEY] = marker
        kept.append(item)
    return kept


def criterion_dict(criterion: ParsedCriterion, axis_key: str) -> dict[str, Any]:
    item: dict[str, Any] = {"criterion": criterion.text, "points": criterion.points}
    if criterion.axis:
        item[axis_key] = criterion.axis
    if criterion.tags:
        item["tags"] = list(criterion.tags)
    return item


def review_block(decision: CaseDecision, curation: str) -> dict[str, Any]:
    """The optional per-case block: every final label with its rule and source, flags, history."""
    review = decision.review
    if review is None:
        return {"curation": curation, "reviewed": False}
    return {
        "curation": curation,
        "reviewed": True,
        "narrative": outcome_dict(review.narrative) if review.narrative else None,
        "advice": outcome_dict(review.advice) if review.advice else None,
        "criteria": [{"position": n, **outcome_dict(review.criteria[n])} for n in sorted(review.criteria)],
        "flags": list(decision.flags),
        "history": list(review.history),
        "events": [dict(e) for e in review.events],
    }


def add_review_keys(record: dict[str, Any], decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    if decision.flags:
        record[FLAGS_KEY] = list(decision.flags)
    if rules.review_block:
        record[REVIEW_KEY] = review_block(decision, curation)
    return record


def rubric_record(
    decision: CaseDecision,
    rules: CurationRules,
    curation: str,
    *,
    key: str,
    build: Callable[[ParsedCase], dict[str, Any]],
) -> dict[str, Any]:
    """A rubric benchmark's record: the imported record as it was (unknown keys survive) or, when
    it cannot be reused, one rebuilt by `build`; its rubric list under `key` curated, review keys added."""
    items = raw_list(decision.case, key)
    rec = dict(decision.case.raw) if items is not None else build(decision.case)
    rec[key] = curated_items(items if items is not None else rec[key], decision)
    return add_review_keys(rec, decision, rules, curation)


def iso_time(case: ParsedCase) -> str | None:
    return case.post_time.isoformat() if case.post_time else None


def put(record: dict[str, Any], key: str, value: Any) -> None:
    """Set a key only when there is something to say (the importers treat absent and empty alike)."""
    if value not in (None, "", [], ()):
        record[key] = list(value) if isinstance(value, tuple) else value
