"""LiveClin: JSONL, one case report a line, with its progressive exam under
`exam_creation.final_policy`."""

from __future__ import annotations

from typing import Any

from cases.importers.base import (
    MCQ_LETTERS,
    Issues,
    ParsedCase,
    ParsedMCQ,
    ParsedQuestionSet,
    ParseResult,
    Record,
    check_duplicate,
    iter_jsonl,
)

ID_KEYS = ("pmc", "pmid", "doi")
KNOWN_KEYS = {*ID_KEYS, "Rarity", "Level1", "Level2", "exam_creation"}


def _details(rec: Record, key: str) -> list[Any]:
    """Image / table details: a list of objects (caption, type, url or file; tables keep Markdown)."""
    value = rec.obj.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        return [value]
    if not isinstance(value, list):
        rec.error(key, f"wrong type: expected a list of objects, got {type(value).__name__}")
        return []
    return value


def _mcq(item: Any, line: int, issues: Issues, prefix: str) -> ParsedMCQ | None:
    sub = Record(item, line, issues, prefix=prefix)
    if not sub.ok:
        return None
    question = sub.text("question", required=True, non_empty=True)
    raw_options = sub.dict("options", required=True)
    options: dict[str, str] = {}
    for letter, text in raw_options.items():
        key = str(letter).strip().upper()
        if key not in MCQ_LETTERS or len(key) != 1:
            sub.error(f"options.{letter}", f"option letters must be A..J, got {letter!r}")
        elif not isinstance(text, str) or not text.strip():
            sub.error(f"options.{letter}", "option text must be non-empty text")
        else:
            options[key] = text
    if raw_options and len(raw_options) < 2:
        sub.error("options", "an MCQ needs at least two options")
    answer = sub.text("correct_answer", required=True).strip().upper()
    if answer and options and answer not in options:
        sub.error("correct_answer", f"answer {answer!r} is not one of the options {', '.join(sorted(options))}")
    return ParsedMCQ(
        stage=sub.text("stage"), question=question, options=dict(sorted(options.items())),
        correct_answer=answer, image_details=_details(sub, "image_details"),
        table_details=_details(sub, "table_details"),
    )


def parse(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    result = ParseResult(kind="cases")
    seen: dict[str, int] = {}
    for line, item in iter_jsonl(data, issues):
        result.records += 1
        rec = Record(item, line, issues)
        if not rec.ok:
            continue
        id_key = next((k for k in ID_KEYS if rec.has(k)), None)
        if id_key is None:
            issues.add(line, "pmc", "missing required field: one of pmc, pmid, doi")
            external_id = ""
        else:
            external_id = rec.identifier(id_key)
            check_duplicate(seen, external_id, line, issues, id_key)
        exam = rec.dict("exam_creation", required=True)
        if not isinstance(rec.obj.get("exam_creation"), dict):
            continue
        if exam.get("final_policy") is None:
            issues.add(line, "exam_creation.final_policy", "missing required field")
            continue
        policy = Record(exam["final_policy"], line, issues, prefix="exam_creation.final_policy")
        if not policy.ok:
            continue
        scenario = policy.text("scenario", required=True, non_empty=True)
        mcqs = []
        raw_mcqs = policy.list("mcqs", required=True)
        if "mcqs" in policy.obj and isinstance(policy.obj["mcqs"], list) and not raw_mcqs:
            policy.error("mcqs", "a question set needs at least one MCQ")
        for i, raw_mcq in enumerate(raw_mcqs, start=1):
            mcq = _mcq(raw_mcq, line, issues, prefix=policy.name(f"mcqs[{i}]"))
            if mcq is not None:
                mcqs.append(mcq)
        question_set = ParsedQuestionSet(
            scenario=scenario,
            scenario_images=_details(policy, "scenario_image_details"),
            scenario_tables=_details(policy, "scenario_table_details"),
            mcqs=tuple(mcqs),
        )
        extra = rec.unknown_keys(KNOWN_KEYS)
        policy_extra = policy.unknown_keys({"scenario", "scenario_image_details", "scenario_table_details", "mcqs"})
        if policy_extra:
            extra["final_policy"] = policy_extra
        result.cases.append(ParsedCase(
            record=line,
            external_id=external_id,
            # The scenario is what an examinee reads; it doubles as the narrative on review pages.
            narrative=scenario,
            rarity=rec.text("Rarity"),
            icd_chapter=rec.text("Level1"),
            disease_cluster=rec.text("Level2"),
            source=f"{id_key}:{external_id}" if id_key else "",
            extra=extra,
            raw=item,
            question_set=question_set,
        ))
    result.issues = issues.items
    return result
