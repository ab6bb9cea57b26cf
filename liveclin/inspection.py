"""What the inspection page shows of a LiveClin question set (Sec. 3.4, Appendix G, issue 20).

Inspectors are senior physicians checking both phases, so they read everything the decision rests
on: the source report and its captions, every MCQ with its options and answer key, each rater's
verdicts and explanations (the generic table), and the Judge's verdicts with their explanations
when the study shows the pre-screen or the study's pinned Judge run flagged the set (the
conservatism rule counts an inspector's "yes" as resolving that flag, so they must see it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.fields import Field
from annotation.models import Item
from cases.models import MCQ
from liveclin import phases
from liveclin.judge_runs import FACTUAL, SOLVABILITY, flags, pinned_run, study_verdicts


@dataclass(frozen=True)
class McqEvidence:
    mcq: MCQ  # shown with its image captions: inspectors see the privileged view
    judge: dict[str, phases.PrescreenNote]  # check -> the Judge's verdict, when shown


def _note(block: dict[str, Any] | None, check: str) -> phases.PrescreenNote | None:
    if block is None:
        return None
    value = block.get(check)
    return phases.PrescreenNote(value if isinstance(value, bool) else None, str(block.get(f"{check}_explanation") or ""))


def inspection_context(item: Item, fields: list[Field]) -> dict[str, Any]:
    study = item.study
    source = phases.auditor_source(item.question_set, item.revision.source)
    mcqs = list(item.question_set.mcqs.order_by("order"))
    verdicts = study_verdicts(study, item.question_set_id)
    judge_flagged = bool(flags(verdicts, [m.pk for m in mcqs]))
    shown = bool(verdicts) and (study.show_prescreen or judge_flagged)
    evidence = [
        McqEvidence(
            mcq=m,
            judge={c: n for c in (FACTUAL, SOLVABILITY) if (n := _note(verdicts.get(m.pk), c))} if shown else {},
        )
        for m in mcqs
    ]
    return {
        "show_privileged": True,
        "auditor_source": source,
        "mcq_evidence": evidence,
        "judge_notes": phases.notes_for(verdicts, fields) if shown else {},
        "judge_flagged": judge_flagged,
        "judge_run": pinned_run(study) if shown else None,
        "can_reject_set": True,
        "phase_of": {f.id: phases.phase_of(f) for f in fields if f.mcq is not None},
    }
