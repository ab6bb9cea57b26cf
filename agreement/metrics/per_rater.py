"""Each rater against the others, for all raters at once, and AC1 from its per-subject sums.

Pure functions over numpy arrays: no Django import, no database access.

The input is a compact subjects x slots matrix of category codes (``-1`` = empty) and a matching
matrix of rater columns (which rater gave each label, ``-1`` = empty): AC1 only depends on how many
raters chose each category per subject, so slots give the same values as subjects x raters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agreement.metrics.binary import macro_f1_from_counts
from agreement.metrics.encoding import count_matrix

AC1Terms = tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]


def ac1_terms(columns: list[np.ndarray]) -> AC1Terms:
    """Per subject, from its category counts (one array per category): AC1's summands.

    (rated, paired, pa_i (0 unless paired), r_ik / r_i per category (0 unless rated)). AC1 =
    (pa - pe) / (1 - pe) with pa = sum pa_i / n_paired and pe from pi = sum (r_ik / r_i) / n_rated
    (Gwet 2008 / irrCAC, as `gwet_ac1`): sums over subjects, so AC1 over other subject sets (a rater
    left out) only needs the terms of the subjects that change.
    """
    ri = np.zeros(columns[0].shape)
    same = np.zeros(columns[0].shape)  # sum_k r_ik (r_ik - 1)
    for c in columns:
        ri += c
        same += c * (c - 1)
    rated, paired = ri > 0, ri >= 2
    pa_i = np.divide(same, ri * (ri - 1), out=np.zeros_like(ri), where=paired)
    inv = np.divide(1.0, ri, out=np.zeros_like(ri), where=rated)
    return rated, paired, pa_i, [c * inv for c in columns]


def ac1_from_sums(n: float, n2: float, pa: float, pi: np.ndarray, q: int) -> float | None:
    """AC1's value from the sums of its terms (n rated, n2 paired subjects), with `gwet_ac1`'s
    conventions for degenerate input (undefined -> None, a single category -> 1.0)."""
    if round(n) <= 0 or round(n2) <= 0:
        return None
    if q == 1:
        return 1.0
    p = pi / n
    pe = float((p * (1 - p)).sum()) / (q - 1)
    if not (1 - pe) > 1e-14:
        return None
    return float((pa / n2 - pe) / (1 - pe))


@dataclass(frozen=True)
class PerRaterResult:
    """One entry per rater column; ``None`` where a value is undefined."""

    n_labels: tuple[int, ...]
    n_shared: tuple[int, ...]
    agreement_with_others: tuple[float | None, ...]
    ac1_vs_others_majority: tuple[float | None, ...]
    #: None per rater unless the scale is met / not met (``met`` given).
    macro_f1_vs_others_majority: tuple[float | None, ...]
    ac1_without_rater: tuple[float | None, ...]


class _Entries:
    """Every labelled entry of the matrix (any rater), with per-rater sums over them."""

    def __init__(self, matrix: np.ndarray, column: np.ndarray, n_raters: int) -> None:
        self.subj, self.slot = np.nonzero((column >= 0) & (matrix >= 0))
        self.own, self.rater = matrix[self.subj, self.slot], column[self.subj, self.slot]
        self.n_raters = n_raters

    def per_rater(self, values: np.ndarray | None = None, where: np.ndarray | None = None) -> np.ndarray:
        r = self.rater if where is None else self.rater[where]
        w = None if values is None else (values if where is None else values[where])
        return np.bincount(r, weights=w, minlength=self.n_raters).astype(float)


def _ac1_without_each_rater(
    e: _Entries, columns: list[np.ndarray], width: int, q: int
) -> list[float | None]:
    """The task's AC1 with each rater left out, by swapping that rater's subjects' terms."""
    subj, rater, own, n_raters = e.subj, e.rater, e.own, e.n_raters
    total = ac1_terms(columns)
    sums = (float(total[0].sum()), float(total[1].sum()), float(total[2].sum()), np.array([s.sum() for s in total[3]]))
    # Per (rater, subject), the subject's terms before and after removing the rater's labels (a rater
    # may hold more than one label of a subject). Entries come subject by subject (np.nonzero is
    # row-major), so a rater's repeat within a subject lies at most `width` entries back: group
    # (rater, subject) keys without sorting.
    source = np.arange(subj.size)  # the first entry of each entry's (rater, subject)
    for d in range(1, width):  # a larger d is an earlier entry: it wins
        repeat = (subj[d:] == subj[:-d]) & (rater[d:] == rater[:-d])
        source[d:] = np.where(repeat, np.arange(subj.size - d), source[d:])
    first = source == np.arange(subj.size)
    inverse = (np.cumsum(first) - 1)[source]
    key_rater, key_subj = rater[first], subj[first]
    n_keys = int(first.sum())
    before = [c[key_subj] for c in columns]
    after = [b - np.bincount(inverse, weights=(own == j).astype(float), minlength=n_keys)
             for j, b in enumerate(before)]
    terms_b, terms_a = ac1_terms(before), ac1_terms(after)

    def delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bincount(key_rater, weights=a.astype(float) - b.astype(float), minlength=n_raters)

    d_n, d_n2, d_pa = (delta(a, b) for a, b in zip(terms_a[:3], terms_b[:3], strict=True))
    d_pi = np.stack([delta(a, b) for a, b in zip(terms_a[3], terms_b[3], strict=True)], axis=1)
    return [ac1_from_sums(sums[0] + d_n[k], sums[1] + d_n2[k], sums[2] + d_pa[k], sums[3] + d_pi[k], q)
            for k in range(n_raters)]


def per_rater_agreement(
    matrix: np.ndarray, column: np.ndarray, q: int, n_raters: int, *, met: int | None = None
) -> PerRaterResult | None:
    """Each rater against the others on a task: agreement with the others, AC1 and Macro-F1 against
    the others' majority (ties dropped), and the task's AC1 without the rater.

    ``matrix``: subjects x slots category codes ``0..q-1`` (``-1`` empty); ``column``: the rater
    column ``0..n_raters-1`` of each label; ``met``: the code of "met" on a met / not met scale
    (Macro-F1 then uses the others' majority as reference). Every statistic is a per-rater sum over
    the rater's own labels (numpy bincount), so the cost grows with the number of labels, not labels
    x raters. Values equal `gwet_ac1` / `macro_f1` on the same labels. None when there is no label.
    """
    if matrix.size == 0 or q == 0:
        return None
    counts = count_matrix(matrix, q, transposed=True).astype(float)  # categories x subjects
    columns = [counts[j] for j in range(q)]
    e = _Entries(matrix, column, n_raters)
    subj, own = e.subj, e.own
    # Agreement with the others: the other labels of the rater's subjects.
    others = [columns[j][subj] - (own == j) for j in range(q)]
    n_others = sum(others)
    shared = n_others > 0
    agree = e.per_rater(np.where(shared, counts[own, subj] - 1, 0.0))
    n_pairs = e.per_rater(np.where(shared, n_others, 0.0))
    # The others' majority label (ties dropped); np.argmax keeps the first of equal maxima.
    stacked = np.stack(others)
    top = stacked.max(axis=0)
    unique_top = (stacked == top).sum(axis=0) == 1
    majority = np.where(unique_top & shared, stacked.argmax(axis=0), -1)
    kept = majority >= 0
    m = e.per_rater(where=kept)
    pair_pa = e.per_rater((own == majority).astype(float), kept)
    pair_pi = np.stack([(e.per_rater((own == j).astype(float), kept) + e.per_rater((majority == j).astype(float), kept))
                        / 2 for j in range(q)], axis=1)
    mf1: list[float | None] = [None] * n_raters
    if met is not None:
        # The others' majority is the reference, the rater's label the prediction.
        ref, pred = majority == met, own == met
        values = macro_f1_from_counts(e.per_rater((~ref & ~pred).astype(float), kept),
                                      e.per_rater((~ref & pred).astype(float), kept),
                                      e.per_rater((ref & ~pred).astype(float), kept),
                                      e.per_rater((ref & pred).astype(float), kept))
        mf1 = [None if not m[k] or np.isnan(values[k]) else float(values[k]) for k in range(n_raters)]
    n_labels, n_shared = e.per_rater(), e.per_rater(shared.astype(float))
    return PerRaterResult(
        n_labels=tuple(int(x) for x in n_labels),
        n_shared=tuple(int(x) for x in n_shared),
        agreement_with_others=tuple(float(agree[k] / n_pairs[k]) if n_pairs[k] else None for k in range(n_raters)),
        ac1_vs_others_majority=tuple(ac1_from_sums(m[k], m[k], pair_pa[k], pair_pi[k], q) for k in range(n_raters)),
        macro_f1_vs_others_majority=tuple(mf1),
        ac1_without_rater=tuple(_ac1_without_each_rater(e, columns, matrix.shape[1], q)),
    )
