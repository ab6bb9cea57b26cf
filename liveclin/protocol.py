"""LiveClin's question-set review as a review protocol (Appendix G; the rules are in `liveclin.phases`).

A question-set review holding both checks is two screens of one assignment: phase 1 (auditor) with
the factual fields and the privileged source, then phase 2 (examinee) with the solvability fields
and nothing privileged. The form carries its phase (`annotation.protocols.PHASE_FIELD`), so a draft
save or a submit only touches that phase's fields (the other phase's labels stay in the draft), and
"continue" from phase 1 saves it and opens phase 2 once it is complete. Registered for question sets
by `liveclin.apps`.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from annotation.fields import Field
from annotation.models import Item, Study
from annotation.protocols import ReviewProtocol
from liveclin import inspection, judge_runs, phases
from liveclin.models import StudyJudgeRun


class QuestionSetReview(ReviewProtocol):
    def phases(self, item: Item, fields: list[Field]) -> list[str]:
        return phases.phases(item, fields)

    def current_phase(self, item: Item, fields: list[Field], values: dict[str, dict[str, Any]],
                      requested: str = "") -> str:
        return phases.current_phase(item, fields, values, requested)

    def phase_fields(self, fields: list[Field], phase: str) -> list[Field]:
        return phases.phase_fields(fields, phase) if phase else fields

    def marked_phase(self, fields: list[Field], marked: list[str]) -> str:
        first = next((f for f in fields if f.id in set(marked) and f.mcq is not None), None)
        return phases.phase_of(first) if first is not None else ""

    def phase_saved_message(self, phase: str) -> str:
        return _("Phase 1 saved. Phase 2: judge each question as an examinee would.")

    def rating_context(self, study: Study, item: Item, fields: list[Field], phase: str) -> dict[str, Any]:
        """Template variables of the phase banner, the privileged source (phase 1) and the pre-screen."""
        if not phase:
            return {}
        present = phases.phases(item, fields)
        shown = phases.phase_fields(fields, phase)
        following = present[present.index(phase) + 1] if present.index(phase) + 1 < len(present) else ""
        context: dict[str, Any] = {
            "liveclin_phase": phase,
            "liveclin_phases": present,
            "liveclin_next_phase": following,
            "prescreen": phases.prescreen_notes(study, item, shown),
        }
        if phase == phases.AUDITOR and item.question_set_id:
            context["auditor_source"] = phases.auditor_source(item.question_set, item.revision.source)
        return context

    def inspection_context(self, item: Item, fields: list[Field]) -> dict[str, Any]:
        """Inspectors are senior physicians checking both phases: the privileged source, every MCQ
        with its answer key, and the Judge when it matters (`liveclin.inspection`)."""
        if not item.question_set_id:
            return {}
        return inspection.inspection_context(item, fields)

    def content_body(self, item: Item, *, privileged: bool) -> dict[str, Any] | None:
        if not item.question_set_id:
            return None
        if privileged:
            return phases.auditor_content(item.question_set, item.revision.source)
        return phases.examinee_content(item.question_set)

    def prescreen_body(self, study: Study, item: Item, fields: list[Field]) -> dict[str, dict[str, str]]:
        notes = phases.prescreen_notes(study, item, fields)  # only when the study shows the pre-screen
        return {fid: {"verdict": n.label, "explanation": n.explanation} for fid, n in notes.items()}

    def study_started(self, study: Study, actor: Any) -> None:
        judge_runs.judge_run_pin_at_start(study, actor)

    def study_context(self, study: Study) -> dict[str, Any]:
        """The Judge run the study's quality check uses, when it was pinned, and later runs offered."""
        pin = StudyJudgeRun.objects.select_related("run").filter(study=study).first()
        run = pin.run if pin is not None else None
        return {"judge_run": run, "judge_run_pinned_at": pin.pinned_at if pin else None,
                "later_judge_runs": judge_runs.later_runs(study, run),
                "judge_run_pin_url": reverse("liveclin:study_judge_run", args=[study.pk])}

    def study_fields(self, studies: list[Study]) -> dict[int, dict[str, Any]]:
        pins = {p.study_id: p for p in StudyJudgeRun.objects.select_related("run").filter(study__in=studies)}
        return {s.pk: {"judge_run": {**judge_runs.run_dict(pins[s.pk].run), "pinned_at": pins[s.pk].pinned_at}
                       if s.pk in pins else None} for s in studies}
