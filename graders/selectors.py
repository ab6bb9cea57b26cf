"""Reads about grading jobs and their output that several views (and the agreement reports) share."""

from collections import defaultdict
from typing import Any

from django.db.models import QuerySet

from cases.models import (
    GraderDecision,
    GraderKind,
    GraderRun,
    JudgeScore,
    PairwiseJudgement,
    PairwiseVerdict,
    Verdict,
)
from graders.models import GradingJob

VALID_PAIRWISE = (PairwiseVerdict.A, PairwiseVerdict.B, PairwiseVerdict.TIE)


def pairwise_position_bias(run: GraderRun) -> dict[str, Any]:
    """How often a pairwise judge changes its verdict when the two responses swap places.

    Verdicts are stored in terms of response_a / response_b whatever the order shown, so a consistent
    judge gives the same verdict in both orders. Returns:
      pairs               distinct (response_a, response_b) pairs judged at least once
      pairs_both_orders   pairs with a valid verdict (A / B / tie) in both orders
      flips               of those, pairs whose verdict differs between the orders
      flip_share          flips / pairs_both_orders (None when no pair has both orders)
      judgements          valid verdicts; first_shown_wins: those won by the response shown first
      first_shown_win_share  first_shown_wins / judgements decided for A or B (None if none): 0.5 = no
                          position preference
      invalid, failed     judgements that did not yield a verdict (kept, counted, never dropped)
    """
    rows = PairwiseJudgement.objects.filter(run=run).values_list("response_a_id", "response_b_id", "order", "verdict")
    by_pair: dict[tuple[int, int], dict[str, str]] = defaultdict(dict)
    invalid = failed = first_wins = decided = judgements = 0
    for a, b, order, verdict in rows:
        if verdict == PairwiseVerdict.INVALID:
            invalid += 1
        elif verdict == PairwiseVerdict.FAILED:
            failed += 1
        else:
            judgements += 1
            by_pair[(a, b)][order] = verdict
            if verdict != PairwiseVerdict.TIE:
                decided += 1
                shown_first = PairwiseVerdict.A if order == PairwiseJudgement.Order.AB else PairwiseVerdict.B
                first_wins += verdict == shown_first
        by_pair.setdefault((a, b), {})
    both = [v for v in by_pair.values() if "ab" in v and "ba" in v]
    flips = sum(1 for v in both if v["ab"] != v["ba"])
    return {
        "pairs": len(by_pair),
        "pairs_both_orders": len(both),
        "flips": flips,
        "flip_share": flips / len(both) if both else None,
        "judgements": judgements,
        "first_shown_wins": first_wins,
        "first_shown_win_share": first_wins / decided if decided else None,
        "invalid": invalid,
        "failed": failed,
    }


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
