"""Scores and labels collected outside medreview: judge scores (holistic or per axis), pairwise
verdicts with the order they were presented in, and physicians' labels in long format.

Specified in docs/formats.md ("Outside data"). Each file is CSV (a header row; the record number is
the line number) or JSON Lines (one object per line) or a JSON list (the position, from 1): CSV if
the name ends in .csv or the text does not start with `[` or `{`. Like every parser here: bytes in,
plain dataclasses and every problem (file, record, field) out, no Django. Which rows the values
point at (cases, responses, study items, raters) is resolved by the writers' planners, which need
the database: `graders` writes judge scores and pairwise verdicts, `annotation` physician labels.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cases.importers.base import ImportIssue, Issues, Record, iter_jsonl, json_type, load_csv, load_json_list

JUDGE_SCORES = "judge-scores"
PAIRWISE_VERDICTS = "pairwise-verdicts"
PHYSICIAN_LABELS = "physician-labels"

ORDERS = {"ab": "ab", "a-b": "ab", "a first": "ab", "ba": "ba", "b-a": "ba", "b first": "ba"}
VERDICTS = {"a": "A", "b": "B", "tie": "tie", "draw": "tie", "invalid": "invalid", "failed": "failed"}
FIELD_KEY = re.compile(r"^(?:|criterion:\d+|mcq:\d+|axis:.+)$")
MAX_ROUND = 99


@dataclass(frozen=True)
class ParsedJudgeScore:
    """One judge's score of one model's response to one case; `axis` "" = holistic.

    `normalized` = (score - scale_min) / (scale_max - scale_min), what medreview stores in [0, 1].
    """

    record: int
    judge: str
    case_id: str
    model: str
    axis: str
    score: float
    scale_min: float
    scale_max: float
    normalized: float
    prompt_version: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedPairwise:
    """One judge's verdict on one pair of responses to a case, presented in `order`.

    `verdict` names the better response as `model_a` ("A") or `model_b` ("B") whatever the order;
    "tie", or "invalid"/"failed" when the judge gave no usable answer.
    """

    record: int
    judge: str
    case_id: str
    model_a: str
    model_b: str
    order: str
    verdict: str
    prompt_version: str = ""
    raw: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedLabel:
    """One physician's label on one field of one study item (long format).

    Reports treat them as that rater's ratings of that round, like in-app ratings. The item is named
    either by its study key (`item_key`, "response:40") or by what the researcher has: the dataset's
    case id (`case_id`) with the answering `model` for a response item and `model_b` for a pair.
    The field is `field_key` ("criterion:<id>", "mcq:<id>", "axis:<name>"; an `axis` column fills it
    too) or a position in the case: `criterion` (1 = the rubric's first criterion, as the dataset
    lists it) or `mcq` (1 = the question set's first MCQ). Positions and case ids need the database
    to become items and fields: the writer resolves them.
    """

    record: int
    item_key: str
    rater: str
    task: str
    field_key: str
    label: str
    round: int = 1
    comment: str = ""
    seconds_spent: int = 0
    case_id: str = ""
    model: str = ""
    model_b: str = ""
    criterion: int | None = None
    mcq: int | None = None

    @property
    def target(self) -> tuple[str, ...]:
        """What the row labels, as written: (item key) or (case id, model, model_b), then the field."""
        item = (self.item_key,) if self.item_key else (self.case_id, self.model or "\0", self.model_b or "\0")
        field_ = self.field_key or (f"criterion {self.criterion}" if self.criterion else "") or (
            f"mcq {self.mcq}" if self.mcq else "")
        return (*item, field_ or "\0")


@dataclass
class OutsideParseResult:
    kind: str
    rows: list[Any] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    records: int = 0


# ---------------------------------------------------------------------------
# Reading rows: CSV, JSON Lines or a JSON list
# ---------------------------------------------------------------------------


def _is_csv(data: bytes, file_name: str) -> bool:
    if file_name.lower().endswith(".csv"):
        return True
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    return head not in (b"[", b"{")


def iter_rows(
    data: bytes, file_name: str, issues: Issues, *, required: tuple[str, ...], one_of: tuple[str, ...] = (),
) -> Iterator[Record]:
    """Each record as a `Record`, CSV cells as text (blank cells as missing).

    `one_of`: columns of which a CSV header must hold at least one (the item by key or by case id).
    """
    if _is_csv(data, file_name):
        yield from _csv_rows(data, issues, required, one_of)
        return
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if head == b"[":
        for number, obj in enumerate(load_json_list(data, issues, what="records"), start=1):
            yield Record(obj, number, issues)
        return
    for number, obj in iter_jsonl(data, issues):
        yield Record(obj, number, issues)


def _csv_rows(data: bytes, issues: Issues, required: tuple[str, ...], one_of: tuple[str, ...]) -> Iterator[Record]:
    table = load_csv(data, issues)
    if table is None:
        return
    missing = [c for c in required if c not in table.header]
    if one_of and not set(one_of) & set(table.header):
        missing.append(" or ".join(one_of))
    if missing:
        issues.add(1, None, f"missing column(s): {', '.join(missing)}")
        return
    for row in table.rows:
        if row.extra:
            issues.add(row.line, None, f"{len(row.extra)} more cells than the header has columns")
            continue
        obj = {k: v.strip() for k, v in row.cells.items() if v.strip()}
        yield Record(obj, row.line, issues)


def _number(rec: Record, key: str, *, required: bool) -> float | None:
    value = rec.obj.get(key)
    if value is None:
        if required and rec.ok:
            rec.error(key, "missing required field")
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            rec.error(key, f"not a number: {value!r}")
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        rec.error(key, f"wrong type: expected a number, got {json_type(value)} {value!r}")
        return None
    return float(value)


def _whole(rec: Record, key: str, *, default: int, low: int, high: int) -> int | None:
    """The value, `default` when absent, None when wrong (the error is noted)."""
    if rec.obj.get(key) is None:
        return default
    value = _number(rec, key, required=False)
    if value is None:
        return None
    if not value.is_integer() or not low <= value <= high:
        rec.error(key, f"expected a whole number in {low}..{high}, got {value:g}")
        return None
    return int(value)


def _choice(rec: Record, key: str, choices: dict[str, str]) -> str:
    value = rec.text(key, required=True).strip()
    if not value:
        return ""
    found = choices.get(value.lower())
    if found is None:
        allowed = ", ".join(sorted(set(choices.values())))
        rec.error(key, f"unknown value {value!r}; expected one of {allowed}")
        return ""
    return found


def _dedupe(seen: dict[tuple[str, ...], int], key: tuple[str, ...], rec: Record, what: str, field_name: str) -> None:
    if not all(key):
        return
    if key in seen:
        rec.error(field_name, f"duplicate {what} (first seen at record {seen[key]})")
    else:
        seen[key] = rec.record


def _run(
    data: bytes, file_name: str, kind: str, required: tuple[str, ...],
    one: Callable[[Record, dict[tuple[str, ...], int]], Any], one_of: tuple[str, ...] = (),
) -> OutsideParseResult:
    issues = Issues(file_name)
    result = OutsideParseResult(kind=kind)
    seen: dict[tuple[str, ...], int] = {}
    for rec in iter_rows(data, file_name, issues, required=required, one_of=one_of):
        result.records += 1
        if not rec.ok:
            continue
        before = len(issues)
        row = one(rec, seen)
        if len(issues) == before:
            result.rows.append(row)
    if result.records == 0 and not issues.items:
        issues.add(None, None, "no records")
    result.issues = issues.items
    return result


# ---------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------


def _judge_score(rec: Record, seen: dict[tuple[str, ...], int]) -> ParsedJudgeScore:
    judge = rec.text("judge", required=True, non_empty=True).strip()
    case_id = rec.identifier("case_id")
    model = rec.text("model", required=True, non_empty=True).strip()
    axis = rec.text("axis").strip()
    score = _number(rec, "score", required=True)
    lo = _number(rec, "scale_min", required=False)
    hi = _number(rec, "scale_max", required=False)
    half = (lo is None) != (hi is None)
    if half:
        rec.error("scale_max" if hi is None else "scale_min", "give both scale_min and scale_max, or neither (0..1)")
    lo, hi = (0.0, 1.0) if lo is None or hi is None else (lo, hi)
    normalized = 0.0
    if not hi > lo:
        rec.error("scale_max", f"scale_max {hi:g} must be greater than scale_min {lo:g}")
    elif score is not None and not half:
        if not lo <= score <= hi:
            rec.error("score", f"score {score:g} outside the scale {lo:g}..{hi:g}")
        normalized = (score - lo) / (hi - lo)
        if not math.isfinite(normalized):  # a scale so wide that its width overflows
            rec.error("score", f"score {score:g} cannot be normalised on the scale {lo:g}..{hi:g}")
            normalized = 0.0
    what = "score for this judge, case, model and axis"
    _dedupe(seen, (judge, case_id, model, axis or "\0"), rec, what, "axis" if axis else "case_id")
    return ParsedJudgeScore(
        rec.record, judge, case_id, model, axis, score or 0.0, lo, hi, normalized,
        rec.text("prompt_version").strip(), dict(rec.obj),
    )


def _pairwise(rec: Record, seen: dict[tuple[str, ...], int]) -> ParsedPairwise:
    judge = rec.text("judge", required=True, non_empty=True).strip()
    case_id = rec.identifier("case_id")
    model_a = rec.text("model_a", required=True, non_empty=True).strip()
    model_b = rec.text("model_b", required=True, non_empty=True).strip()
    order = _choice(rec, "order", ORDERS)
    verdict = _choice(rec, "verdict", VERDICTS)
    if model_a and model_a == model_b:
        rec.error("model_b", "model_a and model_b must differ")
    _dedupe(seen, (judge, case_id, model_a, model_b, order), rec, "verdict for this judge, case, pair and order",
            "order")
    return ParsedPairwise(
        rec.record, judge, case_id, model_a, model_b, order, verdict, rec.text("prompt_version").strip(),
        dict(rec.obj),
    )


#: A position in a case (criterion, MCQ) is a whole number from 1.
MAX_POSITION = 10_000


def _item(rec: Record, dataset_keys: bool) -> tuple[str, str, str, str]:
    """(item_key, case_id, model, model_b): the item by its study key, or by the dataset's case id."""
    if not dataset_keys:
        return rec.text("item_key", required=True, non_empty=True).strip(), "", "", ""
    has_key, has_case = rec.obj.get("item_key") is not None, rec.obj.get("case_id") is not None
    if has_key and has_case:
        rec.error("case_id", "give the item by item_key or by case_id, not both")
    if not has_key and not has_case:
        rec.error("case_id", "missing required field: the dataset's case id (or the study's item_key)")
    item_key = rec.text("item_key", non_empty=True).strip() if has_key else ""
    case_id = rec.identifier("case_id") if has_case else ""
    model = rec.text("model", non_empty=True).strip()
    model_b = rec.text("model_b", non_empty=True).strip()
    if item_key and (model or model_b):
        rec.error("model", "an item_key names its responses already; give model / model_b only with case_id")
    if model_b and not model:
        rec.error("model", "model_b (a pair's second model) needs model (its first)")
    if model and model == model_b:
        rec.error("model_b", "model and model_b must differ")
    return item_key, case_id, model, model_b


def _field(rec: Record, dataset_keys: bool) -> tuple[str, int | None, int | None]:
    """(field key, criterion position, MCQ position): the field as written, or by position / axis."""
    field_key = rec.text("field").strip()
    if field_key and not FIELD_KEY.match(field_key):
        rec.error("field", f"unknown field {field_key!r}; expected blank, criterion:<id>, mcq:<id> or axis:<name>")
    if not dataset_keys:
        return field_key, None, None
    given = [c for c in ("criterion", "mcq", "axis") if rec.obj.get(c) is not None]
    if field_key and given:
        rec.error(given[0], f"give field or {given[0]}, not both")
    if len(given) > 1:
        rec.error(given[1], f"give one of criterion, mcq and axis, not {given[0]} and {given[1]}")
    criterion = _whole(rec, "criterion", default=0, low=1, high=MAX_POSITION) or None
    mcq = _whole(rec, "mcq", default=0, low=1, high=MAX_POSITION) or None
    axis = rec.text("axis", non_empty="axis" in given).strip()
    return (field_key or (f"axis:{axis}" if axis else "")), criterion, mcq


def _label(rec: Record, seen: dict[tuple[str, ...], int], *, dataset_keys: bool = False) -> ParsedLabel:
    problems = len(rec.issues)
    item_key, case_id, model, model_b = _item(rec, dataset_keys)
    rater = rec.identifier("rater")
    task = rec.text("task", required=True, non_empty=True).strip()
    field_key, criterion, mcq = _field(rec, dataset_keys)
    label = rec.identifier("label")
    round_ = _whole(rec, "round", default=1, low=1, high=MAX_ROUND)
    row = ParsedLabel(
        rec.record, item_key, rater, task, field_key, label, round_ or 1, rec.text("comment"),
        _whole(rec, "seconds_spent", default=0, low=0, high=10**7) or 0, case_id, model, model_b, criterion, mcq,
    )
    if len(rec.issues) == problems:  # a row in error is not compared: its fields may be blanks
        _dedupe(seen, (*row.target, rater, task, str(round_ or "")), rec,
                "label for this item, rater, task, field and round", "label")
    return row


def parse_judge_scores(data: bytes, file_name: str) -> OutsideParseResult:
    """`judge-scores`: judge, case_id, model, [axis], score, [scale_min, scale_max], [prompt_version]."""
    return _run(data, file_name, JUDGE_SCORES, ("judge", "case_id", "model", "score"), _judge_score)


def parse_pairwise_verdicts(data: bytes, file_name: str) -> OutsideParseResult:
    """`pairwise-verdicts`: judge, case_id, model_a, model_b, order (ab/ba), verdict (A/B/tie/invalid)."""
    return _run(
        data, file_name, PAIRWISE_VERDICTS, ("judge", "case_id", "model_a", "model_b", "order", "verdict"), _pairwise,
    )


def parse_physician_labels(data: bytes, file_name: str, *, dataset_keys: bool = False) -> OutsideParseResult:
    """`physician-labels`: item_key, rater, task, [field], label, [round], [comment], [seconds_spent].

    `dataset_keys`: the item may be named by what the researcher has instead of the study's key:
    `case_id` (the dataset's case id), with `model` for a response and `model_b` for a pair; the field
    by `criterion` or `mcq` (1-based positions in the case) or `axis`. docs/formats.md describes both.
    """
    if not dataset_keys:
        return _run(data, file_name, PHYSICIAN_LABELS, ("item_key", "rater", "task", "label"), _label)

    def label(rec: Record, seen: dict[tuple[str, ...], int]) -> ParsedLabel:
        return _label(rec, seen, dataset_keys=True)

    return _run(data, file_name, PHYSICIAN_LABELS, ("rater", "task", "label"), label,
                one_of=("case_id", "item_key"))


OUTSIDE_PARSERS: dict[str, Callable[[bytes, str], OutsideParseResult]] = {
    JUDGE_SCORES: parse_judge_scores,
    PAIRWISE_VERDICTS: parse_pairwise_verdicts,
    PHYSICIAN_LABELS: parse_physician_labels,
}
