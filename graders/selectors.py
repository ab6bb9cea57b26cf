"""Reads about grading jobs and their output that several views share.

Pairwise position bias lives in `agreement` (`agreement.metrics.pairwise_position_bias` over
`agreement.selectors.pairwise_run_frame`): only the reports use it.
"""

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from cases.models import Dataset, Release
from graders.models import (
    GraderDecision,
    GraderKind,
    GradingJob,
    JudgeScore,
    PairwiseJudgement,
    PairwiseVerdict,
    Verdict,
)


def job_list(jobs: QuerySet[GradingJob]) -> QuerySet[GradingJob]:
    return jobs.select_related("config", "created_by", "run", "prompt").order_by("-created_at", "-pk")


def with_selection_names(jobs: Iterable[GradingJob]) -> list[GradingJob]:
    """The jobs, each with `selection_kind` ("study", "release", "models") and `selection_name` (the
    study's or release's name, or the dataset's and models'), read in three queries for any number of
    jobs; pages put the kind in the reader's language and the name in its own."""
    from annotation.models import Study

    jobs = list(jobs)
    wanted: dict[str, set[int]] = {"study": set(), "release": set(), "dataset": set()}
    for job in jobs:
        for key, ids in wanted.items():
            if isinstance(job.selection.get(key), int):
                ids.add(job.selection[key])
    names = {
        "study": dict(Study.objects.filter(pk__in=wanted["study"]).values_list("pk", "name")),
        "release": {r.pk: r.names for r in Release.objects.select_related("dataset").filter(pk__in=wanted["release"])},
        "dataset": dict(Dataset.objects.filter(pk__in=wanted["dataset"]).values_list("pk", "name")),
    }
    for job in jobs:
        selection = job.selection
        kind = next((k for k in ("study", "release") if k in selection), "models")
        key = "dataset" if kind == "models" else kind
        job.selection_kind = kind
        job.selection_name = names[key].get(selection.get(key), f"#{selection.get(key)}")
        job.selection_models = ", ".join(selection.get("models") or [])
    return jobs


def job_problem_answers(job: GradingJob, *, limit: int = 20) -> list[dict[str, Any]]:
    """The latest invalid or failed answers of a job, with their raw output and error (for the job page):
    what was asked (`model`, and `criterion` + `text`, `axis`, or `model_b` + `order`), `status` as shown."""
    kind = job.run.kind
    if kind == GraderKind.RUBRIC_GRADER:
        qs = GraderDecision.objects.filter(run_id=job.run_id, verdict__in=(Verdict.INVALID, Verdict.FAILED))
        qs = qs.select_related("response", "criterion")
        return [
            {"model": d.response.model_name, "criterion": d.criterion.order, "text": d.criterion.text[:120],
             "status": Verdict(d.verdict).label, "raw_output": d.raw_output, "error": d.error,
             "attempts": d.attempts}
            for d in qs.order_by("-pk")[:limit]
        ]
    if kind == GraderKind.PAIRWISE_JUDGE:
        qs = PairwiseJudgement.objects.filter(
            run_id=job.run_id, verdict__in=(PairwiseVerdict.INVALID, PairwiseVerdict.FAILED)
        ).select_related("response_a", "response_b")
        return [
            {"model": p.response_a.model_name, "model_b": p.response_b.model_name,
             "order": PairwiseJudgement.Order(p.order).label, "status": PairwiseVerdict(p.verdict).label,
             "raw_output": p.raw_output, "error": p.error, "attempts": p.attempts}
            for p in qs.order_by("-pk")[:limit]
        ]
    qs = JudgeScore.objects.filter(run_id=job.run_id, status__in=(Verdict.INVALID, Verdict.FAILED))
    return [
        {"model": s.response.model_name, "axis": s.axis, "status": Verdict(s.status).label,
         "raw_output": s.raw_output, "error": s.error, "attempts": s.attempts}
        for s in qs.select_related("response").order_by("-pk")[:limit]
    ]
