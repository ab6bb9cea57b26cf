"""Grader output read from imported files (`livemedbench-grades`), written as a `GraderRun`.

`cases` plans and locks the import; it calls `grader_decisions_import` through the writer that
`GradersConfig.ready` registers in `cases.importers.writers`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from cases import bulk
from cases.importers.base import ParsedDecision
from cases.models import Release
from graders.models import GraderDecision, GraderKind, GraderRun, Verdict

VERDICTS = {True: Verdict.MET, False: Verdict.NOT_MET, None: Verdict.INVALID}


def grader_decisions_import(
    *,
    release: Release,
    model_name: str,
    grader_model: str,
    decisions: Sequence[tuple[ParsedDecision, int, int]],
) -> int:
    """Write the run and its decisions; runs inside the import's transaction, which holds the lock."""
    run = GraderRun.objects.create(
        name=f"{grader_model} on {model_name}", kind=GraderKind.RUBRIC_GRADER, grader_model=grader_model,
        release=release,
    )
    bulk.insert([
        GraderDecision(
            run_id=run.pk, response_id=response_id, criterion_id=criterion_id, verdict=VERDICTS[d.met],
            raw_output=json.dumps(d.raw, ensure_ascii=False), reasoning=d.reasoning,
            error="" if d.met is not None else "the grader's score was not 0 or 1",
        )
        for d, response_id, criterion_id in decisions
    ])
    return run.pk
