"""Plain data the parsers produce, and the helpers they share. No Django import here on purpose:
parsers run outside any transaction and are tested (and benchmarked) without a database.

Every helper records a problem in an `Issues` collector and returns a placeholder instead of raising,
so one pass over a file reports every error at once.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from cases.importers.safe_load import (
    CsvTable,
    UnsafeCSV,
    UnsafeJSON,
    find_nul,
    issue_location,
    read_csv,
    safe_loads,
)
from medreview.text import split_values

# Han ideographs (CJK Unified + Extension A + compatibility). LiveMedBench decides the answer
# language the same way ("if the content contains Chinese").
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")

MCQ_LETTERS = "ABCDEFGHIJ"
POINTS_MIN, POINTS_MAX = -10, 10

DIFFICULTIES = {"low": "low", "medium": "medium", "high": "high"}
REGISTERS = {
    "lay": "lay", "lay-facing": "lay", "patient": "lay",
    "professional": "professional", "professional-facing": "professional", "clinician": "professional",
}


@dataclass(frozen=True)
class ImportIssue:
    """One problem in an input file. `record` is the position in a JSON list (from 1) or the line
    number in JSONL / CSV; None for problems with the whole file."""

    record: int | None
    field: str | None
    message: str
    file: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "record": self.record, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        where = [self.file or "file"]
        if self.record is not None:
            where.append(f"record {self.record}")
        if self.field:
            where.append(f"field {self.field}")
        return f"{', '.join(where)}: {self.message}"


class Issues:
    def __init__(self, file_name: str) -> None:
        self.file_name = file_name
        self.items: list[ImportIssue] = []

    def add(self, record: int | None, field_name: str | None, message: str) -> None:
        self.items.append(ImportIssue(record, field_name, message, self.file_name))

    def __len__(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class ParsedCriterion:
    text: str
    points: int
    axis: str = ""
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedMCQ:
    stage: str
    question: str
    options: dict[str, str]
    correct_answer: str
    image_details: list[Any]
    table_details: list[Any]


@dataclass(frozen=True)
class ParsedQuestionSet:
    """LiveClin: `case_report` and `captions` are the privileged source (Appendix G); `captions` are
    `{"mcq": 0 (scenario) or MCQ position, "image": position, "caption"}`, collected from the image
    details; `report_source` says where the report came from ("record", "side file", "" = missing)."""

    scenario: str
    scenario_images: list[Any]
    scenario_tables: list[Any]
    mcqs: tuple[ParsedMCQ, ...]
    case_report: str = ""
    report_source: str = ""
    captions: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ParsedCase:
    record: int
    external_id: str
    narrative: str = ""
    core_request: str = ""
    doctor_advice: str = ""
    language: str = ""
    post_time: datetime | None = None
    conversation: list[dict[str, Any]] = field(default_factory=list)
    specialties: tuple[str, ...] = ()
    themes: tuple[str, ...] = ()
    difficulty: str = ""
    register: str = ""
    icd_chapter: str = ""
    disease_cluster: str = ""
    rarity: str = ""
    source: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, Any] = field(default_factory=dict)
    criteria: tuple[ParsedCriterion, ...] = ()
    question_set: ParsedQuestionSet | None = None
    content_hash: str = ""

    def __post_init__(self) -> None:
        if not self.language:
            object.__setattr__(self, "language", detect_language(self.narrative, self.core_request))
        object.__setattr__(self, "content_hash", canonical_hash(self))


def canonical_hash(case: ParsedCase) -> str:
    """SHA-256 of what a reviewer sees and what is scored. `raw` is left out on purpose: key order
    or whitespace in the source must not create a revision; every value it holds is in a field."""
    content = {
        "narrative": case.narrative, "core_request": case.core_request, "doctor_advice": case.doctor_advice,
        "language": case.language, "post_time": case.post_time.isoformat() if case.post_time else None,
        "conversation": case.conversation, "specialties": sorted(case.specialties),
        "themes": sorted(case.themes), "difficulty": case.difficulty, "register": case.register,
        "icd_chapter": case.icd_chapter, "disease_cluster": case.disease_cluster, "rarity": case.rarity,
        "source": case.source, "extra": case.extra,
        "criteria": [[c.text, c.points, c.axis, list(c.tags)] for c in case.criteria],
        "question_set": None if case.question_set is None else {
            "scenario": case.question_set.scenario,
            "images": case.question_set.scenario_images,
            "tables": case.question_set.scenario_tables,
            "mcqs": [
                [m.stage, m.question, m.options, m.correct_answer, m.image_details, m.table_details]
                for m in case.question_set.mcqs
            ],
            # Only when present, so that sets imported without a report keep their hash.
            **({"case_report": case.question_set.case_report} if case.question_set.case_report else {}),
        },
    }
    blob = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ParsedResponse:
    record: int
    case_id: str
    text: str
    finish_reason: str
    raw: dict[str, Any]


@dataclass(frozen=True)
class ParsedDecision:
    key: str
    criterion: str
    met: bool | None  # None: the grader's output was not a valid 0/1
    reasoning: str
    raw: dict[str, Any]


@dataclass(frozen=True)
class ParsedGrade:
    record: int
    case_id: str
    decisions: tuple[ParsedDecision, ...]


@dataclass
class ParseResult:
    kind: str  # "cases" | "responses" | "grades" | "judgements"
    cases: list[ParsedCase] = field(default_factory=list)
    responses: list[ParsedResponse] = field(default_factory=list)
    grades: list[ParsedGrade] = field(default_factory=list)
    judgements: list[Any] = field(default_factory=list)  # liveclin_judge.ParsedJudgement
    issues: list[ImportIssue] = field(default_factory=list)
    records: int = 0


Parser = Callable[[bytes, str], ParseResult]


def detect_language(*texts: str) -> str:
    return "zh" if any(_CJK.search(t or "") for t in texts) else "en"


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def decode(data: bytes, issues: Issues, *, records_by_line: bool = False) -> str | None:
    """The file as text, or None (problem noted): UTF-8, no NUL (no database column can hold one).
    `records_by_line`: the format numbers records by line (CSV, JSONL), so a NUL is located there."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        issues.add(
            None, None,
            f"not UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start} (line {line}); "
            "save the file as UTF-8",
        )
        return None
    text = text.removeprefix("\ufeff")
    nul = find_nul(text)
    if nul is not None:
        line, column = nul
        where = "" if records_by_line else f" at line {line} column {column}"
        issues.add(line if records_by_line else None, None,
                   f"contains a NUL character{where}, which cannot be stored; remove it")
        return None
    return text


def load_json(text: str, issues: Issues, *, record: int | None = None, line_offset: int = 0) -> Any:
    """The value, or _INVALID with the problem noted: syntax errors, and everything `safe_loads`
    refuses (duplicate keys, deep nesting, huge numbers, NUL, lone surrogates), located."""
    try:
        return safe_loads(text)
    except json.JSONDecodeError as exc:
        issues.add(
            record, None,
            f"invalid JSON at line {exc.lineno + line_offset} column {exc.colno}: {exc.msg}",
        )
        return _INVALID
    except UnsafeJSON as exc:
        issues.add(*issue_location(exc, record=record, line_offset=line_offset))
        return _INVALID


_INVALID = object()


def load_json_list(data: bytes, issues: Issues, *, what: str) -> list[Any]:
    text = decode(data, issues)
    if text is None:
        return []
    value = load_json(text, issues)
    if value is _INVALID:
        return []
    if not isinstance(value, list):
        issues.add(None, None, f"wrong type: expected a JSON list of {what}, got {json_type(value)}")
        return []
    return value


def load_csv(data: bytes, issues: Issues) -> CsvTable | None:
    """The file's header and rows, or None with the problem noted at its line: not UTF-8, NUL, any
    `csv.Error` (a cell over the csv module's limit, a quote never closed), a column named twice."""
    text = decode(data, issues, records_by_line=True)
    if text is None:
        return None
    try:
        return read_csv(text)
    except UnsafeCSV as exc:
        issues.add(exc.line, exc.column, exc.message)
        return None


def iter_jsonl(data: bytes, issues: Issues) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line; bad lines are reported and skipped."""
    text = decode(data, issues, records_by_line=True)
    if text is None:
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        value = load_json(line, issues, record=number, line_offset=number - 1)
        if value is not _INVALID:
            yield number, value


class Record:
    """Typed access to one source object; problems go to `issues` under this record's number."""

    def __init__(self, obj: Any, record: int, issues: Issues, prefix: str = "") -> None:
        self.record = record
        self.issues = issues
        self.prefix = prefix
        self.ok = isinstance(obj, dict)
        self.obj: dict[str, Any] = obj if isinstance(obj, dict) else {}
        if not self.ok:
            issues.add(record, prefix or None, f"wrong type: expected an object, got {json_type(obj)}")

    def name(self, key: str) -> str:
        return f"{self.prefix}.{key}" if self.prefix else key

    def error(self, key: str, message: str) -> None:
        self.issues.add(self.record, self.name(key), message)

    def has(self, key: str) -> bool:
        return self.obj.get(key) is not None

    def text(self, key: str, *, required: bool = False, non_empty: bool = False) -> str:
        if key not in self.obj or self.obj[key] is None:
            if required and self.ok:
                self.error(key, "missing required field")
            return ""
        value = self.obj[key]
        if not isinstance(value, str):
            self.error(key, f"wrong type: expected text, got {json_type(value)}")
            return ""
        if non_empty and not value.strip():
            self.error(key, "must not be empty")
        return value

    def identifier(self, key: str, *, required: bool = True) -> str:
        """Ids are text in some releases and numbers in others; both are kept as text."""
        value = self.obj.get(key)
        if value is None:
            if required and self.ok:
                self.error(key, "missing required field")
            return ""
        if isinstance(value, bool) or not isinstance(value, str | int):
            self.error(key, f"wrong type: expected text or a whole number, got {json_type(value)}")
            return ""
        value = str(value).strip()
        if not value:
            self.error(key, "must not be empty")
        return value

    def points(self, key: str = "points", *, default: int | None = None) -> int:
        value = self.obj.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if default is not None:
                return default
            if self.ok:
                self.error(key, "missing required field")
            return 0
        if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.error(key, f"wrong type: expected a whole number, got {json_type(value)} {value!r}")
            return 0
        if not POINTS_MIN <= value <= POINTS_MAX:
            self.error(key, f"points {value} outside {POINTS_MIN}..{POINTS_MAX}")
            return 0
        return value

    def list(self, key: str, *, required: bool = False) -> list[Any]:
        value = self.obj.get(key)
        if value is None:
            if required and self.ok:
                self.error(key, "missing required field")
            return []
        if not isinstance(value, list):
            self.error(key, f"wrong type: expected a list, got {json_type(value)}")
            return []
        return value

    def items(self, key: str, *, required: bool = False, if_empty: str = "") -> Iterator[Record]:
        """A list of objects as records named `key[1]`, `key[2]`, ...; records that are not objects
        are yielded too (with their error already noted) so callers decide whether to skip them.
        `if_empty` is the error for a list that is present but empty. Lazy on purpose: each item's
        problems are noted in file order, after the previous item's."""
        values = self.list(key, required=required)
        if if_empty and not values and isinstance(self.obj.get(key), list):
            self.error(key, if_empty)
        for i, value in enumerate(values, start=1):
            yield Record(value, self.record, self.issues, prefix=self.name(f"{key}[{i}]"))

    def dict(self, key: str, *, required: bool = False) -> dict[str, Any]:
        value = self.obj.get(key)
        if value is None:
            if required and self.ok:
                self.error(key, "missing required field")
            return {}
        if not isinstance(value, dict):
            self.error(key, f"wrong type: expected an object, got {json_type(value)}")
            return {}
        return value

    def text_list(self, key: str) -> tuple[str, ...]:
        """A list of names, or one name, or a ';'-separated string (spreadsheets)."""
        value = self.obj.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            return split_values(value, ";")
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(v.strip() for v in value if v.strip())
        self.error(key, f"wrong type: expected a list of text, got {json_type(value)}")
        return ()

    def post_time(self, key: str = "post_time") -> datetime | None:
        value = self.text(key)
        if not value.strip():
            return None
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            self.error(key, f"not an ISO 8601 date/time: {value!r}")
            return None
        return moment if moment.tzinfo else moment.replace(tzinfo=UTC)

    def choice(self, key: str, choices: dict[str, str]) -> str:
        value = self.text(key)
        if not value.strip():
            return ""
        normalised = choices.get(value.strip().lower())
        if normalised is None:
            allowed = ", ".join(sorted(set(choices.values())))
            self.error(key, f"unknown value {value!r}; expected one of {allowed}")
            return ""
        return normalised

    def unknown_keys(self, known: set[str]) -> dict[str, Any]:
        return {k: v for k, v in self.obj.items() if k not in known}


def check_duplicate(seen: dict[str, int], external_id: str, record: int, issues: Issues, field_name: str) -> None:
    if not external_id:
        return
    if external_id in seen:
        issues.add(record, field_name, f"duplicate id {external_id!r} (first seen at record {seen[external_id]})")
    else:
        seen[external_id] = record


def records_with_id(
    data: bytes, issues: Issues, id_keys: tuple[str, ...], counter: list[int] | None = None
) -> Iterator[tuple[Record, str, str]]:
    """(record, id key, external id) for each JSONL line that is an object naming its record with the
    first present of `id_keys` (LiveClin: pmc, pmid, doi); a line naming none, or an id seen before,
    is reported. `counter[0]` counts every line read (for `ParseResult.records`)."""
    seen: dict[str, int] = {}
    for line, item in iter_jsonl(data, issues):
        if counter is not None:
            counter[0] += 1
        rec = Record(item, line, issues)
        if not rec.ok:
            continue
        id_key = next((k for k in id_keys if rec.has(k)), None)
        if id_key is None:
            issues.add(line, id_keys[0], f"missing required field: one of {', '.join(id_keys)}")
            continue
        external_id = rec.identifier(id_key)
        check_duplicate(seen, external_id, line, issues, id_key)
        yield rec, id_key, external_id
