"""Binary criterion decisions (met / not met): encoding, Macro-F1, Macro-F1 against several raters.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

import numbers
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from agreement.metrics.encoding import _as_2d, _is_missing_scalar
from agreement.metrics.results import MacroF1Result, MacroF1VsRatersResult

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
        # the range ends decide it for integers (one pass each, no hashing)
        if arr.size and (arr.min() < 0 or arr.max() > 1):
            raise ValueError("binary labels must be 0/1")
        return arr.astype(np.int8)
    if kind == "f":
        met, not_met = arr == 1.0, arr == 0.0
        if not (met | not_met | np.isnan(arr)).all():
            raise ValueError("binary labels must be 0/1")
        out = met.astype(np.int8)
        out -= ~(met | not_met)  # NaN -> -1
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


# Long columns are compared a block at a time. At ten times ClinConsensus scale a column's masks outgrow
# the processor's cache: a whole-column pass then goes to memory once per comparison, AND and count,
# while a block's masks stay in cache for all of them (twice as fast there:
# `benchmarks/agreement_scale.py`). A column that fits in cache is compared whole, in fewer calls.
_BLOCK = 32_768
_WHOLE = 4 * _BLOCK


def _label_array(values: Any) -> tuple[np.ndarray, bool]:
    """(labels as one flat array, encoded?): numbers and booleans as given, to be checked and compared in
    place; anything else through `encode_binary` (1, 0, -1 for missing or invalid), checked there."""
    arr = values.to_numpy() if isinstance(values, pd.Series | pd.Index) else values
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "biuf":
        return arr.reshape(-1), False
    return encode_binary(values), True


class _Masks(NamedTuple):
    """A label array's met and not-met masks (neither: missing or invalid) and how many of each."""

    met: np.ndarray
    not_met: np.ndarray
    n_met: int
    n_not: int

    @property
    def complete(self) -> bool:
        """Every label is met or not met: none missing or invalid."""
        return self.n_met + self.n_not == self.met.size


def _masks(met: np.ndarray, not_met: np.ndarray) -> _Masks:
    return _Masks(met, not_met, int(np.count_nonzero(met)), int(np.count_nonzero(not_met)))


def _binary_masks(arr: np.ndarray, *, encoded: bool) -> _Masks:
    """The `_Masks` of a `_label_array`. Checks like `encode_binary`."""
    if encoded:
        return _masks(arr == 1, arr == 0)
    # A column of a 2-D array is strided: one copy, then every comparison runs on contiguous memory
    # (several times faster than comparing in place).
    arr = np.ascontiguousarray(arr)
    if arr.dtype.kind == "b":
        n_met = int(np.count_nonzero(arr))
        return _Masks(arr, ~arr, n_met, arr.size - n_met)
    masks = _masks(arr == 1, arr == 0)
    if arr.dtype.kind == "f":
        # every value is 1, 0 or NaN: counted, not OR-ed into another mask
        if not masks.complete and masks.n_met + masks.n_not + np.count_nonzero(np.isnan(arr)) != arr.size:
            raise ValueError("binary labels must be 0/1")
    elif arr.size and (arr.min() < 0 or arr.max() > 1):
        raise ValueError("binary labels must be 0/1")
    return masks


def _mask_counts(ref: _Masks, pred: _Masks) -> tuple[int, int, int, int, int, int]:
    """(tn, fp, fn, tp, reference not met, reference met) of two `_Masks`.

    Only the true positives always take a pass over the masks: where a side is complete, the cells
    beside them are differences of counts already made (every reference met label is a tp or an fn
    when no prediction is missing, and so on), so labels without gaps cost one AND and one count.
    """
    cnz = np.count_nonzero
    tp = int(cnz(ref.met & pred.met))
    fp = pred.n_met - tp if ref.complete else int(cnz(ref.not_met & pred.met))
    fn = ref.n_met - tp if pred.complete else int(cnz(ref.met & pred.not_met))
    if pred.complete:
        tn = ref.n_not - fp
    elif ref.complete:
        tn = pred.n_not - fn
    else:
        tn = int(cnz(ref.not_met & pred.not_met))
    return tn, fp, fn, tp, ref.n_not, ref.n_met


# A row's two met masks read as one 16-bit number (`_pair_counts`): both met, or only the first column.
_BOTH_MET, _FIRST_ONLY = (int(np.array(x, dtype=bool).view(np.uint16)[0]) for x in ([True, True], [True, False]))


def _neighbour_columns(ref: np.ndarray, pred: np.ndarray) -> tuple[np.ndarray, bool] | None:
    """(rows x 2 view, swapped?) where `ref` and `pred` are the two columns of one row-major float array,
    else None. `swapped`: the view's first column is `pred`.

    Two such columns interleave in memory, so comparing each on its own reads every row twice (and
    copies it first: `_binary_masks`); compared as rows, each row is read once (`_pair_counts`). They
    are such columns when they are views of the same array, a value apart, each stepping over the
    other: then every byte of the rows x 2 view belongs to one of them.
    """
    width = ref.itemsize
    if (ref.dtype.kind != "f" or ref.dtype != pred.dtype or ref.ndim != 1 or ref.shape != pred.shape
            or ref.base is None or ref.base is not pred.base
            or ref.strides != (2 * width,) or pred.strides != (2 * width,)):
        return None
    gap = pred.__array_interface__["data"][0] - ref.__array_interface__["data"][0]
    if abs(gap) != width:
        return None
    first = ref if gap > 0 else pred
    rows = np.lib.stride_tricks.as_strided(first, shape=(first.size, 2), strides=(2 * width, width),
                                           writeable=False)
    return rows, gap < 0


def _pair_counts(rows: np.ndarray, swapped: bool, step: int) -> tuple[int, int, int, int, int, int] | None:
    """`_mask_counts` of a rows x 2 float array's columns (reference first unless `swapped`), a block of
    rows at a time, or None at the first block with a value other than 0 or 1 in either column (missing,
    or to be refused: the columns are then counted one by one, which checks them).

    Without gaps a block needs only its met masks: read as one 16-bit number per row they give the
    rows where both are met and where only the first is; with all the met labels counted, the rows
    where only the second is follow, and every other cell is a difference of those.
    """
    cnz = np.count_nonzero
    n = rows.shape[0]
    both = first_only = n_met = 0
    for start in range(0, n, step):
        block = rows[start:start + step]
        met = block == 1.0
        met_here = int(cnz(met))
        if met_here + cnz(block == 0.0) != met.size:
            return None
        per_row = met.view(np.uint16)
        both += int(cnz(per_row == _BOTH_MET))
        first_only += int(cnz(per_row == _FIRST_ONLY))
        n_met += met_here
    second_only = n_met - 2 * both - first_only
    ref_only, pred_only = (second_only, first_only) if swapped else (first_only, second_only)
    n_ref_met = both + ref_only
    return n - both - ref_only - pred_only, pred_only, ref_only, both, n - n_ref_met, n_ref_met


def _confusion_counts(ref: Any, pred: Any, invalid: str) -> tuple[np.ndarray, int, int]:
    """(tn, fp, fn, tp counts, invalid outputs, pairs without reference), as `_confusion` counts them.

    `ref` and `pred` are labels, or (met, not met) masks already made (`_binary_masks`, or a pair).

    From boolean masks and `count_nonzero` (a handful of passes over bits, no cell per pair): an
    invalid output is a labelled pair whose prediction is neither met nor not met.
    """
    if invalid not in ("wrong", "exclude"):
        raise ValueError("invalid must be 'wrong' or 'exclude'")
    if isinstance(ref, tuple):
        if ref[0].shape != pred[0].shape:
            raise ValueError("reference and predicted must have the same length")
        as_masks = [m if isinstance(m, _Masks) else _masks(*m) for m in (ref, pred)]
        size, totals = ref[0].size, _mask_counts(*as_masks)
    else:
        (ref, ref_encoded), (pred, pred_encoded) = _label_array(ref), _label_array(pred)
        if ref.shape != pred.shape:
            raise ValueError("reference and predicted must have the same length")
        size = ref.size
        step = _BLOCK if size > _WHOLE else max(size, 1)
        pair = None if ref_encoded or pred_encoded else _neighbour_columns(ref, pred)
        totals = None if pair is None else _pair_counts(*pair, step)
        if totals is None:
            sums = [0] * 6
            for start in range(0, size, step):
                block = slice(start, start + step)
                counts = _mask_counts(_binary_masks(ref[block], encoded=ref_encoded),
                                      _binary_masks(pred[block], encoded=pred_encoded))
                sums = [a + b for a, b in zip(sums, counts, strict=True)]
            totals = tuple(sums)
    tn, fp, fn, tp, n_not, n_met = totals
    bad_not, bad_met = n_not - tn - fp, n_met - fn - tp
    counts = np.array([tn, fp, fn, tp], dtype=np.int64)
    if invalid == "wrong":
        # an invalid output predicts the opposite of the reference: not met -> fp, met -> fn
        counts[1] += bad_not
        counts[2] += bad_met
    return counts, bad_not + bad_met, size - n_not - n_met


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
    # Scalar arithmetic, the same formula as `_mf1_from_counts` (which serves arrays of tables).
    dm, dn = 2 * tp + fp + fn, 2 * tn + fp + fn
    f1m_v = 2 * tp / dm if dm > 0 else None
    f1n_v = 2 * tn / dn if dn > 0 else None
    reason = None
    if n == 0:
        reason = "no pairs"
    elif f1m_v is None:
        reason = "F1(met) undefined: no met labels and no met predictions"
    elif f1n_v is None:
        reason = "F1(not met) undefined: no not-met labels and no not-met predictions"
    value = None if reason else (f1m_v + f1n_v) / 2
    return MacroF1Result(value, f1m_v, f1n_v, tp, fp, fn, tn, n, n_invalid, n_skipped, reason)


def macro_f1(reference: Any, predicted: Any, *, invalid: str = "wrong") -> MacroF1Result:
    """Macro-F1 = (F1(met) + F1(not met)) / 2 pooled over all decision pairs.

    ``predicted`` may hold invalid grader outputs (``None``/``NaN``/
    ``"invalid"``): with ``invalid="wrong"`` (ClinConsensus convention) an
    invalid output counts as predicting the opposite of the reference; with
    ``"exclude"`` the pair is dropped.  Pairs whose reference is missing are
    skipped.  ``value`` is ``None`` when either class's F1 is undefined.
    """
    counts, n_invalid, n_skipped = _confusion_counts(reference, predicted, invalid)
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
    pred_masks = _binary_masks(pred, encoded=True)
    per = []
    for j in range(arr.shape[1]):  # loop over raters, not items
        ref = encode_binary(arr[:, j])
        per.append(_mf1_result(*_confusion_counts(_binary_masks(ref, encoded=True), pred_masks, invalid)))
    if not per:
        return MacroF1VsRatersResult(None, (), "no raters")
    undefined = [i for i, r in enumerate(per) if r.value is None]
    if undefined:
        return MacroF1VsRatersResult(None, tuple(per), f"Macro-F1 undefined against rater(s) {undefined}")
    return MacroF1VsRatersResult(float(np.mean([r.value for r in per])), tuple(per))
