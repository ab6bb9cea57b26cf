"""LiveClin JSONL: one case report a line with its exam under `exam_creation.final_policy`.

Only validated question sets are written, their text unchanged; each line gains a
`physician_review` summary (status, every MCQ check's final label, history).
"""

from __future__ import annotations

from typing import Any

from cases.exporters.base import CaseDecision, CurationRules, dump_jsonl, outcome_dict
from cases.exporters.rules import decide_question_set, question_set_counts
from cases.exporters.writer import REVIEW_KEY, Writer, put
from cases.importers.base import ParsedCase

ID_KEYS = ("pmc", "pmid", "doi")


def build_record(case: ParsedCase) -> dict[str, Any]:
    """The line rebuilt from parsed fields: the id key is the one the source named (`source`)."""
    qs = case.question_set
    extra = dict(case.extra)
    policy: dict[str, Any] = dict(extra.pop("final_policy", {}) or {})
    if qs is not None:
        policy.update({
            "scenario": qs.scenario, "scenario_image_details": qs.scenario_images,
            "scenario_table_details": qs.scenario_tables,
            "mcqs": [{"stage": m.stage, "question": m.question, "options": m.options,
                      "correct_answer": m.correct_answer, "image_details": m.image_details,
                      "table_details": m.table_details} for m in qs.mcqs],
        })
    id_key = case.source.split(":", 1)[0] if case.source.split(":", 1)[0] in ID_KEYS else "pmc"
    record: dict[str, Any] = {**extra, id_key: case.external_id, "exam_creation": {"final_policy": policy}}
    if qs is not None and qs.report_source == "record":
        record["case_report"] = qs.case_report
    put(record, "Rarity", case.rarity)
    put(record, "Level1", case.icd_chapter)
    put(record, "Level2", case.disease_cluster)
    return record


def summary(decision: CaseDecision, curation: str) -> dict[str, Any]:
    review = decision.review
    mcqs = [] if review is None else [
        {"position": n, "checks": {check: outcome_dict(o) for check, o in sorted(review.mcqs[n].items())}}
        for n in sorted(review.mcqs)
    ]
    return {"curation": curation, "status": decision.status, "mcqs": mcqs,
            "history": list(review.history) if review else [],
            "events": [dict(e) for e in review.events] if review else [],
            "set_rejection": review.set_rejection or None if review else None}


def record(decision: CaseDecision, rules: CurationRules, curation: str) -> dict[str, Any]:
    case = decision.case
    usable = isinstance(case.raw, dict) and isinstance(case.raw.get("exam_creation"), dict)
    rec = dict(case.raw) if usable else build_record(case)
    rec[REVIEW_KEY] = summary(decision, curation)
    return rec


WRITER = Writer(
    format="liveclin",
    file_name=lambda name: f"{name}.jsonl",
    decide=decide_question_set,
    record=record,
    serialize=dump_jsonl,
    counts=question_set_counts,
)
