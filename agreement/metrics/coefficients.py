"""Chance-corrected agreement coefficients (Gwet 2008/2014, irrCAC): AC1, AC2, Fleiss' kappa,
Brennan-Prediger, Cohen's / Conger's kappa and percent agreement.

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agreement.metrics.encoding import count_matrix, encode_ratings, weight_matrix
from agreement.metrics.results import AgreementResult, MetricResult, _empty_result, _result_from_influence

#: Subjects are grouped by their row of labels when there are at most this many possible rows.
MAX_PATTERNS = 4096


def _patterns(codes: np.ndarray, q: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(distinct rows of labels, how many subjects gave each), or None when rows may be too varied.

    Every per-subject quantity of these coefficients is a function of the subject's row of codes, so
    a study of 82,500 subjects rated by two raters on two categories holds at most 9 distinct rows:
    computing over them, each weighted by its count, is the same sum in a few operations. Rows are
    numbered in base q + 1 (0 = missing), one bincount over the subjects.
    """
    n, r = codes.shape
    base = q + 1
    if r == 0 or base**r > MAX_PATTERNS or base**r * 4 > n:
        return None
    idx_t = np.int16 if base**r < 32767 else np.int32
    ids = codes[:, 0].astype(idx_t)
    ids += 1
    for j in range(1, r):
        col = codes[:, j].astype(idx_t)
        col += 1
        col *= idx_t(base**j)
        ids += col
    freq = np.bincount(ids, minlength=base**r)
    present = np.flatnonzero(freq)
    digits = (present[:, None] // base ** np.arange(r)) % base - 1
    return digits.astype(codes.dtype), freq[present].astype(float)


def _subject_counts(
    codes: np.ndarray, q: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, int, int]:
    """(categories x columns counts, ratings per column, subjects per column or None, columns with >= 2
    ratings, subjects, subjects with >= 2 ratings); a column is a subject, or a distinct row of labels
    standing for `mult` subjects (`_patterns`). Subjects with no rating are dropped (irrCAC)."""
    grouped = _patterns(codes, q) if codes.ndim == 2 and codes.size else None
    if grouped is not None:
        ct_all, mult_all = count_matrix(grouped[0], q, transposed=True), grouped[1]
    else:
        ct_all, mult_all = count_matrix(codes, q, transposed=True), None  # q x n
    ri_all = ct_all.sum(axis=0)
    keep = ri_all > 0
    if keep.all():
        ct, ri, mult = ct_all.astype(float, copy=False), ri_all.astype(float, copy=False), mult_all
    else:
        ct, ri = ct_all[:, keep].astype(float), ri_all[keep].astype(float)
        mult = mult_all[keep] if mult_all is not None else None
    m2 = ri >= 2
    if mult is None:
        return ct, ri, None, m2, int(ri.shape[0]), int(m2.sum())
    return ct, ri, mult, m2, int(mult.sum()), int(mult[m2].sum())


def _one_category(name: str, kind: str, n: int, n2: int, r: int, cats: list[Any]) -> AgreementResult:
    if kind == "fleiss":
        return _empty_result(name, n, n2, r, cats, "only one category: chance agreement pe = 1, kappa = 0/0 undefined")
    # irrCAC sets pe to 1 - 1e-15 (AC1) or 1e-15 (BP) so that the
    # coefficient is ~1; we return exactly 1 with undefined inference.
    return AgreementResult(
        coefficient=name, value=1.0, se=None, ci=None, p_value=None, p_value_two_sided=None, pa=1.0, pe=None,
        n_subjects=n, n_paired=n2, n_raters=r, categories=tuple(cats),
        reason="only one category: value set to 1 (irrCAC convention); pe, se, ci and p undefined",
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
    ct, ri, mult, m2, n, n2 = _subject_counts(codes, q)
    if n == 0:
        return _empty_result(name, 0, 0, r, cats, "no ratings")
    if n2 == 0:
        return _empty_result(
            name, n, 0, r, cats, "no subject has two or more ratings: observed agreement undefined"
        )
    W = weight_matrix(weights, cats)
    if q == 1:
        return _one_category(name, kind, n, n2, r, cats)
    identity = np.array_equal(W, np.eye(q))
    # sum_k r_ik (sum_l w_kl r_il - 1) = sum_k r_ik (W r_i)_k - r_i
    # (in-place arithmetic below keeps the number of n-length temporaries low)
    pa_i = np.einsum("kn,kn->n", ct, ct if identity else W @ ct)
    pa_i -= ri
    all2 = bool(m2.all())
    buf = ri - 1.0
    buf *= ri  # r_i (r_i - 1)
    if not all2:
        buf[~m2] = 1.0
    pa_i /= buf
    if not all2:
        pa_i[~m2] = 0.0
    pa = float(pa_i.sum() if mult is None else pa_i @ mult) / n2
    inv_ri = np.divide(1.0, ri, out=buf)
    pi = (ct @ (inv_ri if mult is None else inv_ri * mult)) / n
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
    if mult is not None:
        # each pattern's deviation counted once per subject: sum_i c_i^2 = sum_p mult_p c_p^2
        coef_i *= np.sqrt(mult)
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
