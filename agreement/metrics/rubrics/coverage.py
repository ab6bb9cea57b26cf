"""ClinConsensus coverage metrics: Rubric Accuracy, Pass@tau, CACS@tau, tau calibration, sensitivity.

Pure functions over numpy/pandas: no Django import, no database access. CACS itself is
``rubric.cacs`` (reused here per response); see ``docs/metrics.md`` ("Coverage metrics
(ClinConsensus)") for the definitions and the paper sections they follow (Sec. 4.2-4.3, App. H, I.4).

Vocabulary: a response's *hits* ``h`` are its met criteria out of ``N``; Rubric Accuracy is
``h / N`` averaged over responses (ClinConsensus' name; not ``rubric.rubric_accuracy``, which is the
agreement of a grader with a reference); Pass@tau is ``h >= tau``; CACS@tau is
``max(0, h - tau + 1) / (N - tau + 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreement.metrics.binary import encode_binary
from agreement.metrics.correlation import kendall, spearman
from agreement.metrics.rubrics.rubric import cacs

# ClinConsensus Table 10 looks at CACS@7, @8, @12 and @15 around tau = 10.
NEARBY_OFFSETS = (-3, -2, 2, 5)


def response_hits(
    frame: pd.DataFrame, *, keys: Sequence[str] = ("model", "response"), met: str = "met",
) -> pd.DataFrame:
    """Per response: ``hits`` (criteria met) and ``n_criteria``, from one row per criterion decision.

    Invalid or missing decisions count as not met (ClinConsensus' conservative parsing).
    """
    keys = list(keys)
    hit = (encode_binary(frame[met]) == 1).astype(np.int64)
    out = (
        frame[keys].assign(hits=hit, n_criteria=1)
        .groupby(keys, sort=True, observed=True)[["hits", "n_criteria"]].sum()
        .reset_index()
    )
    return out


def pass_at(hits: Any, tau: int) -> np.ndarray:
    """Pass@tau per response: 1.0 when at least ``tau`` criteria are met, else 0.0."""
    return (np.asarray(hits, dtype=float) >= tau).astype(float)


def coverage_per_response(per: pd.DataFrame, tau: int) -> pd.DataFrame:
    """Rubric accuracy, pass and CACS per response; CACS is NaN where N < tau (undefined)."""
    h = per["hits"].to_numpy(dtype=float)
    n = per["n_criteria"].to_numpy(dtype=float)
    ok = n >= tau
    c = np.full(h.shape, np.nan)
    if ok.any():
        c[ok] = cacs(h[ok], tau, n[ok]).per_response
    return per.assign(
        accuracy=np.where(n > 0, h / np.where(n > 0, n, 1), np.nan),
        passed=np.where(ok, pass_at(h, tau), np.nan),
        cacs=c,
    )


def coverage_table(per: pd.DataFrame, *, tau: int, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Rubric Accuracy, Pass@tau and CACS@tau per group of ``response_hits`` rows.

    Responses with fewer than ``tau`` criteria have no CACS@tau or Pass@tau (``n_short`` counts
    them); Rubric Accuracy uses every response.
    """
    if isinstance(tau, bool) or tau < 1:
        raise ValueError("tau must be a positive integer")
    scored = coverage_per_response(per, int(tau))
    by = list(by)
    g = scored.groupby(by, sort=True, observed=True)
    out = pd.DataFrame({
        "n_responses": g.size(),
        "n_short": scored["cacs"].isna().groupby([scored[k] for k in by], sort=True, observed=True).sum(),
        "mean_hits": g["hits"].mean(),
        "rubric_accuracy": g["accuracy"].mean(),
        "pass_rate": g["passed"].mean(),
        "cacs": g["cacs"].mean(),
    }).reset_index()
    out.insert(len(by), "tau", int(tau))
    return out


# ---------------------------------------------------------------------------
# tau calibration (Sec. 4.3)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TauCalibration:
    """tau = the rounded mean of physician-response rubric hits (half up), at least 1.

    A response's hits are its physicians' decisions that the response met, over their decisions,
    times its number of criteria (with one physician per criterion: the criteria they judged met).
    ``n_decisions`` / ``n_hits`` count every decision; ``hit_rate`` = ``n_hits / n_decisions``;
    ``distribution`` maps hits -> responses.
    """

    tau: int | None
    mean: float | None
    median: float | None
    q1: float | None
    q3: float | None
    hit_rate: float | None
    n_responses: int
    n_decisions: int
    n_hits: int
    distribution: dict[float, int] = field(default_factory=dict)
    reason: str | None = None


def calibrate_tau(hits: Any, n_criteria: Any, decisions: Any = None) -> TauCalibration:
    """ClinConsensus Sec. 4.3: tau from the physicians' decisions on physician-written responses.

    Per response: ``hits`` met decisions out of ``decisions`` (default ``n_criteria``: one decision
    per criterion), over ``n_criteria`` criteria. Its rubric-hit score is ``hits / decisions *
    n_criteria`` (two physicians each judging 9 of 30 met score 9, whichever criteria they chose);
    tau is the mean over responses rounded half up. The paper: 2,904 of 8,550 decisions met over
    285 responses of 30 criteria, 10.19 per response -> tau = 10.
    """
    h = np.asarray(hits, dtype=float).reshape(-1)
    n = np.broadcast_to(np.asarray(n_criteria, dtype=float), h.shape)
    d = n if decisions is None else np.broadcast_to(np.asarray(decisions, dtype=float), h.shape)
    if h.size == 0:
        return TauCalibration(None, None, None, None, None, None, 0, 0, 0, {}, "no physician-written responses")
    if (d <= 0).any() or (h > d).any() or (h < 0).any():
        raise ValueError("every response needs at least one decision, and 0 <= hits <= decisions")
    score = h / d * n
    mean = float(score.mean())
    q1, med, q3 = (float(v) for v in np.percentile(score, [25, 50, 75]))
    values, counts = np.unique(np.round(score, 2), return_counts=True)
    total_d, total_h = int(d.sum()), int(h.sum())
    return TauCalibration(
        tau=max(1, math.floor(mean + 0.5)), mean=mean, median=med, q1=q1, q3=q3,
        hit_rate=total_h / total_d, n_responses=int(h.size), n_decisions=total_d, n_hits=total_h,
        distribution={_plain(v): int(c) for v, c in zip(values, counts, strict=True)},
    )


def _plain(value: float) -> float | int:
    """9.0 -> 9 (hits are whole with one physician per criterion), 9.5 stays 9.5."""
    return int(value) if float(value).is_integer() else float(value)


# ---------------------------------------------------------------------------
# Rankings: sensitivity (Table 10) and stability between graders (Table 15)
# ---------------------------------------------------------------------------


def _finite_items(scores: pd.Series) -> dict[Any, float]:
    """model -> score without missing values, as plain Python (a dozen models: no pandas indexing)."""
    return {k: float(v) for k, v in zip(scores.index, scores.to_numpy(dtype=float), strict=True) if v == v}


def ranking(scores: pd.Series | dict[Any, float]) -> list[Any]:
    """Models best first; ties broken by model name so the order is reproducible."""
    s = scores if isinstance(scores, dict) else _finite_items(scores)
    return [m for _, m in sorted(((-v, str(k)), k) for k, v in s.items())]


def top_k_overlap(a: pd.Series | dict[Any, float], b: pd.Series | dict[Any, float], k: int) -> tuple[int, int]:
    """(|top-k of a ∩ top-k of b|, k used); k shrinks to the number of models scored by both."""
    da = a if isinstance(a, dict) else _finite_items(a)
    db = b if isinstance(b, dict) else _finite_items(b)
    common = set(da) & set(db)
    k = min(k, len(common))
    top_a = ranking({m: da[m] for m in common})[:k]
    top_b = ranking({m: db[m] for m in common})[:k]
    return len(set(top_a) & set(top_b)), k


def _compare(main: pd.Series, other: pd.Series) -> dict[str, Any]:
    da, db = _finite_items(main), _finite_items(other)
    common = sorted(set(da) & set(db), key=str)
    x = np.array([da[m] for m in common], dtype=float)
    y = np.array([db[m] for m in common], dtype=float)
    sp, kd = spearman(x, y), kendall(x, y)
    t3, k3 = top_k_overlap(da, db, 3)
    t5, k5 = top_k_overlap(da, db, 5)
    return {
        "n_models": len(common), "spearman": sp.value, "spearman_p": sp.p_value, "kendall": kd.value,
        "kendall_p": kd.p_value, "top3": t3, "top3_of": k3, "top5": t5, "top5_of": k5,
        "mean_abs_diff": float(np.abs(x - y).mean()) if common else None,
    }


def threshold_sensitivity(
    per: pd.DataFrame, *, tau: int, nearby: Sequence[int] | None = None, model: str = "model",
) -> pd.DataFrame:
    """ClinConsensus Table 10: each alternative metric's model ranking against CACS@tau's.

    Rows: CACS@t for ``nearby`` thresholds (default tau-3, tau-2, tau+2, tau+5, kept within
    1..max N), Rubric Accuracy and Pass@tau; columns Spearman (and Kendall) with the main metric's
    per-model scores and the top-3 / top-5 overlap.
    """
    if nearby is None:
        max_n = int(per["n_criteria"].max()) if len(per) else 0
        nearby = [tau + d for d in NEARBY_OFFSETS if 1 <= tau + d <= max_n]
    main_table = coverage_table(per, tau=tau, by=(model,)).set_index(model)
    main = main_table["cacs"]
    rows = []
    for t in nearby:
        alt = coverage_table(per, tau=int(t), by=(model,)).set_index(model)["cacs"]
        rows.append({"metric": f"CACS@{int(t)}", **_compare(main, alt)})
    rows.append({"metric": "Rubric Accuracy", **_compare(main, main_table["rubric_accuracy"])})
    rows.append({"metric": f"Pass@{tau}", **_compare(main, main_table["pass_rate"])})
    return pd.DataFrame(rows).drop(columns="mean_abs_diff")


@dataclass(frozen=True)
class RankingStability:
    """Two graders' per-model scores compared (ClinConsensus Table 15), on CACS by default."""

    n_models: int
    spearman: float | None
    spearman_p: float | None
    kendall: float | None
    kendall_p: float | None
    mean_abs_diff: float | None
    top3: int
    top3_of: int
    top5: int
    top5_of: int


def ranking_stability(first: pd.Series, second: pd.Series) -> RankingStability:
    """Spearman, Kendall, mean absolute difference and top-3/top-5 overlap of two model->score series."""
    return RankingStability(**_compare(first, second))
