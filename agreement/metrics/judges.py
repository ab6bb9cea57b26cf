"""MEDIC-style judge validation: judge-minus-clinician differences, pairwise rules, win rates, ratings.

Pure functions over numpy/pandas (statsmodels and scipy for inference): no Django import, no
database access. See ``docs/metrics.md`` ("Judge validation (MEDIC)") for the formulas.

* ``paired_mean_difference`` / ``mean_differences``: MEDIC Appendix A.1, judge minus clinician per
  response, mean with a paired t interval (statsmodels ``DescrStatsW`` on the differences).
* ``medic_matches``: MEDIC Sec. 4, "a response is counted as a win only if it wins in both
  presentations; otherwise, the result is recorded as a draw".
* ``win_rates``, ``elo_online``, ``bradley_terry`` (+ ``bootstrap_ratings``): Chatbot Arena
  (Chiang et al., 2024), which MEDIC follows for its Elo ratings.
* ``position_bias``: ``pairwise.pairwise_position_bias`` with a Wilson CI and a binomial test.
* ``ranking_agreement``: Spearman and Kendall between rankings (MEDIC Fig. 5b).
"""

from __future__ import annotations

import contextlib
import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components
from statsmodels.stats.proportion import proportion_confint
from statsmodels.stats.weightstats import DescrStatsW

from agreement.metrics.correlation import kendall, spearman
from agreement.metrics.pairwise import PairwisePositionBias, pairwise_position_bias

# Chatbot Arena's Elo scale: P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / 400)).
ELO_SCALE = 400.0
ELO_BASE = 1000.0
PAIRED_T_METHOD = "paired t interval on per-response differences (statsmodels DescrStatsW.tconfint_mean)"


# ---------------------------------------------------------------------------
# Proportions
# ---------------------------------------------------------------------------


def wilson_interval(count: float, nobs: float, *, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval (statsmodels ``proportion_confint(method="wilson")``); ``None`` when ``nobs`` is 0."""
    if nobs <= 0:
        return None
    lo, hi = proportion_confint(count, nobs, alpha=1 - confidence, method="wilson")
    return float(lo), float(hi)


# ---------------------------------------------------------------------------
# Judge minus clinician (MEDIC Appendix A.1)
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MeanDifferenceResult:
    """Mean of ``judge - clinician`` over responses with a paired t interval.

    ``p_value`` is the two-sided one-sample t test of a zero mean difference.  With one response
    ``ci``/``se``/``p_value`` are ``None``; when every difference is equal the interval collapses
    to the value and ``p_value`` is ``None`` (``reason`` says so).
    """

    value: float | None
    ci: tuple[float, float] | None
    se: float | None
    p_value: float | None
    n: int
    method: str = PAIRED_T_METHOD
    reason: str | None = None


def paired_mean_difference(judge: Any, clinician: Any, *, confidence: float = 0.95) -> MeanDifferenceResult:
    """MEDIC's judge-minus-clinician mean difference on the same responses (missing pairs dropped)."""
    j = np.asarray(judge, dtype=float).reshape(-1)
    c = np.asarray(clinician, dtype=float).reshape(-1)
    if j.shape != c.shape:
        raise ValueError("judge and clinician must have the same length")
    d = (j - c)[~(np.isnan(j) | np.isnan(c))]
    n = int(d.size)
    if n == 0:
        return MeanDifferenceResult(None, None, None, None, 0, reason="no response scored by both")
    mean = float(d.mean())
    if n == 1:
        return MeanDifferenceResult(mean, None, None, None, 1, reason="one response: no interval")
    if np.ptp(d) == 0:
        return MeanDifferenceResult(mean, (mean, mean), 0.0, None, n, reason="every difference is equal")
    ds = DescrStatsW(d)
    lo, hi = ds.tconfint_mean(alpha=1 - confidence)
    _, p, _ = ds.ttest_mean(0.0)
    return MeanDifferenceResult(mean, (float(lo), float(hi)), float(ds.std_mean), float(p), n)


def mean_differences(
    frame: pd.DataFrame,
    *,
    by: tuple[str, ...] = ("judge", "axis"),
    judge_score: str = "judge_score",
    clinician_score: str = "clinician_score",
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One row per ``by`` group: n, mean judge and clinician scores, difference, CI, p.

    ``frame`` has one row per (judge, axis, response) with the clinicians' score for that response
    (the mean of the clinicians' first-round scores when more than one clinician rated it).
    """
    rows = []
    for key, group in frame.groupby(list(by), sort=True, observed=True):
        key = key if isinstance(key, tuple) else (key,)
        res = paired_mean_difference(group[judge_score], group[clinician_score], confidence=confidence)
        both = group[[judge_score, clinician_score]].dropna()
        rows.append({
            **dict(zip(by, key, strict=True)),
            "n": res.n,
            "mean_judge": float(both[judge_score].mean()) if res.n else None,
            "mean_clinician": float(both[clinician_score].mean()) if res.n else None,
            "difference": res.value,
            "ci_low": res.ci[0] if res.ci else None,
            "ci_high": res.ci[1] if res.ci else None,
            "p_value": res.p_value,
            "reason": res.reason,
        })
    columns = [*by, "n", "mean_judge", "mean_clinician", "difference", "ci_low", "ci_high", "p_value", "reason"]
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------
# Pairwise verdicts -> matches
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchTable:
    """Matches (one row per compared pair) and what was left out.

    ``matches`` columns: ``model_a``, ``model_b``, ``score`` (1 = A wins, 0 = B wins, 0.5 = draw).
    ``n_incomplete`` pairs lacked one presentation order, ``n_invalid`` had an invalid or failed
    verdict in either order; both are excluded.
    """

    matches: pd.DataFrame
    n_pairs: int
    n_incomplete: int = 0
    n_invalid: int = 0


def medic_matches(verdicts: pd.DataFrame) -> MatchTable:
    """MEDIC's rule: a win only when the response wins in both presentation orders, else a draw.

    ``verdicts`` columns: ``pair`` (identifies one comparison, e.g. judge + case + responses),
    ``model_a``, ``model_b``, ``order`` (``"ab"`` = A shown first, ``"ba"``), ``verdict``
    (``"A"``, ``"B"``, ``"tie"`` in terms of ``model_a``/``model_b`` whatever the order; anything
    else is invalid).
    """
    cols = ["model_a", "model_b", "score"]
    if verdicts.empty:
        return MatchTable(pd.DataFrame(columns=cols), 0)
    v = verdicts[["pair", "model_a", "model_b", "order", "verdict"]].copy()
    v["valid"] = v["verdict"].isin(("A", "B", "tie"))
    grouped = v.groupby("pair", sort=False)
    orders = grouped["order"].agg(lambda s: frozenset(s))
    complete = orders.map(lambda s: s == frozenset(("ab", "ba")))
    valid = grouped["valid"].all()
    keep = complete & valid
    n_incomplete = int((~complete).sum())
    n_invalid = int((complete & ~valid).sum())
    kept = v[v["pair"].map(keep)]
    a_wins = kept.assign(w=kept["verdict"] == "A").groupby("pair", sort=False)["w"].all()
    b_wins = kept.assign(w=kept["verdict"] == "B").groupby("pair", sort=False)["w"].all()
    first = kept.groupby("pair", sort=False)[["model_a", "model_b"]].first()
    score = np.where(a_wins.to_numpy(), 1.0, np.where(b_wins.to_numpy(), 0.0, 0.5))
    matches = pd.DataFrame({
        "model_a": first["model_a"].to_numpy(), "model_b": first["model_b"].to_numpy(), "score": score,
    })
    return MatchTable(matches, int(len(orders)), n_incomplete, n_invalid)


def single_matches(verdicts: pd.DataFrame) -> MatchTable:
    """Every valid verdict is one match (physicians see each pair once, in one order)."""
    valid = verdicts["verdict"].isin(("A", "B", "tie"))
    kept = verdicts[valid]
    score = kept["verdict"].map({"A": 1.0, "B": 0.0, "tie": 0.5}).to_numpy(dtype=float)
    matches = pd.DataFrame({
        "model_a": kept["model_a"].to_numpy(), "model_b": kept["model_b"].to_numpy(), "score": score,
    })
    return MatchTable(matches, int(len(verdicts)), 0, int((~valid).sum()))


# ---------------------------------------------------------------------------
# Win rates
# ---------------------------------------------------------------------------


def win_rates(matches: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Per ordered model pair (model, opponent): n, wins, draws, losses, win rate with its Wilson CI.

    ``win_rate`` = wins / n (a draw is not a win, as in MEDIC); ``score_rate`` = (wins + draws / 2) / n.
    """
    a = matches.rename(columns={"model_a": "model", "model_b": "opponent"})
    b = matches.rename(columns={"model_b": "model", "model_a": "opponent"}).assign(score=1.0 - matches["score"])
    both = pd.concat([a, b], ignore_index=True)
    rows = []
    for (model, opponent), g in both.groupby(["model", "opponent"], sort=True):
        n = len(g)
        wins = int((g["score"] == 1.0).sum())
        draws = int((g["score"] == 0.5).sum())
        ci = wilson_interval(wins, n, confidence=confidence)
        rows.append({
            "model": model, "opponent": opponent, "n": n, "wins": wins, "draws": draws, "losses": n - wins - draws,
            "win_rate": wins / n, "ci_low": ci[0], "ci_high": ci[1], "score_rate": (wins + draws / 2) / n,
        })
    columns = ["model", "opponent", "n", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "score_rate"]
    return pd.DataFrame(rows, columns=columns)


# ---------------------------------------------------------------------------
# Ratings: online Elo, Bradley-Terry (logistic model), bootstrap
# ---------------------------------------------------------------------------


def elo_online(
    matches: pd.DataFrame, *, k: float = 4.0, base: float = ELO_BASE, scale: float = ELO_SCALE,
) -> pd.Series:
    """Sequential Elo in the given match order (Chiang et al. 2024's ``compute_online_elo``: K = 4)."""
    rating: dict[Any, float] = {}
    for a, b, s in matches[["model_a", "model_b", "score"]].itertuples(index=False):
        ra, rb = rating.get(a, base), rating.get(b, base)
        ea = 1.0 / (1.0 + 10.0 ** ((rb - ra) / scale))
        rating[a] = ra + k * (s - ea)
        rating[b] = rb + k * ((1.0 - s) - (1.0 - ea))
    return pd.Series(rating, dtype=float).sort_index()


@dataclass(frozen=True)
class RatingResult:
    """Bradley-Terry ratings on the Elo scale (mean ``base``), with bootstrap CIs when asked for.

    ``ratings`` is indexed by model; ``ci`` maps model -> (low, high) (percentile bootstrap);
    ``n_boot_undefined`` counts replicates in which the maximum-likelihood fit did not exist.
    """

    ratings: pd.Series | None
    n_matches: int
    ci: dict[Any, tuple[float, float]] | None = None
    n_boot: int = 0
    n_boot_undefined: int = 0
    seed: int | None = None
    reason: str | None = None


def _pair_counts(matches: pd.DataFrame) -> tuple[list[Any], np.ndarray, np.ndarray, np.ndarray]:
    """Models (sorted), and per unordered pair (i < j): index arrays and i's score total and count."""
    models = sorted(set(matches["model_a"]) | set(matches["model_b"]), key=str)
    pos = {m: i for i, m in enumerate(models)}
    ia = matches["model_a"].map(pos).to_numpy()
    ib = matches["model_b"].map(pos).to_numpy()
    s = matches["score"].to_numpy(dtype=float)
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    s_lo = np.where(ia == lo, s, 1.0 - s)
    m = len(models)
    code = lo * m + hi
    uniq, inv = np.unique(code, return_inverse=True)
    return models, uniq, np.bincount(inv, weights=s_lo), np.bincount(inv).astype(float)


def _mle_exists(m: int, i: np.ndarray, j: np.ndarray, s_i: np.ndarray, n: np.ndarray) -> bool:
    """Zermelo/Ford: the MLE exists iff the 'scored against' digraph is strongly connected."""
    has_i = s_i > 0
    has_j = (n - s_i) > 0
    rows = np.concatenate([i[has_i], j[has_j]])
    cols = np.concatenate([j[has_i], i[has_j]])
    graph = csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))
    n_comp, _ = connected_components(graph, directed=True, connection="strong")
    return n_comp == 1


def _bt_fit(
    m: int, i: np.ndarray, j: np.ndarray, s_i: np.ndarray, n: np.ndarray, start: np.ndarray | None = None,
) -> np.ndarray | None:
    """Logistic model (statsmodels GLM, binomial, logit link) on grouped pairs; log-strengths, mean 0."""
    import statsmodels.api as sm

    if m < 2 or not _mle_exists(m, i, j, s_i, n):
        return None
    keep = n > 0
    i, j, s_i, n = i[keep], j[keep], s_i[keep], n[keep]
    x = np.zeros((i.size, m))
    x[np.arange(i.size), i] = 1.0
    x[np.arange(i.size), j] = -1.0
    x = x[:, 1:]  # model 0 is the reference (strength 0); recentred below
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = sm.GLM(s_i / n, x, family=sm.families.Binomial(), var_weights=n).fit(
            start_params=None if start is None else start[1:] - start[0], tol=1e-12, maxiter=200,
        )
    beta = np.concatenate([[0.0], np.asarray(fit.params, dtype=float)])
    return beta - beta.mean()


def _to_elo(beta: np.ndarray, base: float, scale: float) -> np.ndarray:
    return base + beta * scale / math.log(10.0)


def bradley_terry(
    matches: pd.DataFrame,
    *,
    n_boot: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    base: float = ELO_BASE,
    scale: float = ELO_SCALE,
) -> RatingResult:
    """Bradley-Terry maximum-likelihood ratings on the Elo scale, as Chatbot Arena computes them.

    P(a beats b) = 1 / (1 + 10 ** ((R_b - R_a) / scale)); a draw counts as half a win for each
    side (log-likelihood 0.5 log p + 0.5 log (1 - p)). Fitted as a logistic regression without
    intercept (statsmodels GLM, binomial family) on one +1/-1 column per model; ratings are
    centred on ``base``. Undefined (``reason``) when some model never scored against the rest
    (no finite maximum). ``n_boot`` > 0 adds a percentile bootstrap CI: matches are resampled
    with replacement (``numpy.random.default_rng(seed)``), replicates without a finite maximum
    are dropped and counted.
    """
    n_matches = int(len(matches))
    if n_matches == 0:
        return RatingResult(None, 0, reason="no matches")
    models, codes, s_i, n = _pair_counts(matches)
    m = len(models)
    i, j = codes // m, codes % m
    beta = _bt_fit(m, i, j, s_i, n)
    if beta is None:
        reason = "one model only" if m < 2 else "a model never scored against the others: no finite ratings"
        return RatingResult(None, n_matches, reason=reason)
    ratings = pd.Series(_to_elo(beta, base, scale), index=models, dtype=float)
    if n_boot <= 0:
        return RatingResult(ratings, n_matches)
    reps, undefined = _bootstrap(matches, models, beta, n_boot, seed)
    alpha = (1 - confidence) / 2
    ci = None
    if reps.size:
        elo = _to_elo(reps, base, scale)
        lo, hi = np.quantile(elo, alpha, axis=0), np.quantile(elo, 1 - alpha, axis=0)
        ci = {model: (float(lo[k]), float(hi[k])) for k, model in enumerate(models)}
    return RatingResult(ratings, n_matches, ci, n_boot, undefined, seed)


def _bootstrap(
    matches: pd.DataFrame, models: list[Any], beta: np.ndarray, n_boot: int, seed: int,
) -> tuple[np.ndarray, int]:
    """Resampling matches with replacement = a multinomial draw over (pair, outcome) cells."""
    pos = {mdl: k for k, mdl in enumerate(models)}
    m = len(models)
    ia = matches["model_a"].map(pos).to_numpy()
    ib = matches["model_b"].map(pos).to_numpy()
    s = matches["score"].to_numpy(dtype=float)
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    s_lo = np.where(ia == lo, s, 1.0 - s)
    cell_code = (lo * m + hi) * 3 + np.rint(s_lo * 2).astype(int)  # outcome 0, 0.5, 1 -> 0, 1, 2
    cells, counts = np.unique(cell_code, return_counts=True)
    pair, outcome = cells // 3, (cells % 3) / 2.0
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(len(matches), counts / counts.sum(), size=n_boot)
    pairs = np.unique(pair)
    col = np.searchsorted(pairs, pair)
    n_rep = np.zeros((n_boot, pairs.size))
    s_rep = np.zeros((n_boot, pairs.size))
    for c in range(cells.size):
        n_rep[:, col[c]] += draws[:, c]
        s_rep[:, col[c]] += draws[:, c] * outcome[c]
    i, j = pairs // m, pairs % m
    ok = np.array([_mle_exists(m, i, j, s_rep[b], n_rep[b]) for b in range(n_boot)], dtype=bool)
    if not ok.any():
        return np.zeros((0, m)), n_boot
    fits = _bt_newton(m, i, j, s_rep[ok], n_rep[ok], beta)
    finite = np.isfinite(fits).all(axis=1)  # a diverged Newton run counts as undefined too
    return fits[finite], int(n_boot - finite.sum())


def _bt_newton(
    m: int, i: np.ndarray, j: np.ndarray, s: np.ndarray, n: np.ndarray, start: np.ndarray,
) -> np.ndarray:
    """The same likelihood as ``_bt_fit``, maximised by Newton's method for all replicates at once.

    statsmodels fits one data set per call (about 2 ms each); bootstrap replicates all share one
    design, so a batched Newton step (``numpy.linalg.solve`` on a stack of Hessians) does 1,000 in
    a few milliseconds. A test checks it against ``_bt_fit`` on the original data.
    """
    x = np.zeros((i.size, m))
    x[np.arange(i.size), i] = 1.0
    x[np.arange(i.size), j] = -1.0
    x = x[:, 1:]
    beta = np.tile(start[1:] - start[0], (s.shape[0], 1))
    for _ in range(100):
        eta = beta @ x.T
        p = 1.0 / (1.0 + np.exp(-eta))
        grad = (s - n * p) @ x
        w = n * p * (1.0 - p)
        hess = np.einsum("bp,pk,pl->bkl", w, x, x)
        step = _solve_each(hess, grad)
        beta = beta + step
        if not np.abs(step).max() >= 1e-10:  # also stops on NaN
            break
    full = np.hstack([np.zeros((beta.shape[0], 1)), beta])
    return full - full.mean(axis=1, keepdims=True)


def _solve_each(hess: np.ndarray, grad: np.ndarray) -> np.ndarray:
    """Batched solve; a singular Hessian (a diverging replicate) gives NaN for that replicate only."""
    with np.errstate(all="ignore"):
        try:
            return np.linalg.solve(hess, grad[..., None])[..., 0]
        except np.linalg.LinAlgError:
            out = np.full(grad.shape, np.nan)
            for b in range(grad.shape[0]):
                with contextlib.suppress(np.linalg.LinAlgError):
                    out[b] = np.linalg.solve(hess[b], grad[b])
            return out


# ---------------------------------------------------------------------------
# Position bias and ranking agreement
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionBiasResult:
    """``pairwise.pairwise_position_bias``'s counts with inference on the first-shown win share.

    ``ci``: Wilson interval of first-shown wins / decided verdicts (A or B; ties, invalid and failed
    verdicts left out); ``p_value``: two-sided exact binomial test of 0.5 (scipy ``binomtest``).
    Works for a judge's run (both orders per pair) and for physicians (one order per rater).
    """

    counts: PairwisePositionBias
    n_decided: int
    ci: tuple[float, float] | None
    p_value: float | None


def position_bias(
    response_a: Any, response_b: Any, order: Any, verdict: Any, *, confidence: float = 0.95,
) -> PositionBiasResult:
    """Position bias with its Wilson CI and binomial p; arguments as ``pairwise_position_bias``."""
    counts = pairwise_position_bias(response_a, response_b, order, verdict)
    n_decided = int(np.isin(np.asarray(verdict, dtype=object), ("A", "B")).sum())
    if n_decided == 0:
        return PositionBiasResult(counts, 0, None, None)
    k = counts.first_shown_wins
    p = float(stats.binomtest(k, n_decided, 0.5).pvalue)
    return PositionBiasResult(counts, n_decided, wilson_interval(k, n_decided, confidence=confidence), p)


def ranking_agreement(scores: Mapping[str, pd.Series]) -> pd.DataFrame:
    """Spearman and Kendall tau-b (scipy, via ``correlation``) between every two score series.

    Each series maps model -> score (rating, win rate...); only models both series score enter.
    """
    names = list(scores)
    rows = []
    for x in range(len(names)):
        for y in range(x + 1, len(names)):
            a, b = scores[names[x]], scores[names[y]]
            common = sorted(set(a.dropna().index) & set(b.dropna().index), key=str)
            va, vb = a.loc[common].to_numpy(dtype=float), b.loc[common].to_numpy(dtype=float)
            sp, kd = spearman(va, vb), kendall(va, vb)
            rows.append({
                "first": names[x], "second": names[y], "n_models": len(common),
                "spearman": sp.value, "spearman_p": sp.p_value, "kendall": kd.value, "kendall_p": kd.p_value,
                "reason": sp.reason,
            })
    columns = ["first", "second", "n_models", "spearman", "spearman_p", "kendall", "kendall_p", "reason"]
    return pd.DataFrame(rows, columns=columns)
