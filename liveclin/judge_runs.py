"""The Judge run a study's quality check uses: pinned when the study starts, changed only by an admin.

Reads: a study's pinned run (`pinned_run`), the runs that screened its sets after it (`later_runs`,
offered on the study page and the report), the Judge's verdicts on one set from the pinned run
(`study_verdicts`: what raters and inspectors are shown), and which run a release's report uses
(`release_judge_run`). Writes: `judge_run_pin_at_start` (the study-start hook) and
`study_judge_run_pin` (an admin's change, which re-queues decisions the new run puts in doubt).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.access import check_can_manage_studies
from annotation.inspection.services import requeue_in
from annotation.models import FinalLabel, Item, ItemKind, ReviewEvent, Study, TaskTarget
from graders.models import GraderKind, GraderRun, QuestionSetJudgement, Verdict
from liveclin.models import StudyJudgeRun

FACTUAL = "factual"
SOLVABILITY = "solvability"


def covering_runs(set_ids: list[int] | QuerySet) -> QuerySet[GraderRun]:
    """Question-set judge runs that judged any of these sets, newest first."""
    return (GraderRun.objects.filter(kind=GraderKind.QUESTION_SET_JUDGE, question_set_judgements__question_set_id__in=set_ids)
            .distinct().order_by("-created_at", "-pk"))


def _study_sets(study: Study) -> QuerySet:
    return Item.objects.filter(study=study, question_set__isnull=False).values("question_set_id")


def pinned_run(study: Study) -> GraderRun | None:
    pin = StudyJudgeRun.objects.select_related("run").filter(study=study).first()
    return pin.run if pin is not None else None


def later_runs(study: Study, run: GraderRun | None) -> list[GraderRun]:
    """Runs over the study's sets newer than its pinned one (all of them when none is pinned)."""
    runs = covering_runs(_study_sets(study))
    if run is not None:
        runs = runs.filter(created_at__gte=run.created_at).exclude(pk=run.pk)
    return list(runs)


def study_verdicts(study: Study, question_set_id: int) -> dict[int, dict[str, Any]]:
    """{MCQ id: check block} of the pinned run's answer on this set ({} when none: no run pinned,
    the set not screened by it, or the call failed)."""
    pin = StudyJudgeRun.objects.filter(study=study).values_list("run_id", flat=True).first()
    if pin is None:
        return {}
    judgement = (QuestionSetJudgement.objects.filter(run_id=pin, question_set_id=question_set_id)
                 .exclude(verdict=Verdict.FAILED).only("checks").first())
    return {int(block["mcq"]): block for block in judgement.checks or []} if judgement else {}


def flags(verdicts: dict[int, dict[str, Any]], mcq_ids: list[int]) -> set[tuple[int, str]]:
    """(MCQ id, check) the Judge did not pass (a "no", an invalid answer, or a missing block of a
    screened set); nothing when the set was not screened."""
    if not verdicts:
        return set()
    return {(m, check) for m in mcq_ids for check in (FACTUAL, SOLVABILITY)
            if (verdicts.get(m) or {}).get(check) is not True}


# --- a release's report --------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportRun:
    """The run a release's quality report uses and why: `asked` (?run=), `pinned` (by the studies
    reviewing the release; the newest when they pin different ones), `latest` (no study pins one)."""

    run: GraderRun | None
    basis: str
    later: list[GraderRun] = field(default_factory=list)
    studies: list[dict[str, Any]] = field(default_factory=list)  # each reviewing study's options and pin

    def run_dict(self) -> dict[str, Any] | None:
        return None if self.run is None else {**run_dict(self.run), "basis": self.basis}


def run_dict(run: GraderRun) -> dict[str, Any]:
    return {"id": run.pk, "name": run.name, "grader_model": run.grader_model,
            "created_at": run.created_at.isoformat()}


def _reviewing_studies(set_ids: list[int]) -> list[dict[str, Any]]:
    studies = Study.objects.filter(items__question_set_id__in=set_ids).distinct().order_by("pk")
    pins = dict(StudyJudgeRun.objects.filter(study__in=studies).values_list("study_id", "run_id"))
    return [{"id": s.pk, "name": s.name, "show_prescreen": s.show_prescreen,
             "min_inspector_rank": s.min_inspector_rank, "judge_run": pins.get(s.pk)} for s in studies]


def release_judge_run(set_ids: list[int], run_id: int | None = None) -> ReportRun:
    studies = _reviewing_studies(set_ids)
    runs = covering_runs(set_ids)
    if run_id is not None:
        run, basis = runs.filter(pk=run_id).first(), "asked"
    else:
        pinned = [s["judge_run"] for s in studies if s["judge_run"]]
        run = runs.filter(pk__in=pinned).first() if pinned else runs.first()
        basis = "pinned" if pinned else "latest"
    later = list(runs.filter(created_at__gte=run.created_at).exclude(pk=run.pk)) if run is not None else []
    return ReportRun(run=run, basis=basis, later=later, studies=studies)


# --- writes --------------------------------------------------------------------------------------


def _record_pin(study: Study, run: GraderRun, actor: AbstractBaseUser | None, previous: GraderRun | None,
                requeued: list[int]) -> None:
    ReviewEvent.objects.record(
        study=study, item=None, actor=actor, kind=ReviewEvent.Kind.JUDGE_RUN_PINNED, reason=run.name,
        data={"run": run.pk, "previous_run": previous.pk if previous else None, "requeued_items": requeued},
    )


def judge_run_pin_at_start(study: Study, actor: AbstractBaseUser) -> None:
    """The study-start hook (inside `study_start`'s transaction): pin the newest run over its sets."""
    run = covering_runs(_study_sets(study)).first()
    if run is None or StudyJudgeRun.objects.filter(study=study).exists():
        return
    StudyJudgeRun.objects.create(study=study, run=run, pinned_by=actor)
    _record_pin(study, run, actor, None, [])


def _decided_items_put_in_doubt(study: Study, old: GraderRun | None, new: GraderRun) -> list[Item]:
    """Resolved items where the new run flags a check the old one did not, and whose final label of
    that check is not already "no" (a "no" rejects the set whatever the Judge says)."""
    items = list(Item.objects.filter(study=study, kind=ItemKind.QUESTION_SET, status=Item.Status.RESOLVED,
                                     question_set__isnull=False).prefetch_related("question_set__mcqs"))
    new_blocks = _blocks(new, [i.question_set_id for i in items])
    old_blocks = _blocks(old, [i.question_set_id for i in items]) if old is not None else {}
    finals = {
        (item_id, mcq_id, FACTUAL if privileged else SOLVABILITY): label
        for item_id, mcq_id, privileged, label in FinalLabel.objects.filter(
            item__in=items, task__target=TaskTarget.MCQ, mcq__isnull=False,
        ).values_list("item_id", "mcq_id", "task__shows_privileged_source", "label")
    }
    doubtful = []
    for item in items:
        mcq_ids = [m.pk for m in item.question_set.mcqs.all()]
        added = flags(new_blocks.get(item.question_set_id, {}), mcq_ids) - flags(
            old_blocks.get(item.question_set_id, {}), mcq_ids)
        if any(finals.get((item.pk, m, check)) != "no" for m, check in added):
            doubtful.append(item)
    return doubtful


def _blocks(run: GraderRun, set_ids: list[int]) -> dict[int, dict[int, dict[str, Any]]]:
    out: dict[int, dict[int, dict[str, Any]]] = {}
    for set_id, checks in QuestionSetJudgement.objects.filter(run=run, question_set_id__in=set_ids).exclude(
        verdict=Verdict.FAILED
    ).values_list("question_set_id", "checks"):
        out[set_id] = {int(b["mcq"]): b for b in checks or []}
    return out


def study_judge_run_pin(*, study: Study, run: GraderRun, actor: AbstractBaseUser) -> list[Item]:
    """Pin another Judge run for the study (admins). Every set already decided on which the new run
    raises a flag the old one did not goes back to inspection, its final labels taken off (kept in
    the event): a decision made before a flag existed never clears it. Returns those items."""
    check_can_manage_studies(actor)
    if run.kind != GraderKind.QUESTION_SET_JUDGE or not covering_runs(_study_sets(study)).filter(pk=run.pk).exists():
        raise ValidationError({"run": _("run: Judge run %(id)s did not screen this study's question sets.") % {"id": run.pk}})
    # Why atomic: the pin, its event and every re-queued item (each locked by `requeue_in`) change
    # together; locks the study's pin row so two admins cannot pin at once.
    with transaction.atomic():
        pin = StudyJudgeRun.objects.select_for_update().select_related("run").filter(study=study).first()
        previous = pin.run if pin is not None else None
        if previous is not None and previous.pk == run.pk:
            return []
        doubtful = _decided_items_put_in_doubt(study, previous, run)
        for item in doubtful:
            requeue_in(item, actor=actor, why="judge_flag", reason=run.name,
                       data={"judge_run": run.pk, "previous_judge_run": previous.pk if previous else None})
        StudyJudgeRun.objects.update_or_create(study=study, defaults={"run": run, "pinned_by": actor,
                                                                     "pinned_at": timezone.now()})
        _record_pin(study, run, actor, previous, [i.pk for i in doubtful])
    return doubtful
