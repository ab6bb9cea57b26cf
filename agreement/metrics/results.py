"""Result types shared by every statistic, and irrCAC-style inference (SE, CI, p).

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

# irrCAC replaces a zero standard error by this value before computing the
# t statistic and the confidence interval.
_SE_FLOOR = 1e-15


# ---------------------------------------------------------------------------
# Result types
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class AgreementResult:
    """A chance-corrected agreement coefficient with its inference.

    ``value``/``se``/``ci``/``p_value``/``p_value_two_sided``/``pa``/``pe`` are
    ``None`` when undefined; ``reason`` then says why.  ``ci`` is
    ``(low, high)``.  ``n_subjects`` counts subjects with at least one
    rating; ``n_paired`` those with at least two (the ones entering ``pa``).
    """

    coefficient: str
    value: float | None
    se: float | None
    ci: tuple[float, float] | None
    p_value: float | None
    p_value_two_sided: float | None
    pa: float | None
    pe: float | None
    n_subjects: int
    n_paired: int
    n_raters: int
    categories: tuple[Any, ...]
    reason: str | None = None


@dataclass(frozen=True)
class AlphaResult:
    """Krippendorff's alpha (``value = 1 - do / de``)."""

    value: float | None
    do: float | None
    de: float | None
    level: str
    n_units: int
    n_pairable: int
    reason: str | None = None


@dataclass(frozen=True)
class MetricResult:
    """A plain proportion-type metric (percent agreement, rubric accuracy)."""

    value: float | None
    n: int
    reason: str | None = None


@dataclass(frozen=True)
class MacroF1Result:
    """Binary Macro-F1 with its confusion counts.

    ``tp``/``fp``/``fn``/``tn`` are for the positive class *met* after
    applying the invalid-output rule.  ``n`` = pairs used, ``n_invalid`` =
    invalid predictions among them (``invalid="wrong"``) or dropped
    (``invalid="exclude"``), ``n_skipped`` = pairs dropped because the
    reference was missing.
    """

    value: float | None
    f1_met: float | None
    f1_not_met: float | None
    tp: int
    fp: int
    fn: int
    tn: int
    n: int
    n_invalid: int
    n_skipped: int
    reason: str | None = None


@dataclass(frozen=True)
class MacroF1VsRatersResult:
    """Mean Macro-F1 of a grader against each rater (LiveMedBench eq. 9)."""

    value: float | None
    per_rater: tuple[MacroF1Result, ...]
    reason: str | None = None


@dataclass(frozen=True)
class CorrelationResult:
    """A correlation coefficient; ``p_value`` is two-sided (scipy)."""

    method: str
    value: float | None
    p_value: float | None
    ci: tuple[float, float] | None
    n: int
    reason: str | None = None


@dataclass(frozen=True)
class CacsResult:
    """ClinConsensus CACS@tau: ``value`` = mean of ``per_response``."""

    value: float | None
    per_response: np.ndarray
    tau: int
    n: int
    reason: str | None = None


@dataclass(frozen=True)
class BootstrapResult:
    """Cluster-bootstrap percentile CI around a point estimate.

    ``se`` is the standard deviation (ddof=1) of the defined replicates;
    ``n_undefined`` counts replicates where the statistic was undefined
    (dropped before taking percentiles).
    """

    value: float | None
    ci: tuple[float, float] | None
    se: float | None
    n_boot: int
    n_undefined: int
    n_groups: int
    n: int
    confidence: float
    seed: int | None
    reason: str | None = None


def _inference(
    value: float, var: float | None, n: int, confidence: float
) -> tuple[float | None, tuple[float, float] | None, float | None, float | None]:
    """se, ci, one-sided p and two-sided p following irrCAC."""
    if var is None or n < 2 or not np.isfinite(var):
        return None, None, None, None
    se = math.sqrt(max(var, 0.0))
    se_eff = se if se > 0 else _SE_FLOOR
    df = n - 1
    t = value / se_eff
    p_one = float(stats.t.sf(t, df))
    p_two = float(min(1.0, 2 * stats.t.sf(abs(t), df)))
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * se_eff
    ci = (value - half, min(1.0, value + half))
    return se, ci, p_one, p_two


def _empty_result(
    name: str,
    n: int,
    n2: int,
    r: int,
    cats: Sequence[Any],
    reason: str,
    *,
    pa: float | None = None,
    pe: float | None = None,
) -> AgreementResult:
    """A result whose coefficient is undefined; `pa` / `pe` are kept when they were computed."""
    return AgreementResult(
        coefficient=name,
        value=None,
        se=None,
        ci=None,
        p_value=None,
        p_value_two_sided=None,
        pa=pa,
        pe=pe,
        n_subjects=n,
        n_paired=n2,
        n_raters=r,
        categories=tuple(cats),
        reason=reason,
    )


def _result_from_influence(
    name: str,
    value: float,
    dev: np.ndarray,
    *,
    pa: float,
    pe: float,
    n: int,
    n2: int,
    r: int,
    cats: Sequence[Any],
    confidence: float,
) -> AgreementResult:
    """The coefficient with irrCAC's variance: the mean square of the subjects' deviations."""
    var = float(dev @ dev) / (n * (n - 1)) if n >= 2 else None
    se, ci, p1, p2 = _inference(value, var, n, confidence)
    return AgreementResult(
        coefficient=name,
        value=float(value),
        se=se,
        ci=ci,
        p_value=p1,
        p_value_two_sided=p2,
        pa=pa,
        pe=pe,
        n_subjects=n,
        n_paired=n2,
        n_raters=r,
        categories=tuple(cats),
        reason=None if se is not None else "a single subject: standard error undefined",
    )
