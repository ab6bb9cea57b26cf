"""Reading a selection's labels from the database into a `LabelData` (fixed number of queries)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pandas as pd
from django.db import connection, connections
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agreement.reports.base import LabelData
from agreement.selectors import (
    CriterionCache,
    RunInfo,
    Selection,
    decision_frame,
    grader_runs,
    human_pairwise_frame,
    judge_frame,
    later_round_count,
    pairwise_frame,
    raters,
    rating_frame,
    task_scales,
)
from graders.models import GraderKind


def _graders_labels(selection: Selection, criteria: CriterionCache) -> tuple[pd.DataFrame, ...]:
    return decision_frame(selection, criteria=criteria), judge_frame(selection), pairwise_frame(selection)


def _in_own_connection(selection: Selection) -> tuple[pd.DataFrame, ...]:
    """The graders' labels read by a worker thread, on a database connection of its own."""
    try:
        return _graders_labels(selection, CriterionCache())
    finally:
        connections.close_all()  # this thread's connections only


def _reads_in_parallel() -> bool:
    """On PostgreSQL, outside a transaction: a second connection then sees exactly what this one does
    (inside one, e.g. a test's, it would not see the uncommitted rows)."""
    return connection.vendor == "postgresql" and not connection.in_atomic_block


def load_labels(selection: Selection) -> LabelData:
    criteria = CriterionCache()
    if _reads_in_parallel():
        # The physicians' ratings and the graders' labels are two large reads the server answers on
        # separate cores: read both at once (at 10x ClinConsensus scale: 2.07 -> 1.60 s, docs/performance.md).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-load") as pool:
            graders = pool.submit(_in_own_connection, selection)
            ratings = rating_frame(selection, criteria=criteria)
            decisions, judges, pairwise = graders.result()
    else:
        ratings = rating_frame(selection, criteria=criteria)
        decisions, judges, pairwise = _graders_labels(selection, criteria)
    scales = task_scales(ratings["task"].unique())
    # Physicians' pairwise preferences need the order each was shown in: one more read, only when
    # the selection holds pairwise labels.
    has_pairwise = any(s.target == "pairwise" for s in scales.values())
    human_pairwise = human_pairwise_frame(selection) if has_pairwise else pd.DataFrame()
    run_ids = set(decisions["run"].unique()) | set(judges["run"].unique()) | set(pairwise["run"].unique())
    info = grader_runs(run_ids)
    labels = {rid: (f"{i.name} (#{rid})", i.kind) for rid, i in info.items()}
    decisions = _merge_runs(decisions, info, labels, ("response", "criterion"))
    judges = _merge_runs(judges, info, labels, ("response", "axis"))
    return LabelData(
        ratings=ratings,
        decisions=decisions,
        judges=judges,
        pairwise=pairwise,
        scales=scales,
        raters=raters(ratings["rater"].unique()),
        runs=labels,
        later_rounds=later_round_count(selection),
        human_pairwise=human_pairwise,
        imported_ratings=int(ratings["imported"].sum()) if len(ratings) else 0,
    )


#: How a merged grader is named in a report: "gpt-4.1 rubric grader v1 (runs #1, #2, #3)".
KIND_SHORT_NAMES = {
    GraderKind.RUBRIC_GRADER: gettext_lazy("rubric grader"), GraderKind.LLM_JUDGE: gettext_lazy("llm-as-judge"),
    GraderKind.LIKERT_JUDGE: gettext_lazy("likert judge"), GraderKind.PAIRWISE_JUDGE: gettext_lazy("pairwise judge"),
    GraderKind.QUESTION_SET_JUDGE: gettext_lazy("question-set judge"),
}


def _merge_runs(
    frame: pd.DataFrame, info: dict[int, RunInfo], labels: dict[int, tuple[str, str]], unit: tuple[str, ...]
) -> pd.DataFrame:
    """Treat runs of one grader (same kind, grader model and prompt) on disjoint responses as one grader.

    LiveMedBench grader results arrive as one file, hence one run, per answering model; Table 2
    reports the grader over all of them. Runs that decided the same (response, criterion) twice
    are different gradings and stay apart. Merged runs report under their lowest run id.
    """
    if frame.empty:
        return frame
    groups: dict[tuple[str, str, str], list[int]] = {}
    for rid in sorted(int(r) for r in frame["run"].unique()):
        i = info.get(rid)
        if i is not None:
            groups.setdefault((i.kind, i.grader_model, i.prompt_version), []).append(rid)
    mapping: dict[int, int] = {}
    for (kind, model, version), ids in groups.items():
        if len(ids) < 2:
            continue
        if frame[frame["run"].isin(ids)].duplicated(list(unit)).any():
            continue
        for rid in ids:
            mapping[rid] = ids[0]
        kind_name = str(KIND_SHORT_NAMES.get(kind, kind))
        label = _("%(model)s %(kind)s (runs %(runs)s)") % {
            "model": model, "kind": f"{kind_name} {version}" if version else kind_name,
            "runs": _(", ").join(f"#{i}" for i in ids)}
        labels[ids[0]] = (label, kind)
    if not mapping:
        return frame
    frame = frame.copy()
    frame["run"] = frame["run"].map(lambda r: mapping.get(int(r), int(r)))
    return frame
