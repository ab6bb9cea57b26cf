"""LiveMedBench `merged_data_rubric.json`: a JSON list of cases with `rubric_items`.

The curated file keeps every source key (LiveMedBench's `evaluate_model.py` reads `case_id`,
`narrative`, `core_request` and `rubric_items` and ignores the rest), drops rejected criteria or
marks them `"physician_validity": "disagree"`, and adds `physician_flags` / `physician_review`.
"""

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
    """The record rebuilt from parsed fields, for when the raw record cannot be used."""
    record: dict[str, Any] = {"case_id": case.external_id, "narrative": case.narrative,
                              "core_request": case.core_request}
    put(record, "post_time", iso_time(case))
    put(record, "doctor_advice", case.doctor_advice)
    record["rubric_items"] = [criterion_dict(c, "axe") for c in case.criteria]
    return {**case.extra, **record}


def record(decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    return rubric_record(decision, rules, curation, key="rubric_items", build=build_record)


WRITER = Writer(
    format="livemedbench",
    file_name=lambda name: "merged_data_rubric.json",
    decide=decide_rubric_case,
    record=record,
    serialize=dump_json,
    counts=rubric_counts,
)
