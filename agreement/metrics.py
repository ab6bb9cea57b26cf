"""Agreement and grader-fidelity statistics for medreview.

Pure functions over numpy arrays: no Django import, no database access.
See ``docs/metrics.md`` for the formulas, conventions and the table of
degenerate results.

Conventions shared by the chance-corrected coefficients
-------------------------------------------------------
* ``ratings`` is subjects x raters: a sequence of subjects, each a sequence
  with one label per rater (``None``/``NaN``/``""`` where a rater did not
  rate that subject), a 2-D numpy array (``NaN`` = missing) or a pandas
  DataFrame.  Subjects with no rating at all are dropped (as irrCAC does).
* ``categories`` is the scale's declared list of categories; when omitted,
  the observed labels, sorted.  Chance agreement always uses the declared
  categories, so undeclared-but-possible categories matter.
* Results follow Gwet (2008/2014) and the irrCAC package: variance without
  finite-population correction, CI = value +- t(1 - a/2, n - 1) * se with the
  upper bound capped at 1 and the lower bound *not* clipped, ``p_value``
  one-sided (H0: coefficient <= 0), ``p_value_two_sided`` as irrCAC reports
  for AC1/AC2/Fleiss/Cohen.
* Nothing undefined is ever returned as a number: such a field is ``None``
  and ``reason`` explains why.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "AgreementResult",
    "AlphaResult",
    "BootstrapResult",
    "CacsResult",
    "CorrelationResult",
    "MacroF1Result",
    "MacroF1VsRatersResult",
    "MetricResult",
    "bootstrap_macro_f1",
    "bootstrap_macro_f1_difference",
    "brennan_prediger",
    "cacs",
    "case_score",
    "case_scores",
    "cohen_kappa",
    "conger_kappa",
    "count_matrix",
    "encode_binary",
    "encode_ratings",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "kendall",
    "krippendorff_alpha",
    "macro_f1",
    "macro_f1_vs_raters",
    "pearson",
    "percent_agreement",
    "rubric_accuracy",
    "spearman",
    "weight_matrix",
]

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


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


def _is_missing_scalar(x: Any) -> bool:
    if x is None:
        return True
    if isinstance(x, str):
        return x == ""
    if isinstance(x, float | np.floating):
        return math.isnan(x)
    return False


def _sorted_labels(labels: Sequence[Any]) -> list[Any]:
    try:
        return sorted(labels)
    except TypeError:
        return sorted(labels, key=lambda v: (type(v).__name__, str(v)))


def _list_to_array(seq: list) -> np.ndarray:
    """Subjects x raters list of lists -> 2-D array (float when possible)."""
    try:
        widths = {len(r) for r in seq}
    except TypeError:
        raise ValueError("ratings must be 2-D: subjects x raters") from None
    if len(widths) == 1:
        width = widths.pop()
        flat = list(itertools.chain.from_iterable(seq))
        first = next((v for v in flat if not _is_missing_scalar(v)), None)
        if isinstance(first, numbers.Real) and not isinstance(first, bool | np.bool_):
            try:
                arr = np.array(flat, dtype=float)
            except (TypeError, ValueError):
                arr = None
            if arr is not None:
                # remember integer labels so categories come back as ints
                out = arr.reshape(len(seq), width)
                if isinstance(first, numbers.Integral):
                    out = _IntLabelled(out)
                return out
        arr = np.empty(len(flat), dtype=object)
        arr[:] = flat
        return arr.reshape(len(seq), width)
    # ragged rows: pad with None
    rows = [list(r) for r in seq]
    width = max(len(r) for r in rows)
    arr = np.full((len(rows), width), None, dtype=object)
    for i, r in enumerate(rows):
        arr[i, : len(r)] = r
    return arr


class _IntLabelled(np.ndarray):
    """Float array built from integer labels (categories are returned as int)."""

    def __new__(cls, a):
        return np.asarray(a).view(cls)


def _as_2d(ratings: Any) -> np.ndarray:
    """Return ratings as a 2-D numpy array (numeric or object dtype)."""
    if isinstance(ratings, pd.DataFrame):
        arr = ratings.to_numpy()
    elif isinstance(ratings, np.ndarray):
        arr = ratings
    else:
        seq = list(ratings)
        if not seq:
            return np.empty((0, 0), dtype=object)
        arr = _list_to_array(seq)
    if arr.ndim == 1:
        raise ValueError("ratings must be 2-D: subjects x raters")
    if arr.ndim != 2:
        raise ValueError("ratings must be 2-D: subjects x raters")
    return arr


def _code_dtype(q: int) -> type:
    return np.int8 if q < 127 else (np.int16 if q < 32767 else np.int64)


def _encode_numeric(
    flat: np.ndarray, declared: list[Any] | None, int_labels: bool
) -> tuple[np.ndarray, list[Any]] | None:
    """O(n) encoding of integral numeric labels with a small range (else None).

    Small ranges (<= 64 distinct candidate values) are encoded with one
    vectorised comparison per candidate value, larger ones with a bincount.
    """
    is_float = flat.dtype.kind == "f"
    if flat.size == 0:
        return np.zeros(0, dtype=np.int8), list(declared or [])
    if is_float:
        lo, hi = np.fmin.reduce(flat), np.fmax.reduce(flat)
        if np.isnan(lo):  # everything missing
            q = len(declared or [])
            return np.full(flat.shape, -1, dtype=_code_dtype(q)), list(declared or [])
        if not (np.isfinite(lo) and np.isfinite(hi)) or lo != math.floor(lo) or hi != math.floor(hi):
            return None
        n_valid = flat.size - int(np.count_nonzero(np.isnan(flat)))
    else:
        lo, hi = flat.min(), flat.max()
        n_valid = flat.size
    lo, hi = int(lo), int(hi)
    span = hi - lo
    if span <= 64:
        present: list[int] = []
        masks = []
        assigned = 0
        for v in range(lo, hi + 1):
            m = flat == v
            c = int(np.count_nonzero(m))
            if c:
                present.append(v)
                masks.append(m)
                assigned += c
        if assigned != n_valid:
            return None  # non-integral floats
        uniques: list[Any] = present if int_labels else [float(v) for v in present]
        cats = uniques if declared is None else declared
        index = _category_index(cats)
        unknown = [u for u in uniques if u not in index]
        if unknown:
            raise ValueError(f"ratings contain labels not in categories: {unknown[:10]}")
        dt = _code_dtype(len(cats))
        # masks are disjoint: codes = -1 + sum_u (index[u] + 1) * [x == u]
        # (arithmetic is much faster than boolean-mask assignment)
        codes = np.zeros(flat.shape, dtype=dt)
        for u, m in zip(uniques, masks, strict=True):
            mi = m.view(np.int8) if dt is np.int8 else m.astype(dt)
            codes += mi * dt(index[u] + 1)
        codes -= dt(1)
        return codes, list(cats)
    if span > max(1_000_000, 4 * flat.size):
        return None
    if is_float:
        nan = np.isnan(flat)
        vals = flat[~nan]
        off = vals.astype(np.int64) - lo
        if not np.array_equal(off + lo, vals):
            return None
    else:
        nan = None
        off = flat.astype(np.int64) - lo
    present_arr = np.flatnonzero(np.bincount(off, minlength=span + 1))
    uniques = [int(v) + lo for v in present_arr]
    if not int_labels:
        uniques = [float(v) for v in uniques]
    cats = uniques if declared is None else declared
    index = _category_index(cats)
    lut = np.full(span + 1, -1, dtype=np.int64)
    unknown = []
    for u in uniques:
        pos = index.get(u)
        if pos is None:
            unknown.append(u)
        else:
            lut[int(u) - lo] = pos
    if unknown:
        raise ValueError(f"ratings contain labels not in categories: {unknown[:10]}")
    codes = np.full(flat.shape, -1, dtype=_code_dtype(len(cats)))
    if nan is not None:
        codes[~nan] = lut[off]
    else:
        codes[:] = lut[off]
    return codes, list(cats)


def _category_index(cats: Sequence[Any]) -> dict[Any, int]:
    index: dict[Any, int] = {}
    for i, c in enumerate(cats):
        index.setdefault(c, i)
    return index


def encode_ratings(ratings: Any, categories: Sequence[Any] | None = None) -> tuple[np.ndarray, list[Any]]:
    """Encode ratings to integer codes.

    Returns ``(codes, categories)`` where ``codes`` is a signed integer array
    (``int8`` when fewer than 127 categories) of
    shape subjects x raters holding the index into ``categories`` and ``-1``
    where the rating is missing (``None``, ``NaN``, ``""``).  ``categories`` is
    the declared list (as given) or, when omitted, the sorted observed labels.
    Labels not among the declared categories raise ``ValueError``.

    Numeric arrays are encoded with hashing (``pandas.factorize``), so a
    large array costs a few milliseconds; integer arrays whose values are
    already ``0..q-1`` codes of the declared categories are passed through.
    """
    arr = _as_2d(ratings)
    shape = arr.shape
    is_bool = arr.dtype.kind == "b"
    if is_bool:
        arr = arr.astype(np.int8)
    flat = arr.reshape(-1)
    declared = None if categories is None else list(categories)

    if declared is not None and flat.dtype.kind in "iu" and declared == list(range(len(declared))):
        # fast path: already integer-coded 0..q-1
        codes = flat.astype(_code_dtype(len(declared)), copy=True)
        bad = (flat < -1) | (flat >= len(declared))
        if bad.any():
            raise ValueError(f"ratings contain labels not in categories: {np.unique(flat[bad])[:10]}")
        return codes.reshape(shape), declared

    if flat.dtype.kind in "iuf":
        int_labels = flat.dtype.kind in "iu" or isinstance(arr, _IntLabelled)
        fast = _encode_numeric(np.asarray(flat), declared, int_labels)
        if fast is not None:
            codes, cats = fast
            if is_bool and declared is None:
                cats = [bool(c) for c in cats]
            return codes.reshape(shape), cats

    if flat.dtype.kind == "O":
        # treat "" as missing, as irrCAC does
        empty = flat == ""
        if empty.any():
            flat = flat.copy()
            flat[empty] = None
    if flat.dtype.kind in "iufO" or flat.dtype.kind in "US":
        try:
            raw_codes, uniques = pd.factorize(flat, sort=False, use_na_sentinel=True)
        except TypeError:
            raw_codes, uniques = pd.factorize(flat.astype(object), sort=False, use_na_sentinel=True)
    else:
        raise ValueError(f"unsupported ratings dtype {flat.dtype}")
    uniques = list(np.asarray(uniques, dtype=object))
    uniques = [u.item() if isinstance(u, np.generic) else u for u in uniques]

    cats = _sorted_labels(uniques) if declared is None else declared
    index: dict[Any, int] = {}
    for i, c in enumerate(cats):
        index.setdefault(c, i)
    lut = np.empty(len(uniques) + 1, dtype=np.int64)
    lut[-1] = -1
    unknown = []
    for j, u in enumerate(uniques):
        pos = index.get(u)
        if pos is None:
            unknown.append(u)
        else:
            lut[j] = pos
    if unknown:
        raise ValueError(f"ratings contain labels not in categories: {unknown[:10]}")
    codes = lut[raw_codes].astype(_code_dtype(len(cats)))  # raw code -1 picks lut[-1] == -1
    return codes.reshape(shape), list(cats)


def count_matrix(codes: np.ndarray, q: int, *, transposed: bool = False) -> np.ndarray:
    """Subjects x categories matrix of how many raters chose each category.

    With ``transposed=True`` returns the categories x subjects matrix (the
    layout used internally: reductions over categories stay contiguous).
    """
    n = codes.shape[0]
    if n == 0 or q == 0:
        shape = (q, n) if transposed else (n, q)
        return np.zeros(shape, dtype=np.int64)
    r = codes.shape[1]
    if transposed and q * r <= 256:
        # loop over categories and raters (never over subjects)
        cols = codes.T
        acc_t = np.int8 if r < 127 else np.int32
        out = np.empty((q, n))
        for k in range(q):
            acc = (cols[0] == k).astype(acc_t)
            for j in range(1, r):
                acc += cols[j] == k
            out[k] = acc
        return out
    idx = codes.astype(np.int64) * n + np.arange(n)[:, None]  # category-major flat index
    if (codes < 0).any():
        idx = idx[codes >= 0]
    out = np.bincount(idx.ravel(), minlength=q * n).reshape(q, n)
    return out if transposed else out.T.copy()


def _is_numeric_label(c: Any) -> bool:
    return isinstance(c, numbers.Real) and not (isinstance(c, float) and math.isnan(c))


def weight_matrix(weights: Any, categories: Sequence[Any], *, use_values: bool = True) -> np.ndarray:
    """Agreement weights (1 on the diagonal) for the categories.

    ``weights``: ``None``/``"identity"``, ``"linear"``
    (``1 - |k - l| / (max - min)``), ``"quadratic"``
    (``1 - (k - l)^2 / (max - min)^2``) or a q x q matrix.  With
    ``use_values`` and all-numeric categories the category values are used
    (irrCAC's raw-ratings convention); otherwise the positions ``1..q``
    (irrCAC's contingency-table and scikit-learn's convention).
    """
    q = len(categories)
    if weights is None or (isinstance(weights, str) and weights == "identity"):
        return np.eye(q)
    if isinstance(weights, str):
        if weights not in ("linear", "quadratic"):
            raise ValueError("weights must be None, 'identity', 'linear', 'quadratic' or a q x q matrix")
        if q <= 1:
            return np.ones((q, q))
        if use_values and all(_is_numeric_label(c) for c in categories):
            x = np.asarray([float(c) for c in categories])
        else:
            x = np.arange(1, q + 1, dtype=float)
        span = x.max() - x.min()
        if span == 0:
            raise ValueError("weighted coefficients need categories with distinct values")
        diff = np.abs(x[:, None] - x[None, :]) / span
        return 1 - diff if weights == "linear" else 1 - diff**2
    mat = np.asarray(weights, dtype=float)
    if mat.shape != (q, q):
        raise ValueError(f"weights matrix must be {q}x{q}, got {mat.shape}")
    return mat


# ---------------------------------------------------------------------------
# Chance-corrected agreement coefficients (Gwet 2008/2014, irrCAC)
# ---------------------------------------------------------------------------


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


def _multirater(
    ratings: Any,
    categories: Sequence[Any] | None,
    weights: Any,
    kind: str,
    confidence: float,
) -> AgreementResult:
    names = {
        "gwet": "AC1" if weights is None else "AC2",
        "fleiss": "Fleiss' kappa",
        "bp": "Brennan-Prediger",
    }
    name = names[kind]
    codes, cats = encode_ratings(ratings, categories)
    q = len(cats)
    r = codes.shape[1] if codes.ndim == 2 else 0
    ct_all = count_matrix(codes, q, transposed=True)  # q x n
    ri_all = ct_all.sum(axis=0)
    keep = ri_all > 0  # irrCAC drops subjects with no rating at all
    if keep.all():
        ct = ct_all.astype(float, copy=False)
        ri = ri_all.astype(float, copy=False)
    else:
        ct = ct_all[:, keep].astype(float)
        ri = ri_all[keep].astype(float)
    n = int(ri.shape[0])
    m2 = ri >= 2
    n2 = int(m2.sum())
    if n == 0:
        return _empty_result(name, 0, 0, r, cats, "no ratings")
    if n2 == 0:
        return _empty_result(
            name, n, 0, r, cats, "no subject has two or more ratings: observed agreement undefined"
        )
    W = weight_matrix(weights, cats)
    if q == 1:
        if kind == "fleiss":
            return _empty_result(
                name,
                n,
                n2,
                r,
                cats,
                "only one category: chance agreement pe = 1, kappa = 0/0 undefined",
            )
        # irrCAC sets pe to 1 - 1e-15 (AC1) or 1e-15 (BP) so that the
        # coefficient is ~1; we return exactly 1 with undefined inference.
        return AgreementResult(
            coefficient=name,
            value=1.0,
            se=None,
            ci=None,
            p_value=None,
            p_value_two_sided=None,
            pa=1.0,
            pe=None,
            n_subjects=n,
            n_paired=n2,
            n_raters=r,
            categories=tuple(cats),
            reason="only one category: value set to 1 (irrCAC convention); pe, se, ci and p undefined",
        )

    identity = np.array_equal(W, np.eye(q))
    # sum_k r_ik (sum_l w_kl r_il - 1) = sum_k r_ik (W r_i)_k - r_i
    # (in-place arithmetic below keeps the number of n-length temporaries low)
    pa_i = np.einsum("kn,kn->n", ct, ct if identity else W @ ct)
    pa_i -= ri
    all2 = n2 == n
    buf = ri - 1.0
    buf *= ri  # r_i (r_i - 1)
    if not all2:
        buf[~m2] = 1.0
    pa_i /= buf
    if not all2:
        pa_i[~m2] = 0.0
    pa = float(pa_i.sum()) / n2
    inv_ri = np.divide(1.0, ri, out=buf)
    pi = (ct @ inv_ri) / n
    wsum = float(W.sum())
    if kind == "gwet":
        pe = wsum * float((pi * (1 - pi)).sum()) / (q * (q - 1))
    elif kind == "fleiss":
        pe = float((W * np.outer(pi, pi)).sum())
    else:
        pe = wsum / q**2
    if not (1 - pe) > 1e-14:
        return _empty_result(
            name, n, n2, r, cats,
            "chance agreement pe = 1 (all ratings in one category): coefficient is 0/0, undefined",
            pa=pa, pe=pe,
        )
    value = (pa - pe) / (1 - pe)
    # per-subject linearised coefficient (Gwet 2008 / irrCAC), in place:
    # c_i = (n/n2) (pa_i - pe [r_i >= 2]) / (1 - pe) - 2 (1 - value) (pe_i - pe) / (1 - pe)
    coef_i = pa_i
    coef_i *= (n / n2) / (1 - pe)
    shift = (n / n2) * pe / (1 - pe)
    if all2:
        coef_i -= shift
    else:
        coef_i[m2] -= shift
    if kind in ("gwet", "fleiss"):
        # gwet: pe_i = sum(W)/(q(q-1)) sum_k r_ik (1 - pi_k) / r_i
        # fleiss: pe_i = sum_k r_ik pibar_k / r_i with pibar = (W pi + W' pi) / 2
        vec = (wsum / (q * (q - 1))) * (1 - pi) if kind == "gwet" else (W @ pi + W.T @ pi) / 2
        pe_i = vec @ ct
        pe_i *= inv_ri
        g = 2 * (1 - value) / (1 - pe)
        pe_i *= g
        coef_i -= pe_i
        coef_i += g * pe
    coef_i -= value
    return _result_from_influence(
        name, value, coef_i, pa=pa, pe=pe, n=n, n2=n2, r=r, cats=cats, confidence=confidence
    )


def gwet_ac1(
    ratings: Any, categories: Sequence[Any] | None = None, *, confidence: float = 0.95
) -> AgreementResult:
    """Gwet's AC1 for any number of raters with missing ratings.

    ``pa`` = mean over subjects with >= 2 ratings of
    ``sum_k r_ik (r_ik - 1) / (r_i (r_i - 1))``; ``pi_k`` = mean over all rated
    subjects of ``r_ik / r_i``; ``pe = sum_k pi_k (1 - pi_k) / (q - 1)``.
    """
    return _multirater(ratings, categories, None, "gwet", confidence)


def gwet_ac2(
    ratings: Any,
    categories: Sequence[Any] | None = None,
    weights: Any = "linear",
    *,
    confidence: float = 0.95,
) -> AgreementResult:
    """Gwet's weighted AC2: ``pe = sum(W) sum_k pi_k (1 - pi_k) / (q (q - 1))``.

    With numeric categories the weights use the category values (irrCAC raw
    convention), otherwise positions.  Declare ``categories`` in scale order.
    """
    res = _multirater(ratings, categories, weights, "gwet", confidence)
    return res


def fleiss_kappa(
    ratings: Any,
    categories: Sequence[Any] | None = None,
    *,
    weights: Any = None,
    confidence: float = 0.95,
) -> AgreementResult:
    """Fleiss' generalised kappa (Gwet's missing-data form): ``pe = pi' W pi``."""
    return _multirater(ratings, categories, weights, "fleiss", confidence)


def brennan_prediger(
    ratings: Any,
    categories: Sequence[Any] | None = None,
    *,
    weights: Any = None,
    confidence: float = 0.95,
) -> AgreementResult:
    """Brennan-Prediger coefficient: ``pe = sum(W) / q^2`` (``1/q`` unweighted)."""
    return _multirater(ratings, categories, weights, "bp", confidence)


def _conger(
    codes: np.ndarray, cats: list[Any], W: np.ndarray, name: str, confidence: float
) -> AgreementResult:
    """Conger's kappa with Gwet's raw-data variance (irrCAC ``raw.CAC.conger``)."""
    q = len(cats)
    r = codes.shape[1] if codes.ndim == 2 and codes.size else 0
    if codes.size:
        rated_all = codes >= 0
        keep = rated_all.any(axis=1)
        codes = codes[keep]
        rated = rated_all[keep]
    n = int(codes.shape[0]) if codes.size else 0
    if n == 0:
        return _empty_result(name, 0, 0, r, cats, "no ratings")
    ct = count_matrix(codes, q, transposed=True).astype(float, copy=False)
    ri = ct.sum(axis=0)
    m2 = ri >= 2
    n2 = int(m2.sum())
    if n2 == 0:
        return _empty_result(
            name, n, 0, r, cats, "no subject has two or more ratings: observed agreement undefined"
        )
    if q == 1:
        return _empty_result(
            name, n, n2, r, cats, "only one category: chance agreement pe = 1, kappa = 0/0 undefined"
        )
    # classification matrix: how often rater g chose category k (loop over raters only)
    classif = np.stack([np.bincount(codes[rated[:, g], g].astype(np.int64), minlength=q) for g in range(r)])
    ng = classif.sum(axis=1).astype(float)
    if (ng == 0).any():
        return _empty_result(name, n, n2, r, cats, "a rater has no ratings: rater marginals undefined")
    sum_q = np.einsum("kn,kn->n", ct, W @ ct) - ri
    den = ri * (ri - 1)
    den[~m2] = 1.0
    pa_i = np.where(m2, sum_q / den, 0.0)
    pa = float(pa_i.sum()) / n2
    P = classif / ng[:, None]  # r x q rater marginals
    pbar = P.mean(axis=0)
    s2 = (P.T @ P - r * np.outer(pbar, pbar)) / (r - 1)
    pe = float((W * (np.outer(pbar, pbar) - s2 / r)).sum())
    if not (1 - pe) > 1e-14:
        return _empty_result(
            name, n, n2, r, cats,
            "chance agreement pe = 1 (raters used a single category): kappa is 0/0, undefined",
            pa=pa, pe=pe,
        )
    kappa = (pa - pe) / (1 - pe)
    # irrCAC's lambda_ig, vectorised:
    # lambda_ig = n/n_g * (e_ig B[g, c_ig] - (e_ig - n_g/n) S_g)
    # A[g,k] = r pbar_k - P[g,k]; B = A W; S_g = sum_k (P W')[g,k] A[g,k]
    A = r * pbar[None, :] - P
    B = A @ W
    S = ((P @ W.T) * A).sum(axis=1)
    E = rated.astype(float)
    Bg = B[np.arange(r)[None, :], np.where(rated, codes, 0)]
    lam = (n / ng)[None, :] * (E * Bg - (E - ng[None, :] / n) * S[None, :])
    pe_i = lam.sum(axis=1) / (r * (r - 1))
    coef_i = (n / n2) * (pa_i - pe * m2) / (1 - pe) - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
    return _result_from_influence(
        name, kappa, coef_i - kappa, pa=pa, pe=pe, n=n, n2=n2, r=r, cats=cats, confidence=confidence
    )


def cohen_kappa(
    ratings: Any,
    categories: Sequence[Any] | None = None,
    weights: Any = None,
    *,
    confidence: float = 0.95,
) -> AgreementResult:
    """Cohen's kappa for exactly two raters (columns), missing ratings allowed.

    Computed as Conger's kappa for two raters with Gwet's raw-data variance,
    i.e. irrCAC ``raw.CAC(...).conger()``: ``pa`` over subjects rated by
    both, ``pe = sum_kl w_kl p_1k p_2l`` from each rater's own marginals
    over all of that rater's ratings.  On complete data the value equals
    ``sklearn.metrics.cohen_kappa_score``.  Weights (``None``, ``"linear"``,
    ``"quadratic"`` or a matrix) use category *positions* as scikit-learn
    does.
    """
    codes, cats = encode_ratings(ratings, categories)
    if codes.size and codes.shape[1] != 2:
        raise ValueError(f"cohen_kappa needs exactly two raters, got {codes.shape[1]}")
    W = weight_matrix(weights, cats, use_values=False)
    return _conger(codes, cats, W, "Cohen's kappa", confidence)


def conger_kappa(
    ratings: Any,
    categories: Sequence[Any] | None = None,
    *,
    weights: Any = None,
    confidence: float = 0.95,
) -> AgreementResult:
    """Conger's (1980) generalised kappa for any number of raters (irrCAC ``conger``).

    Weights use category values when numeric (irrCAC raw convention).
    """
    codes, cats = encode_ratings(ratings, categories)
    return _conger(codes, cats, weight_matrix(weights, cats), "Conger's kappa", confidence)


def percent_agreement(ratings: Any, categories: Sequence[Any] | None = None) -> MetricResult:
    """Mean over subjects with >= 2 ratings of the share of agreeing rater pairs."""
    codes, cats = encode_ratings(ratings, categories)
    counts = count_matrix(codes, len(cats)).astype(float)
    ri = counts.sum(axis=1)
    m2 = ri >= 2
    if not m2.any():
        return MetricResult(None, 0, "no subject has two or more ratings")
    share = (counts[m2] * (counts[m2] - 1)).sum(axis=1) / (ri[m2] * (ri[m2] - 1))
    return MetricResult(float(share.mean()), int(m2.sum()))


# ---------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------


def krippendorff_alpha(
    ratings: Any,
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
) -> AlphaResult:
    """Krippendorff's alpha from coincidences; matches the ``krippendorff`` package.

    ``level``: ``"nominal"``, ``"ordinal"`` (rank metric on the ordered
    ``categories``) or ``"interval"`` (squared difference of numeric values).
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError("level must be 'nominal', 'ordinal' or 'interval'")
    codes, cats = encode_ratings(ratings, categories)
    V = len(cats)
    counts = count_matrix(codes, V).astype(float)
    m = counts.sum(axis=1)
    n_units = int((m > 0).sum())
    pairable = m >= 2
    n_pairable = int(m[pairable].sum())
    if not pairable.any():
        return AlphaResult(None, None, None, level, n_units, 0, "no unit has two or more ratings")
    if V < 2:
        return AlphaResult(
            None,
            None,
            None,
            level,
            n_units,
            n_pairable,
            "only one category: expected disagreement is 0, alpha undefined",
        )
    c = counts[pairable]
    cw = c / (m[pairable] - 1)[:, None]
    o = cw.T @ c - np.diag(cw.sum(axis=0))
    n_v = o.sum(axis=0)
    n_tot = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n_tot - 1)
    idx = np.arange(V)
    if level == "nominal":
        d = (idx[:, None] != idx[None, :]).astype(float)
    elif level == "interval":
        if not all(_is_numeric_label(x) for x in cats):
            raise ValueError("interval level needs numeric categories")
        x = np.asarray([float(v) for v in cats])
        d = (x[:, None] - x[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(n_v)])
        lo = np.minimum(idx[:, None], idx[None, :])
        hi = np.maximum(idx[:, None], idx[None, :])
        d = (cum[hi + 1] - cum[lo] - (n_v[lo] + n_v[hi]) / 2) ** 2
    do = float((o * d).sum())
    de = float((e * d).sum())
    if not de > 0:
        return AlphaResult(
            None,
            do,
            de,
            level,
            n_units,
            n_pairable,
            "expected disagreement is 0 (no variation in pairable values): alpha undefined",
        )
    return AlphaResult(1 - do / de, do / n_tot, de / n_tot, level, n_units, n_pairable)


# ---------------------------------------------------------------------------
# Binary criterion decisions: Macro-F1, rubric accuracy
# ---------------------------------------------------------------------------

_TRUE_TOKENS = {"met", "true", "yes", "1", "y", "t"}
_FALSE_TOKENS = {"not_met", "not met", "notmet", "false", "no", "0", "n", "f", "unmet"}
_INVALID_TOKENS = {"invalid", "", "none", "nan", "null"}


def _binary_token(v: Any) -> int:
    if _is_missing_scalar(v):
        return -1
    if isinstance(v, bool | np.bool_):
        return int(v)
    if isinstance(v, numbers.Real):
        if v == 1:
            return 1
        if v == 0:
            return 0
        raise ValueError(f"binary label must be 0/1, got {v!r}")
    if isinstance(v, str):
        s = v.strip().lower()
        if s in _TRUE_TOKENS:
            return 1
        if s in _FALSE_TOKENS:
            return 0
        if s in _INVALID_TOKENS:
            return -1
    raise ValueError(f"unrecognised binary label {v!r}")


def encode_binary(values: Any) -> np.ndarray:
    """Encode met/not-met labels to ``int8``: 1 met, 0 not met, -1 missing/invalid.

    Accepts booleans, 0/1 numbers, ``"met"``/``"not_met"``/``"true"``/
    ``"false"``...; ``None``, ``NaN`` and ``"invalid"`` become -1.
    """
    if isinstance(values, pd.Series | pd.Index):
        values = values.to_numpy()
    arr = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object)
    arr = arr.reshape(-1)
    kind = arr.dtype.kind
    if kind == "b":
        return arr.astype(np.int8)
    if kind in "iu":
        if arr.size and not np.isin(arr, (0, 1)).all():
            raise ValueError("binary labels must be 0/1")
        return arr.astype(np.int8)
    if kind == "f":
        out = np.full(arr.shape, -1, dtype=np.int8)
        ok = ~np.isnan(arr)
        if not np.isin(arr[ok], (0.0, 1.0)).all():
            raise ValueError("binary labels must be 0/1")
        out[ok] = arr[ok].astype(np.int8)
        return out
    raw, uniques = pd.factorize(arr.astype(object), use_na_sentinel=True)
    lut = np.array([_binary_token(u) for u in uniques] + [-1], dtype=np.int8)
    return lut[raw]


def _confusion(ref: np.ndarray, pred: np.ndarray, invalid: str) -> tuple[np.ndarray, int, int]:
    """Per-pair confusion cell (0 tn, 1 fp, 2 fn, 3 tp) or -1 if dropped."""
    if invalid not in ("wrong", "exclude"):
        raise ValueError("invalid must be 'wrong' or 'exclude'")
    if ref.shape != pred.shape:
        raise ValueError("reference and predicted must have the same length")
    labelled = ref >= 0
    bad = labelled & (pred < 0)
    n_invalid = int(bad.sum())
    eff = pred.astype(np.int16)
    if invalid == "wrong":
        eff = np.where(bad, 1 - ref, eff)
        use = labelled
    else:
        use = labelled & (pred >= 0)
    cell = np.where(use, 2 * ref.astype(np.int16) + eff, -1)
    return cell, n_invalid, int((~labelled).sum())


def _mf1_from_counts(tn, fp, fn, tp):
    """Vectorised Macro-F1; NaN where either class F1 is undefined."""
    tn, fp, fn, tp = (np.asarray(x, dtype=float) for x in (tn, fp, fn, tp))
    dm = 2 * tp + fp + fn
    dn = 2 * tn + fp + fn
    with np.errstate(invalid="ignore", divide="ignore"):
        f1m = np.where(dm > 0, 2 * tp / np.where(dm > 0, dm, 1), np.nan)
        f1n = np.where(dn > 0, 2 * tn / np.where(dn > 0, dn, 1), np.nan)
    return (f1m + f1n) / 2, f1m, f1n


def macro_f1_from_counts(tn: Any, fp: Any, fn: Any, tp: Any) -> np.ndarray:
    """Macro-F1 for many confusion tables at once (e.g. one per case); NaN where either class's F1
    is undefined. Same definition as `macro_f1`, one array operation instead of a call per table."""
    return _mf1_from_counts(tn, fp, fn, tp)[0]


def _mf1_result(counts: np.ndarray, n_invalid: int, n_skipped: int) -> MacroF1Result:
    tn, fp, fn, tp = (int(x) for x in counts)
    n = tn + fp + fn + tp
    mf1, f1m, f1n = _mf1_from_counts(tn, fp, fn, tp)
    f1m_v = None if np.isnan(f1m) else float(f1m)
    f1n_v = None if np.isnan(f1n) else float(f1n)
    reason = None
    if n == 0:
        reason = "no pairs"
    elif f1m_v is None:
        reason = "F1(met) undefined: no met labels and no met predictions"
    elif f1n_v is None:
        reason = "F1(not met) undefined: no not-met labels and no not-met predictions"
    value = None if reason else float(mf1)
    return MacroF1Result(value, f1m_v, f1n_v, tp, fp, fn, tn, n, n_invalid, n_skipped, reason)


def macro_f1(reference: Any, predicted: Any, *, invalid: str = "wrong") -> MacroF1Result:
    """Macro-F1 = (F1(met) + F1(not met)) / 2 pooled over all decision pairs.

    ``predicted`` may hold invalid grader outputs (``None``/``NaN``/
    ``"invalid"``): with ``invalid="wrong"`` (ClinConsensus convention) an
    invalid output counts as predicting the opposite of the reference; with
    ``"exclude"`` the pair is dropped.  Pairs whose reference is missing are
    skipped.  ``value`` is ``None`` when either class's F1 is undefined.
    """
    ref = encode_binary(reference)
    pred = encode_binary(predicted)
    cell, n_invalid, n_skipped = _confusion(ref, pred, invalid)
    counts = np.bincount(cell[cell >= 0], minlength=4)
    return _mf1_result(counts, n_invalid, n_skipped)


def macro_f1_vs_raters(predicted: Any, raters: Any, *, invalid: str = "wrong") -> MacroF1VsRatersResult:
    """Mean of ``macro_f1(rater_j, predicted)`` over raters (LiveMedBench eq. 9).

    ``raters`` is items x raters (like ``ratings``); items a rater did not
    label (``None``) are skipped for that rater.  ``value`` is ``None`` if any
    rater's Macro-F1 is undefined.
    """
    pred = encode_binary(predicted)
    arr = _as_2d(raters)
    if arr.shape[0] != pred.shape[0]:
        raise ValueError("raters must have one row per predicted item")
    per = []
    for j in range(arr.shape[1]):  # loop over raters, not items
        ref = encode_binary(arr[:, j])
        cell, n_invalid, n_skipped = _confusion(ref, pred, invalid)
        per.append(_mf1_result(np.bincount(cell[cell >= 0], minlength=4), n_invalid, n_skipped))
    if not per:
        return MacroF1VsRatersResult(None, (), "no raters")
    undefined = [i for i, r in enumerate(per) if r.value is None]
    if undefined:
        return MacroF1VsRatersResult(None, tuple(per), f"Macro-F1 undefined against rater(s) {undefined}")
    return MacroF1VsRatersResult(float(np.mean([r.value for r in per])), tuple(per))


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
# Bootstrap confidence intervals for Macro-F1
# ---------------------------------------------------------------------------


def _group_codes(groups: Any, n: int) -> tuple[np.ndarray, int]:
    if groups is None:
        return np.arange(n), n
    g = groups.to_numpy() if isinstance(groups, pd.Series) else np.asarray(groups)
    if g.shape[0] != n:
        raise ValueError("groups must have one entry per decision")
    codes, uniques = pd.factorize(g.reshape(-1), use_na_sentinel=False)
    return codes.astype(np.int64), len(uniques)


def _group_confusion(cell: np.ndarray, gcodes: np.ndarray, G: int) -> np.ndarray:
    use = cell >= 0
    key = gcodes[use] * 4 + cell[use]
    return np.bincount(key, minlength=G * 4).reshape(G, 4).astype(float)


def _cluster_types(confs: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct per-cluster confusion rows (jointly over graders) and their counts."""
    stacked = np.hstack(confs).astype(np.int64)
    base = int(stacked.max()) + 1 if stacked.size else 1
    if base ** stacked.shape[1] < 2**62:
        # one integer key per row: a 1-D unique is much faster than axis=0
        key = stacked @ (base ** np.arange(stacked.shape[1], dtype=np.int64))
        _, first, counts = np.unique(key, return_index=True, return_counts=True)
        return stacked[first].astype(float), counts
    types, counts = np.unique(stacked, axis=0, return_counts=True)
    return types.astype(float), counts


def _resample_totals(confs: list[np.ndarray], G: int, n_boot: int, rng) -> list[np.ndarray]:
    """Bootstrap totals (n_boot x 4) for each per-cluster confusion matrix (G x 4).

    A replicate draws G clusters with replacement.  Its totals depend only on
    how many times each *type* of cluster (distinct confusion row, jointly
    over graders) is drawn.  Two exact, vectorised samplers:

    * few types (T * 8 < G, e.g. an item-level bootstrap of 10^5 decisions
      has T <= 4): the type counts are Multinomial(G, count_t / G), one draw
      per replicate, then a (replicates x T) @ (T x 4) product;
    * otherwise: G uniform cluster indices per replicate, turned into a
      (replicates x G) draw-count matrix with one bincount, then a
      (replicates x G) @ (G x 4) product.

    No loop over clusters or items; replicates are processed in chunks of
    about 4M cells.  Deterministic for a given generator state.
    """
    types, counts = _cluster_types(confs)
    T = types.shape[0]
    k = len(confs)
    out = [np.empty((n_boot, 4)) for _ in confs]
    if T * 8 < G:
        pvals = counts / G
        chunk = max(1, min(n_boot, (1 << 22) // max(T, 1)))
        for start in range(0, n_boot, chunk):
            b = min(chunk, n_boot - start)
            tot = rng.multinomial(G, pvals, size=b).astype(float) @ types
            for j in range(k):
                out[j][start : start + b] = tot[:, 4 * j : 4 * j + 4]
        return out
    stacked = np.hstack(confs)
    chunk = max(1, min(n_boot, (1 << 22) // max(G, 1)))
    for start in range(0, n_boot, chunk):
        b = min(chunk, n_boot - start)
        idx = rng.integers(0, G, size=(b, G))
        idx += (np.arange(b) * G)[:, None]
        draws = np.bincount(idx.ravel(), minlength=b * G).reshape(b, G).astype(float)
        tot = draws @ stacked
        for j in range(k):
            out[j][start : start + b] = tot[:, 4 * j : 4 * j + 4]
    return out


def _boot_summary(
    value: float | None,
    reps: np.ndarray,
    n_boot: int,
    G: int,
    n: int,
    confidence: float,
    seed: int | None,
    reason: str | None,
) -> BootstrapResult:
    ok = ~np.isnan(reps)
    n_undef = int((~ok).sum())
    if value is None:
        return BootstrapResult(None, None, None, n_boot, n_undef, G, n, confidence, seed, reason)
    if ok.sum() < 2:
        return BootstrapResult(
            value,
            None,
            None,
            n_boot,
            n_undef,
            G,
            n,
            confidence,
            seed,
            "fewer than two bootstrap replicates with a defined value",
        )
    a = (1 - confidence) / 2
    lo, hi = np.percentile(reps[ok], [100 * a, 100 * (1 - a)])
    return BootstrapResult(
        value,
        (float(lo), float(hi)),
        float(np.std(reps[ok], ddof=1)),
        n_boot,
        n_undef,
        G,
        n,
        confidence,
        seed,
        None,
    )


def bootstrap_macro_f1(
    reference: Any,
    predicted: Any,
    groups: Any = None,
    *,
    n_boot: int = 2000,
    seed: int | None = 0,
    confidence: float = 0.95,
    invalid: str = "wrong",
) -> BootstrapResult:
    """Percentile cluster-bootstrap CI for pooled Macro-F1.

    ``groups`` gives each decision's cluster (e.g. case or response id);
    clusters are resampled with replacement (``None``: each decision is its
    own cluster).  Deterministic for a given ``seed``.
    """
    ref = encode_binary(reference)
    pred = encode_binary(predicted)
    cell, n_invalid, n_skipped = _confusion(ref, pred, invalid)
    gcodes, G = _group_codes(groups, ref.shape[0])
    conf = _group_confusion(cell, gcodes, G)
    point = _mf1_result(conf.sum(axis=0).astype(int), n_invalid, n_skipped)
    if G == 0:
        return BootstrapResult(None, None, None, n_boot, 0, 0, 0, confidence, seed, "no pairs")
    rng = np.random.default_rng(seed)
    (tot,) = _resample_totals([conf], G, n_boot, rng)
    reps, _, _ = _mf1_from_counts(tot[:, 0], tot[:, 1], tot[:, 2], tot[:, 3])
    return _boot_summary(point.value, reps, n_boot, G, point.n, confidence, seed, point.reason)


def bootstrap_macro_f1_difference(
    reference: Any,
    pred_a: Any,
    pred_b: Any,
    groups: Any = None,
    *,
    n_boot: int = 2000,
    seed: int | None = 0,
    confidence: float = 0.95,
    invalid: str = "wrong",
) -> BootstrapResult:
    """Paired cluster-bootstrap CI for ``macro_f1(ref, a) - macro_f1(ref, b)``.

    Both graders are evaluated on the same resampled clusters; the invalid
    rule is applied to each grader separately (so ``value`` equals the
    difference of the two ``macro_f1`` values).
    """
    ref = encode_binary(reference)
    pa_ = encode_binary(pred_a)
    pb_ = encode_binary(pred_b)
    cell_a, ia, sk = _confusion(ref, pa_, invalid)
    cell_b, ib, _ = _confusion(ref, pb_, invalid)
    gcodes, G = _group_codes(groups, ref.shape[0])
    conf_a = _group_confusion(cell_a, gcodes, G)
    conf_b = _group_confusion(cell_b, gcodes, G)
    ra = _mf1_result(conf_a.sum(axis=0).astype(int), ia, sk)
    rb = _mf1_result(conf_b.sum(axis=0).astype(int), ib, sk)
    if ra.value is None or rb.value is None:
        why = f"grader a: {ra.reason}" if ra.value is None else f"grader b: {rb.reason}"
        return BootstrapResult(None, None, None, n_boot, 0, G, ra.n, confidence, seed, why)
    rng = np.random.default_rng(seed)
    ta, tb = _resample_totals([conf_a, conf_b], G, n_boot, rng)
    ma, _, _ = _mf1_from_counts(ta[:, 0], ta[:, 1], ta[:, 2], ta[:, 3])
    mb, _, _ = _mf1_from_counts(tb[:, 0], tb[:, 1], tb[:, 2], tb[:, 3])
    return _boot_summary(ra.value - rb.value, ma - mb, n_boot, G, ra.n, confidence, seed, None)


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
