"""LiveClin's two information views (Appendix G), in the paper's order, for one question-set review.

Phase 1, the **auditor** (factual validation): the source case report, the image captions, the
scenario and every MCQ with its correct answer. Phase 2, the **examinee** (logical solvability), on
its own screen once phase 1 is complete: the scenario, question stems, images *without* captions,
the correct answer of the question being judged and the answers of previous steps; never the report
and never a caption, in the page or the API response.

A study holding only one of the two checks has one phase. Tasks say which view they belong to with
`TaskType.shows_privileged_source` (factual: yes; solvability: no). The phases share one assignment
and one draft (drafts merge), and one submission at the end writes every rating.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from annotation.fields import Field, strip_captions
from annotation.models import Assignment, Item, ItemKind, Study, TaskTarget
from cases.importers.liveclin import source_url
from cases.models import MCQ, QuestionSet
from liveclin.judge_runs import study_verdicts
from medreview.errors import ConflictError

AUDITOR = "auditor"
EXAMINEE = "examinee"
PHASES = (AUDITOR, EXAMINEE)
PHASE_NAMES = {AUDITOR: "Phase 1 · auditor (factual validation)", EXAMINEE: "Phase 2 · examinee (logical solvability)"}


def phase_of(field: Field) -> str:
    return AUDITOR if field.task.shows_privileged_source else EXAMINEE


def is_question_set_review(item: Item, fields: list[Field]) -> bool:
    return item.kind == ItemKind.QUESTION_SET and any(f.task.target == TaskTarget.MCQ for f in fields)


def phases(item: Item, fields: list[Field]) -> list[str]:
    """The phases this item's review has, in order (empty for anything but a question set)."""
    if not is_question_set_review(item, fields):
        return []
    present = {phase_of(f) for f in fields}
    return [p for p in PHASES if p in present]


def phase_fields(fields: list[Field], phase: str) -> list[Field]:
    return [f for f in fields if phase_of(f) == phase]


def field_complete(field: Field, value: dict[str, Any] | None) -> bool:
    """A label, and the explanation a "no" needs (the same rule the submission applies)."""
    if not value or not value.get("label"):
        return False
    category = field.category(value["label"])
    needs_reason = field.task.requires_explanation and category is not None and not category.approves
    return not needs_reason or bool((value.get("comment") or "").strip())


def incomplete(fields: list[Field], values: dict[str, dict[str, Any]]) -> list[Field]:
    return [f for f in fields if not field_complete(f, values.get(f.id))]


def current_phase(item: Item, fields: list[Field], values: dict[str, dict[str, Any]], requested: str = "") -> str:
    """The phase to show: the one asked for, else the first with work left (the last when all are
    complete). Phase 2 before phase 1 is complete is a conflict (409): the examinee view comes after."""
    present = phases(item, fields)
    if not present:
        return ""
    if requested and requested not in present:
        raise ConflictError(_("This review has no %(phase)s phase.") % {"phase": requested})
    if requested == EXAMINEE and AUDITOR in present and incomplete(phase_fields(fields, AUDITOR), values):
        raise ConflictError(_("Phase 2 (examinee) opens once every factual verdict of phase 1 is given "
                              "(with an explanation for each 'no')."))
    if requested:
        return requested
    return next((p for p in present if incomplete(phase_fields(fields, p), values)), present[-1])


def assignment_values(assignment: Assignment) -> dict[str, dict[str, Any]]:
    """The labels the phases are judged on: the draft while editable (it holds both phases' work)."""
    return dict(assignment.draft or {})


# --- what each phase shows -----------------------------------------------------------------------


@dataclass(frozen=True)
class AuditorSource:
    """The privileged material of phase 1: the report (or where to read it) and the captions."""

    case_report: str
    report_source: str  # "record", "side file", "" when missing
    source_url: str
    scenario_captions: list[str]
    mcq_captions: dict[int, list[str]]  # MCQ position (= MCQ.order, from 1) -> captions


def auditor_source(question_set: QuestionSet, source: str) -> AuditorSource:
    by_mcq: dict[int, list[str]] = defaultdict(list)
    for caption in question_set.captions or []:
        by_mcq[int(caption.get("mcq", 0))].append(str(caption.get("caption", "")))
    return AuditorSource(
        case_report=question_set.case_report,
        report_source=question_set.report_source,
        source_url=source_url(source),
        scenario_captions=by_mcq.pop(0, []),
        mcq_captions=dict(by_mcq),
    )


@dataclass(frozen=True)
class ExamineeStep:
    """One MCQ as the examinee sees it when judging question `step` or a later one."""

    mcq: MCQ
    step: int  # 1-based
    correct_answer: str
    image_details: Any  # without captions


def examinee_steps(question_set: QuestionSet) -> list[ExamineeStep]:
    """Every MCQ without image captions, with its answer: judging question n, the examinee reads
    questions 1..n and their answers (the page reveals them step by step)."""
    return [
        ExamineeStep(mcq=m, step=n, correct_answer=m.correct_answer, image_details=strip_captions(m.image_details))
        for n, m in enumerate(question_set.mcqs.order_by("order"), start=1)
    ]


def examinee_content(question_set: QuestionSet) -> dict[str, Any]:
    """The API body of the examinee phase: no report, no captions, nothing from the source record."""
    return {
        "scenario": question_set.scenario,
        "scenario_images": strip_captions(question_set.scenario_images),
        "scenario_tables": question_set.scenario_tables,
        "mcqs": [
            {"id": s.mcq.pk, "order": s.mcq.order, "step": s.step, "stage": s.mcq.stage, "question": s.mcq.question,
             "options": s.mcq.options, "correct_answer": s.correct_answer, "image_details": s.image_details,
             "table_details": s.mcq.table_details}
            for s in examinee_steps(question_set)
        ],
    }


def auditor_content(question_set: QuestionSet, source: str) -> dict[str, Any]:
    """The API body of the auditor phase: everything, the privileged source included."""
    privileged = auditor_source(question_set, source)
    return {
        "scenario": question_set.scenario,
        "scenario_images": question_set.scenario_images,
        "scenario_tables": question_set.scenario_tables,
        "case_report": privileged.case_report,
        "case_report_source": privileged.report_source,
        "source_url": privileged.source_url,
        "image_captions": list(question_set.captions or []),
        "mcqs": [
            {"id": m.pk, "order": m.order, "stage": m.stage, "question": m.question, "options": m.options,
             "correct_answer": m.correct_answer, "image_details": m.image_details, "table_details": m.table_details}
            for m in question_set.mcqs.order_by("order")
        ],
    }


# --- the Judge's pre-screen next to each question (study option "show the pre-screen") -----------

@dataclass(frozen=True)
class PrescreenNote:
    """The Judge's verdict on one check of one MCQ, shown beside that question (Sec. 5: the
    "structured audit trail"). `passed` None: the Judge's output was not a clear yes / no."""

    passed: bool | None
    explanation: str

    @property
    def label(self) -> str:
        return {True: "yes", False: "no", None: "unclear"}[self.passed]


def prescreen_notes(study: Study, item: Item, fields: list[Field]) -> dict[str, PrescreenNote]:
    """{field id: note} for the MCQ fields shown, when the study shows the pre-screen: the verdicts of
    the study's pinned Judge run (`liveclin.judge_runs`), never a later run nobody chose."""
    if not study.show_prescreen or not item.question_set_id:
        return {}
    return notes_for(study_verdicts(study, item.question_set_id), fields)


def notes_for(verdicts: dict[int, dict[str, Any]], fields: list[Field]) -> dict[str, PrescreenNote]:
    """Each MCQ field gets the verdict of its own check (factual beside factual, solvability beside
    solvability)."""
    notes = {}
    for f in fields:
        block = verdicts.get(f.mcq.pk) if f.mcq is not None else None
        if block is None:
            continue
        check = "factual" if f.task.shows_privileged_source else "solvability"
        value = block.get(check)
        notes[f.id] = PrescreenNote(value if isinstance(value, bool) else None, str(block.get(f"{check}_explanation") or ""))
    return notes
