"""Reads about grading jobs and their output that several views share.

Pairwise position bias lives in `agreement` (`agreement.metrics.pairwise_position_bias` over
`agreement.selectors.pairwise_run_frame`): only the reports use it.
"""

from typing import Any

from django.db.models import QuerySet

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


def job_problem_answers(job: GradingJob, *, limit: int = 20) -> list[dict[str, Any]]:
    """The latest invalid or failed answers of a job, with their raw output and error (for the job page)."""
    kind = job.run.kind
    if kind == GraderKind.RUBRIC_GRADER:
        qs = GraderDecision.objects.filter(run_id=job.run_id, verdict__in=(Verdict.INVALID, Verdict.FAILED))
        qs = qs.select_related("response", "criterion")
        return [
            {"what": f"{d.response.model_name} · criterion {d.criterion.order}: {d.criterion.text[:120]}",
             "status": d.verdict, "raw_output": d.raw_output, "error": d.error, "attempts": d.attempts}
            for d in qs.order_by("-pk")[:limit]
        ]
    if kind == GraderKind.PAIRWISE_JUDGE:
        qs = PairwiseJudgement.objects.filter(
            run_id=job.run_id, verdict__in=(PairwiseVerdict.INVALID, PairwiseVerdict.FAILED)
        ).select_related("response_a", "response_b")
        return [
            {"what": f"{p.response_a.model_name} vs {p.response_b.model_name} ({p.order})", "status": p.verdict,
             "raw_output": p.raw_output, "error": p.error, "attempts": p.attempts}
            for p in qs.order_by("-pk")[:limit]
        ]
    qs = JudgeScore.objects.filter(run_id=job.run_id, status__in=(Verdict.INVALID, Verdict.FAILED))
    return [
        {"what": f"{s.response.model_name}{' · ' + s.axis if s.axis else ''}", "status": s.status,
         "raw_output": s.raw_output, "error": s.error, "attempts": s.attempts}
        for s in qs.select_related("response").order_by("-pk")[:limit]
    ]
