"""LiveMedBench's three JSON files: rubric-augmented cases, `run_model.py` output and
`evaluation_results_<model>.json` (formats in the LiveMedBench README)."""

from __future__ import annotations

from typing import Any

from cases.importers.base import (
    Issues,
    ParsedCase,
    ParsedCriterion,
    ParsedDecision,
    ParsedGrade,
    ParsedResponse,
    ParseResult,
    Record,
    check_duplicate,
    load_json_list,
)

CASE_KEYS = {"case_id", "post_time", "narrative", "core_request", "doctor_advice", "rubric_items"}
CRITERION_KEYS = {"criterion", "points", "axe", "axis", "tags"}


def parse_criteria(rec: Record, key: str, *, required: bool = True) -> tuple[ParsedCriterion, ...]:
    criteria = []
    for sub in rec.items(key, required=required):
        if not sub.ok:
            continue
        text = sub.text("criterion", required=True, non_empty=True)
        points = sub.points()
        # The README spells it `axe`; some releases use `axis`.
        axis = sub.text("axe") or sub.text("axis")
        tags = sub.text_list("tags")
        criteria.append(ParsedCriterion(text=text.strip(), points=points, axis=axis.strip(), tags=tags))
    return tuple(criteria)


def parse_cases(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    items = load_json_list(data, issues, what="cases")
    result = ParseResult(kind="cases", records=len(items))
    seen: dict[str, int] = {}
    for index, item in enumerate(items, start=1):
        rec = Record(item, index, issues)
        if not rec.ok:
            continue
        external_id = rec.identifier("case_id")
        check_duplicate(seen, external_id, index, issues, "case_id")
        extra = rec.unknown_keys(CASE_KEYS)
        result.cases.append(ParsedCase(
            record=index,
            external_id=external_id,
            post_time=rec.post_time(),
            narrative=rec.text("narrative", required=True, non_empty=True),
            core_request=rec.text("core_request", required=True),
            doctor_advice=rec.text("doctor_advice"),
            language=extra.get("language", "") if isinstance(extra.get("language"), str) else "",
            extra=extra,
            raw=item,
            criteria=parse_criteria(rec, "rubric_items"),
        ))
    result.issues = issues.items
    return result


def parse_responses(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    items = load_json_list(data, issues, what="model responses")
    result = ParseResult(kind="responses", records=len(items))
    seen: dict[str, int] = {}
    for index, item in enumerate(items, start=1):
        rec = Record(item, index, issues)
        if not rec.ok:
            continue
        case_id = rec.identifier("case_id")
        check_duplicate(seen, case_id, index, issues, "case_id")
        text = rec.text("model_response", required=True)
        result.responses.append(ParsedResponse(
            record=index, case_id=case_id, text=text,
            finish_reason=rec.text("finish_reason"), raw=item,
        ))
    result.issues = issues.items
    return result


def _met(sub: Record) -> bool | None:
    """LiveMedBench stores `score` 0/1; the grader's own output says `met`. Anything else that is
    present but not a valid verdict is kept as an invalid decision, never silently dropped."""
    key = "score" if "score" in sub.obj else "met"
    if key not in sub.obj:
        sub.error("score", "missing required field")
        return None
    value: Any = sub.obj[key]
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, int | float | str):
        return None
    sub.error(key, f"wrong type: expected 0 or 1, got {type(value).__name__}")
    return None


def parse_grades(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    items = load_json_list(data, issues, what="evaluation results")
    result = ParseResult(kind="grades", records=len(items))
    seen: dict[str, int] = {}
    for index, item in enumerate(items, start=1):
        rec = Record(item, index, issues)
        if not rec.ok:
            continue
        case_id = rec.identifier("case_id")
        check_duplicate(seen, case_id, index, issues, "case_id")
        decisions = []
        for key, value in rec.dict("evaluations", required=True).items():
            sub = Record(value, index, issues, prefix=f"evaluations.{key}")
            if not sub.ok:
                continue
            text = sub.text("criterion", required=True, non_empty=True)
            decisions.append(ParsedDecision(
                key=key, criterion=text.strip(), met=_met(sub),
                reasoning=sub.text("reasoning") or sub.text("evidence"), raw=value,
            ))
        result.grades.append(ParsedGrade(record=index, case_id=case_id, decisions=tuple(decisions)))
    result.issues = issues.items
    return result
