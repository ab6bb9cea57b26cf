"""LiveClin's Judge agent verdicts (`liveclin-judge`): the AI pre-screen of question sets.

LiveClin Appendix G (Fig. 14): the Judge answers, for each MCQ of a set, a `factual_validation`
block (`is_factually_correct`, `explanation`; the "backend auditor" with the source case report
and image captions) and a `logical_solvability` block (`is_logically_solvable`, `explanation`;
the "examinee" with only what a test-taker sees). A file holds one JSON object a line:

    {"pmc": "PMC11000001", "judge": [{"factual_validation": {...}, "logical_solvability": {...}}, ...]}

The same normaliser reads what a *question-set judge* grader answers in-app
(`graders.kinds.prompts.parse_question_set_judge`), so an imported and an in-app pre-screen are the same
data. No Django import here: parsing is tested without a database. Matching against the question
sets in the database (unknown record, MCQ index out of range) is `match`, given the MCQ counts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cases.importers.base import (
    ImportIssue,
    Issues,
    ParseResult,
    Record,
    json_type,
    records_with_id,
)

ID_KEYS = ("pmc", "pmid", "doi")
# Where the per-MCQ list may sit inside the Judge's object (the prompt asks for "mcqs").
LIST_KEYS = ("mcqs", "questions", "results", "assessments", "evaluations")
# An explicit 1-based MCQ position, when the Judge numbers its entries.
INDEX_KEYS = ("mcq", "mcq_index", "question_index", "index", "question_number")
CHECKS = {
    "factual": ("factual_validation", "is_factually_correct"),
    "solvability": ("logical_solvability", "is_logically_solvable"),
}
_NUMBERED_KEY = re.compile(r"^\D*?(\d+)$")


@dataclass(frozen=True)
class ParsedCheck:
    """One Judge verdict. `passed` is None when the verdict is not a JSON boolean (kept as invalid,
    never dropped, like a grader's unparsable answer)."""

    passed: bool | None
    explanation: str = ""
    raw: Any = None

    @property
    def valid(self) -> bool:
        return self.passed is not None


@dataclass(frozen=True)
class ParsedJudgeMCQ:
    position: int  # 1-based MCQ order within the set (MCQ.order + 1)
    field: str  # where this entry is in the file, for located errors
    factual: ParsedCheck
    solvability: ParsedCheck
    raw: Any = None

    def check(self, name: str) -> ParsedCheck:
        return self.factual if name == "factual" else self.solvability


@dataclass(frozen=True)
class ParsedJudgement:
    """The Judge's verdicts on one question set (one line of the file)."""

    record: int
    external_id: str
    mcqs: tuple[ParsedJudgeMCQ, ...]
    raw: dict[str, Any] = field(default_factory=dict)
    id_key: str = "pmc"  # the key the line named its record with, for located errors

    @property
    def passed(self) -> bool:
        """The pre-screen passes only when every check of every MCQ is a valid "yes"."""
        return bool(self.mcqs) and all(m.factual.passed is True and m.solvability.passed is True for m in self.mcqs)


@dataclass
class JudgeParseResult:
    judgements: list[ParsedJudgement] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    records: int = 0


def _entries(value: Any) -> tuple[list[tuple[str, Any, int | None]], str]:
    """(location suffix, entry, explicit position) of each per-MCQ entry, or an error message.

    Accepts the list itself, an object holding it under one of LIST_KEYS, or an object whose keys
    number the MCQs ("MCQ 1", "mcq_2", "3")."""
    if isinstance(value, dict):
        for key in LIST_KEYS:
            if isinstance(value.get(key), list):
                return [(f".{key}[{i}]", e, None) for i, e in enumerate(value[key], start=1)], ""
        numbered = [(k, _NUMBERED_KEY.match(str(k))) for k in value]
        if value and all(m is not None for _, m in numbered):
            return [(f".{k}", value[k], int(m.group(1))) for k, m in numbered if m is not None], ""
        return [], f"expected a list of MCQ verdicts (or an object with {', '.join(LIST_KEYS[:1])}), got object"
    if isinstance(value, list):
        return [(f"[{i}]", e, None) for i, e in enumerate(value, start=1)], ""
    return [], f"wrong type: expected a list of MCQ verdicts, got {json_type(value)}"


def _check(entry: Record, name: str) -> ParsedCheck:
    block_key, verdict_key = CHECKS[name]
    if not entry.has(block_key):
        entry.error(block_key, "missing required field")
        return ParsedCheck(None)
    block = Record(entry.obj[block_key], entry.record, entry.issues, prefix=entry.name(block_key))
    if not block.ok:
        return ParsedCheck(None)
    verdict = block.obj.get(verdict_key)
    explanation = block.text("explanation")
    return ParsedCheck(verdict if isinstance(verdict, bool) else None, explanation.strip(), block.obj)


def _position(entry: Record, explicit: int | None, order: int) -> int:
    for key in INDEX_KEYS:
        value = entry.obj.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            entry.error(key, f"an MCQ position is a whole number from 1, got {value!r}")
            return 0
        return value
    return explicit if explicit is not None else order


def judge_mcqs(value: Any, record: int, issues: Issues, prefix: str) -> tuple[ParsedJudgeMCQ, ...]:
    """Every per-MCQ verdict of one Judge output; problems go to `issues` under `prefix`."""
    entries, problem = _entries(value)
    if problem:
        issues.add(record, prefix, problem)
        return ()
    if not entries:
        issues.add(record, prefix, "no MCQ verdicts")
    mcqs: list[ParsedJudgeMCQ] = []
    seen: dict[int, str] = {}
    for order, (suffix, raw, explicit) in enumerate(entries, start=1):
        entry = Record(raw, record, issues, prefix=f"{prefix}{suffix}")
        if not entry.ok:
            continue
        position = _position(entry, explicit, order)
        if not position:
            continue
        if position in seen:
            issues.add(record, entry.prefix, f"a second verdict for MCQ {position} (first at {seen[position]})")
            continue
        seen[position] = entry.prefix
        mcqs.append(ParsedJudgeMCQ(
            position=position, field=entry.prefix,
            factual=_check(entry, "factual"), solvability=_check(entry, "solvability"), raw=raw,
        ))
    return tuple(sorted(mcqs, key=lambda m: m.position))


def parse(data: bytes, file_name: str) -> JudgeParseResult:
    """Every line of a `liveclin-judge` file; never raises for bad input."""
    issues = Issues(file_name)
    result = JudgeParseResult()
    lines = [0]
    for rec, id_key, external_id in records_with_id(data, issues, ID_KEYS, lines):
        line = rec.record
        if not rec.has("judge"):
            issues.add(line, "judge", "missing required field")
            continue
        mcqs = judge_mcqs(rec.obj["judge"], line, issues, "judge")
        result.judgements.append(
            ParsedJudgement(record=line, external_id=external_id, mcqs=mcqs, raw=rec.obj, id_key=id_key)
        )
    result.records = lines[0]
    result.issues = issues.items
    return result


def match(
    judgements: list[ParsedJudgement], mcq_counts: Mapping[str, int], issues: Issues, *, dataset: str
) -> None:
    """Check each judgement against the question sets it names: `mcq_counts` maps an external id to
    its current question set's number of MCQs (ids without a question set are absent). Reports an
    unknown record, an MCQ position out of range and an MCQ left without a verdict."""
    for judgement in judgements:
        count = mcq_counts.get(judgement.external_id)
        if count is None:
            issues.add(
                judgement.record, judgement.id_key,
                f"no question set {judgement.external_id!r} in dataset {dataset!r}; import the liveclin release first",
            )
            continue
        for mcq in judgement.mcqs:
            if mcq.position > count:
                issues.add(
                    judgement.record, mcq.field,
                    f"MCQ {mcq.position} out of range: the question set of {judgement.external_id!r} "
                    f"has {count} MCQ{'s' if count != 1 else ''}",
                )
        missing = sorted(set(range(1, count + 1)) - {m.position for m in judgement.mcqs})
        if missing and judgement.mcqs:
            issues.add(
                judgement.record, "judge",
                f"no verdict for MCQ {', '.join(map(str, missing))} of {count}; the Judge assesses every MCQ",
            )


def parse_release(data: bytes, file_name: str) -> ParseResult:
    """The `liveclin-judge` import format: the judgements in a `ParseResult` of kind "judgements"."""
    parsed = parse(data, file_name)
    return ParseResult(kind="judgements", judgements=parsed.judgements, issues=parsed.issues, records=parsed.records)
