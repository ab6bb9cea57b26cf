"""The generic (ClinConsensus-style) format, in JSON or CSV; specified in docs/formats.md.

JSON: a list of cases, each with metadata axes, a reference answer and N binary criteria.
CSV: one row per criterion; the case columns are filled on a case's first row and may be left blank
on its later rows. A file is CSV if its name ends in .csv or it does not start with `[` or `{`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cases.importers.base import (
    DIFFICULTIES,
    REGISTERS,
    Issues,
    ParsedCase,
    ParsedCriterion,
    ParseResult,
    Record,
    check_duplicate,
    load_csv,
    load_json_list,
)
from cases.importers.safe_load import CsvTable

CASE_FIELDS = (
    "id", "language", "post_time", "narrative", "query", "reference_answer", "specialties", "themes",
    "difficulty", "register", "icd_chapter", "disease_cluster", "rarity", "source",
)
CRITERION_FIELDS = ("criterion", "points", "axis", "tags")
CSV_REQUIRED = ("id", "narrative", "criterion")


def _case(rec: Record, criteria: tuple[ParsedCriterion, ...], raw: dict[str, Any], known: set[str]) -> ParsedCase:
    return ParsedCase(
        record=rec.record,
        external_id=rec.identifier("id"),
        language=rec.text("language").strip(),
        post_time=rec.post_time(),
        narrative=rec.text("narrative", required=True, non_empty=True),
        core_request=rec.text("query"),
        doctor_advice=rec.text("reference_answer"),
        specialties=rec.text_list("specialties"),
        themes=rec.text_list("themes"),
        difficulty=rec.choice("difficulty", DIFFICULTIES),
        register=rec.choice("register", REGISTERS),
        icd_chapter=rec.text("icd_chapter").strip(),
        disease_cluster=rec.text("disease_cluster").strip(),
        rarity=rec.text("rarity").strip(),
        source=rec.text("source").strip(),
        extra=rec.unknown_keys(known),
        raw=raw,
        criteria=criteria,
    )


def _criterion(sub: Record) -> ParsedCriterion:
    # Criteria are binary checks; without points each counts 1 (ClinConsensus weighs them equally).
    return ParsedCriterion(
        text=sub.text("criterion", required=True, non_empty=True).strip(),
        points=sub.points(default=1),
        axis=sub.text("axis").strip(),
        tags=sub.text_list("tags"),
    )


def parse_json(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    items = load_json_list(data, issues, what="cases")
    result = ParseResult(kind="cases", records=len(items))
    seen: dict[str, int] = {}
    for index, item in enumerate(items, start=1):
        rec = Record(item, index, issues)
        if not rec.ok:
            continue
        criteria = tuple(_criterion(sub) for sub in rec.items("criteria", required=True) if sub.ok)
        case = _case(rec, criteria, item, {*CASE_FIELDS, "criteria"})
        check_duplicate(seen, case.external_id, index, issues, "id")
        result.cases.append(case)
    result.issues = issues.items
    return result


@dataclass
class _CsvCase:
    """The rows of one case in a CSV file: case columns merged over its rows, one criterion a row."""

    first_line: int
    columns: dict[str, str] = field(default_factory=dict)
    criteria: list[ParsedCriterion] = field(default_factory=list)
    rows: list[dict[str, str]] = field(default_factory=list)

    def merge(self, row: dict[str, str], line: int, external_id: str, issues: Issues) -> None:
        """A case column may be left blank on later rows, but never given another value."""
        for column, value in row.items():
            if column in CRITERION_FIELDS or not value.strip():
                continue
            if column in self.columns and self.columns[column] != value:
                issues.add(line, column, f"conflicts with the value on line {self.first_line} for case {external_id!r}")
            self.columns.setdefault(column, value)


def _csv_table(data: bytes, issues: Issues) -> CsvTable | None:
    """The rows, or None (problem noted) if the text or columns are unusable."""
    table = load_csv(data, issues)
    if table is None:
        return None
    missing = [c for c in CSV_REQUIRED if c not in table.header]
    if missing:
        issues.add(1, ", ".join(missing), "missing required column")
        return None
    return table


def _csv_cases(table: CsvTable, issues: Issues, result: ParseResult) -> dict[str, _CsvCase]:
    """The file's cases by id, in file order; a case's rows must be consecutive."""
    cases: dict[str, _CsvCase] = {}
    last_id = None
    for csv_row in table.rows:
        line, row = csv_row.line, csv_row.cells
        result.records += 1
        if csv_row.extra:
            issues.add(line, None, f"{len(csv_row.extra)} more cells than the header has columns")
        rec = Record(row, line, issues)
        external_id = rec.identifier("id")
        if not external_id:
            continue
        if external_id in cases and external_id != last_id:
            issues.add(line, "id", f"duplicate id {external_id!r}: the rows of a case must be "
                                   f"consecutive (first seen at line {cases[external_id].first_line})")
        last_id = external_id
        case = cases.setdefault(external_id, _CsvCase(first_line=line))
        case.merge(row, line, external_id, issues)
        if row.get("criterion", "").strip() or row.get("points", "").strip():
            case.criteria.append(_criterion(rec))
        case.rows.append(row)
    return cases


def parse_csv(data: bytes, file_name: str) -> ParseResult:
    issues = Issues(file_name)
    result = ParseResult(kind="cases")
    table = _csv_table(data, issues)
    cases = _csv_cases(table, issues, result) if table is not None else {}
    seen: dict[str, int] = {}
    for external_id, case in cases.items():
        rec = Record(case.columns, case.first_line, issues)
        check_duplicate(seen, external_id, case.first_line, issues, "id")
        result.cases.append(_case(rec, tuple(case.criteria), {"rows": case.rows}, {*CASE_FIELDS, *CRITERION_FIELDS}))
    result.issues = issues.items
    return result


def parse(data: bytes, file_name: str) -> ParseResult:
    if file_name.lower().endswith(".csv") or data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] not in (b"[", b"{"):
        return parse_csv(data, file_name)
    return parse_json(data, file_name)
