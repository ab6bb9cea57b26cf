"""OpenAI HealthBench JSONL: `{prompt_id, prompt, rubrics, example_tags, ...}` a line.

Rejected rubric items are dropped (or marked); the conversation and every other key are unchanged.
"""

from __future__ import annotations

from typing import Any

from cases.exporters.base import CaseDecision, CurationRules, dump_jsonl
from cases.exporters.rules import decide_rubric_case, rubric_counts
from cases.exporters.writer import Writer, add_review_keys, curated_items, raw_list
from cases.importers.base import ParsedCase


def build_record(case: ParsedCase) -> dict[str, Any]:
    """The record rebuilt from parsed fields (the axis lives in the tags, as in the source)."""
    rubrics = [{"criterion": c.text, "points": c.points, "tags": list(c.tags)} for c in case.criteria]
    return {**case.extra, "prompt_id": case.external_id, "prompt": case.conversation, "rubrics": rubrics}


def record(decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    case = decision.case
    items = raw_list(case, "rubrics")
    rec = dict(case.raw) if items is not None else build_record(case)
    rec["rubrics"] = curated_items(items if items is not None else rec["rubrics"], decision)
    return add_review_keys(rec, decision, rules, curation)


WRITER = Writer(
    format="healthbench",
    file_name=lambda name: f"{name}.jsonl",
    decide=decide_rubric_case,
    record=record,
    serialize=dump_jsonl,
    counts=rubric_counts,
)
