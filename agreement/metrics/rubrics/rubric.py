"""Rubric scores: rubric accuracy, LiveMedBench case score, ClinConsensus CACS@tau.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agreement.metrics.binary import _confusion, encode_binary
from agreement.metrics.results import CacsResult, MetricResult


def rubric_accuracy(reference: Any, predicted: Any, *, invalid: str = "wrong") -> MetricResult:
    """Share of criterion decisions where ``predicted`` equals ``reference``.

    Invalid predictions count as disagreements (``"wrong"``) or are dropped
    (``"exclude"``); pairs with a missing reference are skipped.
    """
    ref = encode_binary(reference)
    pred = encode_binary(predicted)
    cell, _, _ = _confusion(ref, pred, invalid)
    used = cell >= 0
    n = int(used.sum())
    if n == 0:
        return MetricResult(None, 0, "no pairs")
    agree = np.isin(cell[used], (0, 3)).sum()
    return MetricResult(float(agree / n), n)


# ---------------------------------------------------------------------------
# Rubric scores: LiveMedBench case score, ClinConsensus CACS@tau
# ---------------------------------------------------------------------------


def case_score(points: Any, met: Any) -> float | None:
    """LiveMedBench eq. 1: ``clip(sum(points * met) / sum(positive points), 0, 1)``.

    Invalid/missing ``met`` entries count as not met.  ``None`` when the case
    has no positive points (LiveMedBench's ``metric_calc.py`` returns 0.0).
    """
    pts = np.asarray(points, dtype=float).reshape(-1)
    m = encode_binary(met)
    if pts.shape != m.shape:
        raise ValueError("points and met must have the same length")
    denom = pts[pts > 0].sum()
    if not denom > 0:
        return None
    return float(np.clip((pts * (m == 1)).sum() / denom, 0.0, 1.0))


def case_scores(
    case_index: Any,
    points: Any,
    met: Any,
    *,
    n_cases: int | None = None,
    clip: bool = True,
) -> np.ndarray:
    """Vectorised ``case_score`` for many cases at once.

    ``case_index`` holds each criterion's case code (non-negative ints,
    ``0..n_cases-1``).  Returns a float array of length ``n_cases`` (default
    ``max + 1``) with ``NaN`` for cases without positive points.  ``clip=False``
    returns the unclipped ratios (what ``metric_calc.py`` averages before
    clipping the mean).
    """
    idx = np.asarray(case_index).reshape(-1)
    if idx.size and (idx.dtype.kind not in "iu" or idx.min() < 0):
        raise ValueError("case_index must be non-negative integer codes")
    pts = np.asarray(points, dtype=float).reshape(-1)
    m = encode_binary(met)
    if not (idx.shape == pts.shape == m.shape):
        raise ValueError("case_index, points and met must have the same length")
    size = int(n_cases) if n_cases is not None else (int(idx.max()) + 1 if idx.size else 0)
    num = np.bincount(idx, weights=pts * (m == 1), minlength=size)
    den = np.bincount(idx, weights=np.where(pts > 0, pts, 0.0), minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
    return np.clip(out, 0.0, 1.0) if clip else out


def cacs(hits: Any, tau: int, n_criteria: Any = None) -> CacsResult:
    """ClinConsensus CACS@tau.

    Per response with ``h`` of ``N`` criteria met:
    ``max(0, h - tau + 1) / (N - tau + 1)``; ``value`` is the mean over
    responses.  ``hits`` is either

    * a 2-D 0/1 array (responses x criteria; ``N`` = columns, ``NaN``/invalid
      counted as not met), or a sequence of per-response 0/1 sequences
      (``N`` = each length), when ``n_criteria`` is ``None``; or
    * 1-D hit counts ``h`` per response with ``n_criteria`` (scalar or per
      response) giving ``N``.

    Requires ``1 <= tau <= N`` for every response (``ValueError`` otherwise).
    """
    if isinstance(tau, bool) or not float(tau).is_integer() or tau < 1:
        raise ValueError("tau must be a positive integer")
    tau = int(tau)
    if isinstance(hits, pd.DataFrame):
        hits = hits.to_numpy()
    if n_criteria is None:
        if isinstance(hits, np.ndarray) and hits.ndim == 2 and hits.dtype.kind in "biuf":
            arr = hits
            h = (
                np.nansum(np.where(arr == 1, 1.0, 0.0), axis=1)
                if arr.dtype.kind == "f"
                else ((arr == 1).sum(axis=1).astype(float))
            )
            N = np.full(arr.shape[0], arr.shape[1], dtype=float)
        else:
            rows = [encode_binary(r) for r in hits]
            h = np.array([(r == 1).sum() for r in rows], dtype=float)
            N = np.array([r.size for r in rows], dtype=float)
    else:
        h = np.asarray(hits, dtype=float).reshape(-1)
        N = np.broadcast_to(np.asarray(n_criteria, dtype=float), h.shape).astype(float)
        if (h < 0).any() or (h > N).any():
            raise ValueError("hit counts must lie in 0..N")
    n = int(h.size)
    if n == 0:
        return CacsResult(None, np.zeros(0), tau, 0, "no responses")
    if (tau > N).any():
        raise ValueError("tau exceeds the number of criteria N for some response")
    per = np.maximum(0.0, h - tau + 1) / (N - tau + 1)
    return CacsResult(float(per.mean()), per, tau, n)
