"""The question-set judge: LiveClin's Judge agent (Sec. 3.4, Appendix G) as a grader kind.

One call per question set; the answer holds, per MCQ, a factual validation and a logical
solvability verdict with explanations, stored as one `QuestionSetJudgement` (its `checks` list,
one block per MCQ). Imported `liveclin-judge` files and grading jobs write the same rows, so the
quality-check reports read both alike. A unit key is `(question_set_id,)`, matching the row's
unique constraint (run, question set): a stored answer is never asked again on resume.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.db.models import F, QuerySet

from cases import bulk
from cases.importers.liveclin_judge import ParsedJudgeMCQ, ParsedJudgement
from cases.models import MCQ, QuestionSet, Release
from graders.kinds import prompts
from graders.models import GraderKind, GraderRun, QuestionSetJudgement, Verdict

UnitKey = tuple[Any, ...]


def selection_question_sets(selection: dict[str, Any]) -> QuerySet[QuestionSet]:
    """The question sets a selection covers: a study's items, a release's sets, or a dataset's current sets."""
    if "study" in selection:
        from annotation.models import Item

        return QuestionSet.objects.filter(
            pk__in=Item.objects.filter(study_id=selection["study"]).values("question_set_id")
        )
    if "release" in selection:
        return QuestionSet.objects.filter(revision__release_id=selection["release"])
    if "dataset" in selection:
        return QuestionSet.objects.filter(
            revision__case__dataset_id=selection["dataset"], revision__case__current_revision_id=F("revision_id")
        )
    return QuestionSet.objects.none()


def all_units(selection: dict[str, Any]) -> list[UnitKey]:
    return [(pk,) for pk in selection_question_sets(selection).order_by("pk").values_list("pk", flat=True)]


def stored_units(run: GraderRun, *, among: list[UnitKey] | None = None) -> set[UnitKey]:
    rows = QuestionSetJudgement.objects.filter(run=run)
    if among is not None:
        rows = rows.filter(question_set_id__in={k[0] for k in among})
    return {(pk,) for pk in rows.values_list("question_set_id", flat=True)}


def _mcq_dict(m: MCQ) -> dict[str, Any]:
    return {"stage": m.stage, "question": m.question, "options": m.options, "correct_answer": m.correct_answer,
            "image_details": m.image_details, "table_details": m.table_details}


def build_messages(template: str, keys: list[UnitKey]) -> list[tuple[UnitKey, list[dict[str, str]], list[int]]]:
    """(key, chat messages, MCQ ids in order) per unit; two queries whatever the number of units."""
    sets = QuestionSet.objects.in_bulk({k[0] for k in keys})
    mcqs: dict[int, list[MCQ]] = {}
    for m in MCQ.objects.filter(question_set_id__in=list(sets)).order_by("question_set_id", "order"):
        mcqs.setdefault(m.question_set_id, []).append(m)
    out = []
    for key in keys:
        qs = sets[key[0]]
        items = mcqs.get(qs.pk, [])
        values = prompts.question_set_values(
            scenario=qs.scenario, case_report=qs.case_report, captions=list(qs.captions or []),
            mcqs=[_mcq_dict(m) for m in items], scenario_images=qs.scenario_images,
            scenario_tables=qs.scenario_tables,
        )
        out.append((key, prompts.render(template, values), [m.pk for m in items]))
    return out


def checks_json(mcqs: Mapping[int, ParsedJudgeMCQ], mcq_ids: Sequence[int]) -> list[dict[str, Any]]:
    """One block per MCQ the Judge answered for, keyed by MCQ id and position."""
    return [
        {
            "mcq": mcq_ids[position - 1], "position": position,
            "factual": m.factual.passed, "factual_explanation": m.factual.explanation,
            "solvability": m.solvability.passed, "solvability_explanation": m.solvability.explanation,
        }
        for position, m in sorted(mcqs.items())
        if 0 < position <= len(mcq_ids)
    ]


def verdict_of(mcqs: Mapping[int, ParsedJudgeMCQ], count: int, error: str) -> str:
    """met: every check of every MCQ passed; not_met: the Judge flagged one; invalid: unreadable."""
    if error:
        return Verdict.INVALID
    passed = len(mcqs) == count and all(m.factual.passed and m.solvability.passed for m in mcqs.values())
    return Verdict.MET if passed else Verdict.NOT_MET


def judgement_row(key: UnitKey, mcq_ids: list[int], text: str, ok: bool, error: str, common: dict[str, Any]) -> tuple[QuestionSetJudgement, str]:
    """The row for one answer of a grading job (`common` holds run, raw output, tokens, latency)."""
    if not ok:
        return QuestionSetJudgement(question_set_id=key[0], verdict=Verdict.FAILED, checks=[], error=error,
                                    **common), Verdict.FAILED
    parsed = prompts.parse_question_set_judge(text, mcq_count=len(mcq_ids))
    verdict = verdict_of(parsed.mcqs, len(mcq_ids), parsed.error)
    return QuestionSetJudgement(
        question_set_id=key[0], verdict=verdict, checks=checks_json(parsed.mcqs, mcq_ids), error=parsed.error,
        reasoning="", **common,
    ), verdict


def question_set_judgements_import(
    *,
    release: Release,
    grader_model: str,
    judgements: Sequence[tuple[ParsedJudgement, int, list[int]]],
) -> int:
    """Write an imported `liveclin-judge` file as one run; runs inside the import's transaction."""
    run = GraderRun.objects.create(
        name=f"{grader_model} Judge pre-screen ({release.label})", kind=GraderKind.QUESTION_SET_JUDGE,
        grader_model=grader_model, release=release,
    )
    rows = []
    for judgement, set_id, mcq_ids in judgements:
        mcqs = {m.position: m for m in judgement.mcqs}
        invalid = [f"MCQ {m.position}" for m in judgement.mcqs if not (m.factual.valid and m.solvability.valid)]
        error = f"not a boolean verdict: {', '.join(invalid)}" if invalid else ""
        rows.append(QuestionSetJudgement(
            run_id=run.pk, question_set_id=set_id, verdict=verdict_of(mcqs, len(mcq_ids), error),
            checks=checks_json(mcqs, mcq_ids), error=error,
            raw_output=json.dumps(judgement.raw, ensure_ascii=False),
        ))
    bulk.insert(rows)
    return run.pk


def passed_prescreen_revisions(revision_ids: set[int]) -> set[int]:
    """The item-selection filter "passed the pre-screen": revisions whose question set's latest Judge
    verdict (the newest question-set judge run that judged it) passed every check."""
    latest: dict[int, tuple[int, int, str]] = {}
    for revision_id, run_id, pk, verdict in QuestionSetJudgement.objects.filter(
        question_set__revision_id__in=revision_ids
    ).values_list("question_set__revision_id", "run_id", "pk", "verdict"):
        if revision_id not in latest or (run_id, pk) > latest[revision_id][:2]:
            latest[revision_id] = (run_id, pk, verdict)
    return {rid for rid, (_, _, verdict) in latest.items() if verdict == Verdict.MET}
