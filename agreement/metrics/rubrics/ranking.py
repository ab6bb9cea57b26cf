"""Ranking stability between graders (ClinConsensus Table 15): how alike two graders rank the models.

Pure functions over pandas: no Django import, no database access.
"""

from __future__ import annotations

import itertools

import pandas as pd

from agreement.metrics.correlation import kendall, spearman

RANKING_COLUMNS = ["grader_a", "grader_b", "n_models", "spearman", "spearman_p", "kendall", "kendall_p",
                   "top3_overlap", "top5_overlap", "mean_abs_diff_pp"]


def _top_overlap(a: pd.Series, b: pd.Series, k: int) -> str | None:
    """"h/k": how many of a's top k models are in b's top k (ties broken by the index order, i.e. model name)."""
    if len(a) < k:
        return None
    top_a = set(a.sort_values(ascending=False, kind="stable").index[:k])
    top_b = set(b.sort_values(ascending=False, kind="stable").index[:k])
    return f"{len(top_a & top_b)}/{k}"


def ranking_stability(model_scores: pd.DataFrame) -> pd.DataFrame:
    """For every two columns (graders) of a models x graders score table: Spearman and Kendall tau-b
    with p, top-3 and top-5 overlap and the mean absolute score difference in percentage points, over
    the models both graders scored. Sort the index (model names) to break top-k ties by name."""
    rows = []
    for a, b in itertools.combinations(model_scores.columns, 2):
        both = model_scores[[a, b]].dropna()
        sp = spearman(both[a].to_numpy(), both[b].to_numpy())
        kd = kendall(both[a].to_numpy(), both[b].to_numpy())
        rows.append({
            "grader_a": a, "grader_b": b, "n_models": int(len(both)), "spearman": sp.value,
            "spearman_p": sp.p_value, "kendall": kd.value, "kendall_p": kd.p_value,
            "top3_overlap": _top_overlap(both[a], both[b], 3), "top5_overlap": _top_overlap(both[a], both[b], 5),
            "mean_abs_diff_pp": float((both[a] - both[b]).abs().mean() * 100) if len(both) else None,
        })
    return pd.DataFrame(rows, columns=RANKING_COLUMNS)
