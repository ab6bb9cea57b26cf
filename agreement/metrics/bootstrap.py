"""Cluster bootstrap confidence intervals for Macro-F1 and for a difference of two graders.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from agreement.metrics.binary import _confusion, _mf1_from_counts, _mf1_result, encode_binary
from agreement.metrics.results import BootstrapResult

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
