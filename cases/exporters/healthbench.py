"""OpenAI HealthBench JSONL: `{prompt_id, prompt, rubrics, example_tags, ...}` a line.

Rejected rubric items are dropped (or marked); the conversation and every other key are unchanged.
"""

from __future__ import annotations

from typing import Any

from cases.exporters.base import CaseDecision, CurationRules, dump_jsonl
from cases.exporters.rules import decide_rubric_case, rubric_counts
from cases.exporters.writer import Writer, rubric_record
from cases.importers.base import ParsedCase


def build_record(case: ParsedCase) -> dict[str, Any]:
    """The record rebuilt from parsed fields (the axis lives in the tags, as in the source)."""
    rubrics = [{"criterion": c.text, "points": c.points, "tags": list(c.tags)} for c in case.criteria]
    return {**case.extra, "prompt_id": case.external_id, "prompt": case.conversation, "rubrics": rubrics}


def record(decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    return rubric_record(decision, rules, curation, key="rubrics", build=build_record)


WRITER = Writer(
    format="healthbench",
    file_name=lambda name: f"{name}.jsonl",
    decide=decide_rubric_case,
    record=record,
    serialize=dump_jsonl,
    counts=rubric_counts,
)
