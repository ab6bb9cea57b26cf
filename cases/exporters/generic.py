"""The generic (ClinConsensus-style) format, always written as JSON (a CSV source is rebuilt from
its parsed fields: one record per case with its `criteria` list, as docs/formats.md specifies)."""

from __future__ import annotations

from typing import Any

from cases.exporters.base import CaseDecision, CurationRules, dump_json
from cases.exporters.rules import decide_rubric_case, rubric_counts
from cases.exporters.writer import (
    Writer,
    criterion_dict,
    iso_time,
    put,
    rubric_record,
)
from cases.importers.base import ParsedCase


def build_record(case: ParsedCase) -> dict[str, Any]:
    record: dict[str, Any] = {"id": case.external_id, "narrative": case.narrative}
    for key, value in (
        ("language", case.language), ("post_time", iso_time(case)), ("query", case.core_request),
        ("reference_answer", case.doctor_advice), ("specialties", case.specialties), ("themes", case.themes),
        ("difficulty", case.difficulty), ("register", case.register), ("icd_chapter", case.icd_chapter),
        ("disease_cluster", case.disease_cluster), ("rarity", case.rarity), ("source", case.source),
    ):
        put(record, key, value)
    record["criteria"] = [criterion_dict(c, "axis") for c in case.criteria]
    return {**case.extra, **record}


def record(decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    return rubric_record(decision, rules, curation, key="criteria", build=build_record)


WRITER = Writer(
    format="generic",
    file_name=lambda name: f"{name}.json",
    decide=decide_rubric_case,
    record=record,
    serialize=dump_json,
    counts=rubric_counts,
)
