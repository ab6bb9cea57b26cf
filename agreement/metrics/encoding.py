"""Labels to integer codes, category count matrices and agreement weights.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

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


def _category_index(cats: Sequence[Any]) -> dict[Any, int]:
    index: dict[Any, int] = {}
    for i, c in enumerate(cats):
        index.setdefault(c, i)
    return index


def _positions(uniques: Sequence[Any], cats: Sequence[Any]) -> list[int]:
    """Each observed label's position in ``cats``; unknown labels raise ``ValueError``."""
    index = _category_index(cats)
    unknown = [u for u in uniques if u not in index]
    if unknown:
        raise ValueError(f"ratings contain labels not in categories: {unknown[:10]}")
    return [index[u] for u in uniques]


def _integral_range(flat: np.ndarray) -> tuple[int, int, int] | None:
    """(lo, hi, number of non-missing values) of integral numbers; None when some value is not integral.

    Only the range ends are checked here: non-integral values inside the range are caught by the
    encoders, which count what they assigned.
    """
    if flat.dtype.kind != "f":
        return int(flat.min()), int(flat.max()), flat.size
    lo, hi = np.fmin.reduce(flat), np.fmax.reduce(flat)
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo != math.floor(lo) or hi != math.floor(hi):
        return None
    return int(lo), int(hi), flat.size - int(np.count_nonzero(np.isnan(flat)))


def _encode_small_range(
    flat: np.ndarray, lo: int, hi: int, n_valid: int, declared: list[Any] | None, int_labels: bool
) -> tuple[np.ndarray, list[Any]] | None:
    """One vectorised comparison per candidate value in ``lo..hi`` (at most 65 of them)."""
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
    positions = _positions(uniques, cats)
    dt = _code_dtype(len(cats))
    # masks are disjoint: codes = -1 + sum_u (index[u] + 1) * [x == u]
    # (arithmetic is much faster than boolean-mask assignment)
    codes = np.zeros(flat.shape, dtype=dt)
    for pos, m in zip(positions, masks, strict=True):
        mi = m.view(np.int8) if dt is np.int8 else m.astype(dt)
        codes += mi * dt(pos + 1)
    codes -= dt(1)
    return codes, list(cats)


def _encode_wide_range(
    flat: np.ndarray, lo: int, span: int, declared: list[Any] | None, int_labels: bool
) -> tuple[np.ndarray, list[Any]] | None:
    """A bincount over ``lo..lo+span`` finds the values present, a lookup table maps them."""
    nan = np.isnan(flat) if flat.dtype.kind == "f" else None
    vals = flat if nan is None else flat[~nan]
    off = vals.astype(np.int64) - lo
    if nan is not None and not np.array_equal(off + lo, vals):
        return None  # non-integral floats
    present_arr = np.flatnonzero(np.bincount(off, minlength=span + 1))
    uniques: list[Any] = [int(v) + lo for v in present_arr]
    if not int_labels:
        uniques = [float(v) for v in uniques]
    cats = uniques if declared is None else declared
    lut = np.full(span + 1, -1, dtype=np.int64)
    lut[present_arr] = _positions(uniques, cats)
    codes = np.full(flat.shape, -1, dtype=_code_dtype(len(cats)))
    if nan is not None:
        codes[~nan] = lut[off]
    else:
        codes[:] = lut[off]
    return codes, list(cats)


def _encode_numeric(
    flat: np.ndarray, declared: list[Any] | None, int_labels: bool
) -> tuple[np.ndarray, list[Any]] | None:
    """O(n) encoding of integral numeric labels with a small range (else None).

    Small ranges (<= 64 distinct candidate values) are encoded with one
    vectorised comparison per candidate value, larger ones with a bincount.
    """
    if flat.size == 0:
        return np.zeros(0, dtype=np.int8), list(declared or [])
    if flat.dtype.kind == "f" and np.isnan(np.fmin.reduce(flat)):  # everything missing
        q = len(declared or [])
        return np.full(flat.shape, -1, dtype=_code_dtype(q)), list(declared or [])
    bounds = _integral_range(flat)
    if bounds is None:
        return None
    lo, hi, n_valid = bounds
    span = hi - lo
    if span <= 64:
        return _encode_small_range(flat, lo, hi, n_valid, declared, int_labels)
    if span > max(1_000_000, 4 * flat.size):
        return None
    return _encode_wide_range(flat, lo, span, declared, int_labels)


def _encode_passthrough(flat: np.ndarray, declared: list[Any]) -> np.ndarray:
    """Integer labels that already are the codes ``0..q-1`` of the declared categories."""
    bad = (flat < -1) | (flat >= len(declared))
    if bad.any():
        raise ValueError(f"ratings contain labels not in categories: {np.unique(flat[bad])[:10]}")
    return flat.astype(_code_dtype(len(declared)), copy=True)


def _encode_hashed(flat: np.ndarray, declared: list[Any] | None) -> tuple[np.ndarray, list[Any]]:
    """Any labels via ``pandas.factorize``; ``""`` counts as missing, as in irrCAC."""
    if flat.dtype.kind == "O":
        empty = flat == ""
        if empty.any():
            flat = flat.copy()
            flat[empty] = None
    if flat.dtype.kind not in "iufOUS":
        raise ValueError(f"unsupported ratings dtype {flat.dtype}")
    try:
        raw_codes, raw_uniques = pd.factorize(flat, sort=False, use_na_sentinel=True)
    except TypeError:
        raw_codes, raw_uniques = pd.factorize(flat.astype(object), sort=False, use_na_sentinel=True)
    uniques = [u.item() if isinstance(u, np.generic) else u for u in np.asarray(raw_uniques, dtype=object)]
    cats = _sorted_labels(uniques) if declared is None else declared
    lut = np.empty(len(uniques) + 1, dtype=np.int64)
    lut[-1] = -1
    lut[:-1] = _positions(uniques, cats)
    return lut[raw_codes].astype(_code_dtype(len(cats))), list(cats)  # raw code -1 picks lut[-1] == -1


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
        return _encode_passthrough(flat, declared).reshape(shape), declared
    if flat.dtype.kind in "iuf":
        int_labels = flat.dtype.kind in "iu" or isinstance(arr, _IntLabelled)
        fast = _encode_numeric(np.asarray(flat), declared, int_labels)
        if fast is not None:
            codes, cats = fast
            if is_bool and declared is None:
                cats = [bool(c) for c in cats]
            return codes.reshape(shape), cats
    codes, cats = _encode_hashed(flat, declared)
    return codes.reshape(shape), cats


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
