"""Judge scores and pairwise verdicts collected outside medreview, written as grader runs.

`cases` parses the file (`cases.importers.outside`), resolves each row's case and model to a
response of the dataset and locks the dataset; these writers only insert, inside that transaction.
One `GraderRun` per judge named in the file (`release` set: imported, not run here).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from cases import bulk
from cases.importers.outside import ParsedJudgeScore, ParsedPairwise
from cases.models import Release
from graders.models import GraderKind, GraderRun, JudgeScore, PairwiseJudgement, PairwiseVerdict, Verdict


def imported_run_name(judge: str, kind: str) -> str:
    """"<judge> <kind> (imported)": the kind's words fit in cases.importers.limits.IMPORTED_RUN_SUFFIX_MAX,
    so a judge name the import accepted always fits GraderRun.name."""
    kind_name = dict(GraderKind.choices)[kind].split(" (")[0]
    return f"{judge} {kind_name.lower()} (imported)"


def _run(release: Release, judge: str, kind: str, prompt_version: str) -> GraderRun:
    return GraderRun.objects.create(
        name=imported_run_name(judge, kind), kind=kind, grader_model=judge, prompt_version=prompt_version,
        release=release,
    )


def judge_scores_import(*, release: Release, rows: Sequence[tuple[ParsedJudgeScore, int]]) -> list[int]:
    """Write one run per judge with its scores ((score, response id)); return the run ids."""
    by_judge: dict[str, list[tuple[ParsedJudgeScore, int]]] = {}
    for row in rows:
        by_judge.setdefault(row[0].judge, []).append(row)
    run_ids = []
    for judge, judged in by_judge.items():
        per_axis = any(s.axis for s, _ in judged)
        run = _run(release, judge, GraderKind.LIKERT_JUDGE if per_axis else GraderKind.LLM_JUDGE,
                   judged[0][0].prompt_version)
        bulk.insert([
            JudgeScore(
                run_id=run.pk, response_id=response_id, axis=s.axis, status=Verdict.MET, raw_score=s.score,
                normalized_score=s.normalized, raw_output=json.dumps(s.raw, ensure_ascii=False),
            )
            for s, response_id in judged
        ])
        run_ids.append(run.pk)
    return run_ids


_PAIRWISE = {"A": PairwiseVerdict.A, "B": PairwiseVerdict.B, "tie": PairwiseVerdict.TIE,
             "invalid": PairwiseVerdict.INVALID, "failed": PairwiseVerdict.FAILED}


def pairwise_verdicts_import(*, release: Release, rows: Sequence[tuple[ParsedPairwise, int, int]]) -> list[int]:
    """Write one run per judge with its verdicts ((verdict, response A id, response B id)); return the run ids."""
    by_judge: dict[str, list[tuple[ParsedPairwise, int, int]]] = {}
    for row in rows:
        by_judge.setdefault(row[0].judge, []).append(row)
    run_ids = []
    for judge, judged in by_judge.items():
        run = _run(release, judge, GraderKind.PAIRWISE_JUDGE, judged[0][0].prompt_version)
        bulk.insert([
            PairwiseJudgement(
                run_id=run.pk, response_a_id=a, response_b_id=b, order=p.order, verdict=_PAIRWISE[p.verdict],
                raw_output=json.dumps(p.raw, ensure_ascii=False),
                error="" if p.verdict in ("A", "B", "tie") else "imported as invalid",
            )
            for p, a, b in judged
        ])
        run_ids.append(run.pk)
    return run_ids
