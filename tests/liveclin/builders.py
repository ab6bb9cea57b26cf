"""A LiveClin release with case reports, captions and Judge verdicts, and a two-phase study over it.
Marker strings in the report and the captions let tests search whole response bodies for leaks."""

from __future__ import annotations

import json

from accounts.models import Rank
from annotation.models import Study, StudyMember
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from cases.models import Release
from cases.services import release_import

REPORT_MARKER = "REPORT-MARKER"
CAPTION_MARKER = "CAPTION-MARKER"


def _mcq(n: int, position: int) -> dict:
    images = [{"caption": f"{CAPTION_MARKER}-{n} adrenal mass", "type": "CT", "url": f"https://example.org/{n}.png"}]
    return {"stage": f"Step {position}", "question": f"Set {n}, question {position}: which option?",
            "options": {"A": f"Option A{position}", "B": f"Option B{position}"}, "correct_answer": "B",
            "image_details": images if position == 2 else [], "table_details": []}


def liveclin_record(n: int, *, report: bool = True, mcqs: int = 2) -> dict:
    record = {
        "pmc": f"PMC-QC-{n}", "Rarity": "Rare", "Level1": "Chapter 4", "Level2": "Adrenal disorders",
        "exam_creation": {"final_policy": {
            "scenario": f"Scenario {n}: a 29-year-old with episodic headaches and palpitations.",
            "scenario_image_details": [
                {"caption": f"{CAPTION_MARKER}-S{n} chest film", "type": "X-ray", "url": f"https://example.org/s{n}.png"},
            ],
            "scenario_table_details": [],
            "mcqs": [_mcq(n, position) for position in range(1, mcqs + 1)],
        }},
    }
    if report:
        record["case_report"] = f"# Case report {n}\n\n{REPORT_MARKER}-{n}: the full source report."
    return record


def jsonl(records: list[dict]) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def judge_block(factual: bool = True, solvable: bool = True, why: str = "checked against the report") -> dict:
    return {"factual_validation": {"is_factually_correct": factual, "explanation": why},
            "logical_solvability": {"is_logically_solvable": solvable, "explanation": "deducible"}}


def import_liveclin(n: int = 2, *, judge: list[dict] | None = None, label: str = "2025H1", mcqs: int = 2) -> Release:
    report = release_import(fmt="liveclin", data=jsonl([liveclin_record(i, mcqs=mcqs) for i in range(1, n + 1)]),
                            file_name=f"liveclin_{label}.jsonl", dataset_name="LiveClin", release_label=label)
    assert report.status == "imported", report.errors
    if judge is not None:
        judged = release_import(fmt="liveclin-judge", data=jsonl(judge), file_name=f"judge_{label}.jsonl",
                                dataset_name="LiveClin", release_label=f"{label}-judge", grader_model="o3")
        assert judged.status == "imported", judged.errors
    return Release.objects.get(pk=report.release_id)


def liveclin_study(admin, raters: list, *, inspectors: list = (), tasks: tuple[str, ...] = ("mcq-factual", "mcq-solvability"),
                   label: str = "2025H1", min_inspector_rank: str = "", show_prescreen: bool = False,
                   raters_per_item: int = 2) -> Study:
    study = study_create(
        name=f"LiveClin {label}", created_by=admin, task_slugs=list(tasks),
        selection=ItemSelection(kind="question_set", dataset="LiveClin", release_label=label),
        raters_per_item=raters_per_item, inspect_all=True, min_inspector_rank=min_inspector_rank,
        show_prescreen=show_prescreen, seed=7,
    )
    study_add_members(study=study, users=list(raters), role=StudyMember.Role.RATER, actor=admin)
    if inspectors:
        study_add_members(study=study, users=list(inspectors), role=StudyMember.Role.INSPECTOR, actor=admin)
    return study_start(study=study, actor=admin)


SENIOR = Rank.ASSOCIATE_CHIEF
