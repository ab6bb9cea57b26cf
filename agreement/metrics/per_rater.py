"""Each rater against the others, for all raters at once, and AC1 from its per-subject sums.

Pure functions over numpy arrays: no Django import, no database access.

The input is a compact subjects x slots matrix of category codes (``-1`` = empty) and a matching
matrix of rater columns (which rater gave each label, ``-1`` = empty): AC1 only depends on how many
raters chose each category per subject, so slots give the same values as subjects x raters.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

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


def _row_numbers(columns: list[np.ndarray], radix: int) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct rows of `columns` (integers in 0..radix-1): (each row's number 0..n-1, the
    index of a row holding each number)."""
    code, bound = np.zeros(columns[0].size, dtype=np.int64), 1
    for c in columns:
        if bound * radix >= 2**62:  # renumber before the next digit could overflow
            code = pd.factorize(code)[0]
            bound = int(code.max()) + 1
        code, bound = code * radix + c.astype(np.int64), bound * radix
    number, uniques = pd.factorize(code)
    row = np.empty(len(uniques), dtype=np.int64)
    row[number] = np.arange(number.size)
    return number, row


@dataclass(frozen=True)
class _Tally:
    """How many times each rater (group) meets each kind of label; per-rater sums of a value per kind."""

    group: np.ndarray
    kind: np.ndarray
    count: np.ndarray
    n_groups: int

    def sum(self, per_kind: np.ndarray) -> np.ndarray:
        return np.bincount(self.group, weights=self.count * per_kind[self.kind], minlength=self.n_groups)


def _tally(group: np.ndarray, kind: np.ndarray, n_groups: int, n_kinds: int) -> _Tally:
    """(group, kind, count) of each distinct (group, kind) pair."""
    combined = group.astype(np.int64) * n_kinds + kind
    if n_groups * n_kinds <= 4 * combined.size + 65_536:
        counts = np.bincount(combined, minlength=n_groups * n_kinds)
        pairs = np.flatnonzero(counts)
        counts = counts[pairs]
    else:  # many distinct kinds (wide scales, many slots): sort instead of a dense table
        pairs, counts = np.unique(combined, return_counts=True)
    return _Tally(pairs // n_kinds, pairs % n_kinds, counts.astype(float), n_groups)


@dataclass(frozen=True)
class _Subjects:
    """The subjects' category counts, by kind: subjects with the same counts share a number."""

    number: np.ndarray  # each subject's kind
    counts: np.ndarray  # categories x kinds


def _subjects(matrix: np.ndarray, q: int) -> _Subjects:
    counts = count_matrix(matrix, q, transposed=True).astype(np.int64)  # categories x subjects
    number, row = _row_numbers(list(counts), matrix.shape[1] + 1)
    return _Subjects(number, counts[:, row])


def _ac1_without_each_rater(
    subj: np.ndarray, rater: np.ndarray, own: np.ndarray, subjects: _Subjects, n_raters: int, width: int
) -> list[float | None]:
    """The task's AC1 with each rater left out, by swapping that rater's subjects' terms.

    A (rater, subject) changes the subject's category counts from `before` to `before` minus the
    rater's labels there; how many (rater, subject) of each kind of change a rater has is all AC1
    without the rater needs.
    """
    q = subjects.counts.shape[0]
    total = ac1_terms(list(subjects.counts))
    weight = np.bincount(subjects.number, minlength=subjects.counts.shape[1]).astype(float)
    sums = (weight @ total[0], weight @ total[1], weight @ total[2], np.array([weight @ s for s in total[3]]))
    # Per (rater, subject): the rater's labels there (a rater may hold more than one label of a
    # subject). Entries come subject by subject (np.nonzero is row-major), so a rater's repeat within
    # a subject lies at most `width` entries back: group (rater, subject) keys without sorting.
    source = np.arange(subj.size)  # the first entry of each entry's (rater, subject)
    for d in range(1, width):  # a larger d is an earlier entry: it wins
        repeat = (subj[d:] == subj[:-d]) & (rater[d:] == rater[:-d])
        source[d:] = np.where(repeat, np.arange(subj.size - d), source[d:])
    first = source == np.arange(subj.size)
    inverse = (np.cumsum(first) - 1)[source]
    n_keys = int(first.sum())
    removed = [np.bincount(inverse, weights=own == j, minlength=n_keys).astype(np.int64) for j in range(q)]
    before = subjects.number[subj[first]]
    kind, row = _row_numbers([before, *removed], max(subjects.counts.shape[1], width + 1))
    tally = _tally(rater[first], kind, n_raters, row.size)
    kind_before = subjects.counts[:, before[row]]
    kind_after = kind_before - np.stack([r[row] for r in removed])
    terms_b, terms_a = ac1_terms(list(kind_before)), ac1_terms(list(kind_after))

    def delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return tally.sum(a.astype(float) - b.astype(float))

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
    the rater's own labels, counted by kind (numpy bincount), so the cost grows with the number of
    labels, not labels x raters. Values equal `gwet_ac1` / `macro_f1` on the same labels. None when
    there is no label.
    """
    if matrix.size == 0 or q == 0:
        return None
    subjects = _subjects(matrix, q)
    subj, slot = np.nonzero((column >= 0) & (matrix >= 0))
    own, rater = matrix[subj, slot], column[subj, slot]
    # Every statistic below depends on a label only through its kind: the label and its subject's
    # counts. Count each rater's labels of each kind once, then work per kind (a few dozen kinds for
    # hundreds of thousands of labels).
    n_kinds = subjects.counts.shape[1] * q
    tally = _tally(rater, subjects.number[subj] * q + own, n_raters, n_kinds)
    kind_own = np.arange(n_kinds) % q
    counts = subjects.counts[:, np.arange(n_kinds) // q]  # categories x kinds, the label included
    others = counts - (np.arange(q)[:, None] == kind_own)  # the other labels of the subject
    n_others = others.sum(axis=0)
    shared = n_others > 0
    agree = tally.sum(np.where(shared, counts[kind_own, np.arange(n_kinds)] - 1, 0))
    n_pairs = tally.sum(np.where(shared, n_others, 0))
    # The others' majority label (ties dropped); np.argmax keeps the first of equal maxima.
    unique_top = (others == others.max(axis=0)).sum(axis=0) == 1
    majority = np.where(unique_top & shared, others.argmax(axis=0), -1)
    kept = majority >= 0
    m = tally.sum(kept)
    pair_pa = tally.sum(kept & (kind_own == majority))
    pair_pi = np.stack([tally.sum(kept * ((kind_own == j).astype(float) + (majority == j)) / 2) for j in range(q)], axis=1)
    mf1: list[float | None] = [None] * n_raters
    if met is not None:
        # The others' majority is the reference, the rater's label the prediction.
        ref, pred = majority == met, kind_own == met
        values = macro_f1_from_counts(tally.sum(kept & ~ref & ~pred), tally.sum(kept & ~ref & pred),
                                      tally.sum(kept & ref & ~pred), tally.sum(kept & ref & pred))
        mf1 = [None if not m[k] or np.isnan(values[k]) else float(values[k]) for k in range(n_raters)]
    n_labels, n_shared = tally.sum(np.ones(n_kinds)), tally.sum(shared)
    return PerRaterResult(
        n_labels=tuple(int(x) for x in n_labels),
        n_shared=tuple(int(x) for x in n_shared),
        agreement_with_others=tuple(float(agree[k] / n_pairs[k]) if n_pairs[k] else None for k in range(n_raters)),
        ac1_vs_others_majority=tuple(ac1_from_sums(m[k], m[k], pair_pa[k], pair_pi[k], q) for k in range(n_raters)),
        macro_f1_vs_others_majority=tuple(mf1),
        ac1_without_rater=tuple(_ac1_without_each_rater(subj, rater, own, subjects, n_raters, matrix.shape[1])),
    )
