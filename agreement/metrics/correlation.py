"""Pearson, Spearman and Kendall tau-b correlations (scipy) with missing pairs dropped.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from agreement.metrics.encoding import _is_missing_scalar
from agreement.metrics.results import CorrelationResult

# ---------------------------------------------------------------------------
# Correlations
# ---------------------------------------------------------------------------


def _paired_floats(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    def conv(v):
        if isinstance(v, np.ndarray) and v.dtype.kind in "iufb":
            return v.astype(float).reshape(-1)
        return np.array([np.nan if _is_missing_scalar(e) else float(e) for e in v], dtype=float)

    xa, ya = conv(x), conv(y)
    if xa.shape != ya.shape:
        raise ValueError("x and y must have the same length")
    ok = ~(np.isnan(xa) | np.isnan(ya))
    return xa[ok], ya[ok]


def _correlation(method: str, x: Any, y: Any, confidence: float) -> CorrelationResult:
    xa, ya = _paired_floats(x, y)
    n = int(xa.size)
    if n < 3:
        return CorrelationResult(method, None, None, None, n, "fewer than 3 complete pairs")
    if np.ptp(xa) == 0 or np.ptp(ya) == 0:
        return CorrelationResult(method, None, None, None, n, "constant input: correlation undefined")
    ci = None
    if method == "pearson":
        res = stats.pearsonr(xa, ya)
        if n > 3:
            lo, hi = res.confidence_interval(confidence_level=confidence)
            ci = (float(lo), float(hi))
    elif method == "spearman":
        res = stats.spearmanr(xa, ya)
    else:
        res = stats.kendalltau(xa, ya)
    value, p = float(res.statistic), float(res.pvalue)
    if np.isnan(value):
        return CorrelationResult(method, None, None, None, n, "correlation undefined")
    reason = None
    if np.isnan(p):
        p = None
        reason = "p-value undefined"
    return CorrelationResult(method, value, p, ci, n, reason)


def pearson(x: Any, y: Any, *, confidence: float = 0.95) -> CorrelationResult:
    """Pearson r with scipy's two-sided p and a Fisher-z CI (``n > 3``)."""
    return _correlation("pearson", x, y, confidence)


def spearman(x: Any, y: Any) -> CorrelationResult:
    """Spearman rho with scipy's two-sided p (``ci`` is ``None``)."""
    return _correlation("spearman", x, y, 0.95)


def kendall(x: Any, y: Any) -> CorrelationResult:
    """Kendall tau-b with scipy's two-sided p (``ci`` is ``None``)."""
    return _correlation("kendall", x, y, 0.95)
