"""MEDIC judge validation statistics (agreement.metrics.judges): exact numbers on hand-made fixtures.

No database: pure functions. The Bradley-Terry ratings are checked against an independent
maximum-likelihood fit written here with scipy.optimize.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, stats

from agreement.metrics import judges as J

approx = pytest.approx

# judge 4,5,3,4,2 vs clinician 3,5,4,3,2: differences 1,0,-1,1,0
JUDGE = [4, 5, 3, 4, 2]
CLINICIAN = [3, 5, 4, 3, 2]


def test_paired_mean_difference_by_hand() -> None:
    res = J.paired_mean_difference(JUDGE, CLINICIAN)
    # mean 0.2; sd = sqrt(2.8 / 4); se = sd / sqrt(5); t(0.975, 4) = 2.7764451051977987
    se = math.sqrt(0.7) / math.sqrt(5)
    half = 2.7764451051977987 * se
    assert res.value == approx(0.2)
    assert res.se == approx(0.37416573867739417)
    assert res.ci == approx((0.2 - half, 0.2 + half))
    assert res.ci == approx((-0.8388506336835697, 1.2388506336835696))
    assert res.p_value == approx(2 * stats.t.sf(0.2 / se, 4))
    assert res.n == 5
    assert "paired t" in res.method


def test_paired_mean_difference_degenerate() -> None:
    assert J.paired_mean_difference([], []).value is None
    one = J.paired_mean_difference([3], [2])
    assert (one.value, one.ci, one.n) == (1.0, None, 1)
    same = J.paired_mean_difference([3, 4, np.nan], [2, 3, 1])
    assert (same.value, same.ci, same.p_value, same.n) == (1.0, (1.0, 1.0), None, 2)
    with pytest.raises(ValueError):
        J.paired_mean_difference([1, 2], [1])


def test_mean_differences_table_per_judge_and_axis() -> None:
    rows = []
    for k, (j, c) in enumerate(zip(JUDGE, CLINICIAN, strict=True)):
        rows.append(("J1", "safety", k, j, c))
        rows.append(("J1", "practicality", k, c - 1, c))  # always one lower
        rows.append(("J2", "safety", k, c, c if k else np.nan))  # response 0 has no clinician score
    frame = pd.DataFrame(rows, columns=["judge", "axis", "response", "judge_score", "clinician_score"])
    table = J.mean_differences(frame)
    assert list(table["judge"]) == ["J1", "J1", "J2"]
    assert list(table["axis"]) == ["practicality", "safety", "safety"]
    prac, safety, j2 = table.to_dict("records")
    assert (prac["difference"], prac["ci_low"], prac["ci_high"], prac["n"]) == (-1.0, -1.0, -1.0, 5)
    assert safety["difference"] == approx(0.2)
    assert safety["ci_low"] == approx(-0.8388506336835697)
    assert safety["mean_judge"] == approx(3.6) and safety["mean_clinician"] == approx(3.4)
    assert (j2["n"], j2["difference"]) == (4, 0.0)


def test_wilson_interval_matches_the_formula() -> None:
    z = stats.norm.ppf(0.975)
    p, n = 2 / 3, 3
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert J.wilson_interval(2, 3) == approx((centre - half, centre + half))
    assert J.wilson_interval(0, 0) is None


# A hand-made tournament, both presentation orders per pair; verdicts name model_a ("A") or model_b.
TOURNAMENT = [
    ("p1", "X", "Y", "ab", "A"), ("p1", "X", "Y", "ba", "A"),  # X wins in both orders: X wins
    ("p2", "X", "Y", "ab", "A"), ("p2", "X", "Y", "ba", "B"),  # the first shown wins each time: draw
    ("p3", "Y", "Z", "ab", "A"), ("p3", "Y", "Z", "ba", "A"),  # Y wins
    ("p4", "X", "Z", "ab", "B"), ("p4", "X", "Z", "ba", "B"),  # Z wins
    ("p5", "X", "Z", "ab", "A"), ("p5", "X", "Z", "ba", "A"),  # X wins
    ("p6", "Y", "Z", "ab", "tie"),                              # one order only: left out
    ("p7", "Z", "Y", "ab", "A"), ("p7", "Z", "Y", "ba", "invalid"),  # invalid output: left out
    ("p8", "Y", "X", "ab", "B"), ("p8", "Y", "X", "ba", "B"),  # X wins (as model_b)
]


def tournament() -> pd.DataFrame:
    return pd.DataFrame(TOURNAMENT, columns=["pair", "model_a", "model_b", "order", "verdict"])


def test_medic_both_orders_rule() -> None:
    table = J.medic_matches(tournament())
    assert (table.n_pairs, table.n_incomplete, table.n_invalid) == (8, 1, 1)
    got = list(table.matches.itertuples(index=False, name=None))
    assert got == [("X", "Y", 1.0), ("X", "Y", 0.5), ("Y", "Z", 1.0), ("X", "Z", 0.0), ("X", "Z", 1.0),
                   ("Y", "X", 0.0)]


def test_a_tie_in_one_order_is_a_draw() -> None:
    v = pd.DataFrame([("q", "X", "Y", "ab", "A"), ("q", "X", "Y", "ba", "tie")],
                     columns=["pair", "model_a", "model_b", "order", "verdict"])
    assert J.medic_matches(v).matches["score"].tolist() == [0.5]


def test_single_matches_count_every_valid_verdict() -> None:
    table = J.single_matches(tournament())
    assert (len(table.matches), table.n_invalid) == (14, 1)
    assert table.matches["score"].sum() == 8.5  # 8 "A" and one tie


def test_win_rates_by_hand() -> None:
    rates = J.win_rates(J.medic_matches(tournament()).matches).set_index(["model", "opponent"])
    xy = rates.loc[("X", "Y")]
    assert (xy["n"], xy["wins"], xy["draws"], xy["losses"]) == (3, 2, 1, 0)
    assert xy["win_rate"] == approx(2 / 3)
    assert xy["score_rate"] == approx(2.5 / 3)
    assert (xy["ci_low"], xy["ci_high"]) == approx(J.wilson_interval(2, 3))
    yx = rates.loc[("Y", "X")]
    assert (yx["wins"], yx["draws"], yx["losses"], yx["win_rate"]) == (0, 1, 2, 0.0)
    assert rates.loc[("Z", "Y")]["losses"] == 1


def test_online_elo_by_hand() -> None:
    matches = J.medic_matches(tournament()).matches
    first = J.elo_online(matches.iloc[:1])
    assert first.to_dict() == {"X": 1002.0, "Y": 998.0}  # E = 0.5, K = 4
    two = J.elo_online(matches.iloc[:2])
    e = 1 / (1 + 10 ** ((998 - 1002) / 400))  # 0.5057562...
    assert two["X"] == approx(1002 + 4 * (0.5 - e))
    assert two["Y"] == approx(998 - 4 * (0.5 - e))
    full = J.elo_online(matches)
    assert full.sum() == approx(3000.0)  # Elo updates are zero-sum


def independent_bt(matches: pd.DataFrame) -> dict[str, float]:
    """Bradley-Terry by direct maximisation of the log-likelihood (draw = half a win each)."""
    models = sorted(set(matches["model_a"]) | set(matches["model_b"]))
    idx = {m: k for k, m in enumerate(models)}

    def nll(free: np.ndarray) -> float:
        r = np.concatenate([[0.0], free])
        total = 0.0
        for a, b, s in matches.itertuples(index=False, name=None):
            d = (r[idx[a]] - r[idx[b]]) * math.log(10) / 400
            p = 1 / (1 + math.exp(-d))
            total -= s * math.log(p) + (1 - s) * math.log(1 - p)
        return total

    res = optimize.minimize(nll, np.zeros(len(models) - 1), method="BFGS", options={"gtol": 1e-10})
    r = np.concatenate([[0.0], res.x])
    r = r - r.mean() + 1000
    return dict(zip(models, r, strict=True))


def test_bradley_terry_matches_an_independent_maximum_likelihood_fit() -> None:
    matches = J.medic_matches(tournament()).matches
    res = J.bradley_terry(matches)
    assert res.reason is None and res.n_matches == 6
    expected = independent_bt(matches)
    for model, rating in expected.items():
        assert res.ratings[model] == approx(rating, abs=1e-3)
    assert res.ratings.mean() == approx(1000.0)
    # X: 3.5 points of 5 matches; Y: 1.5 of 4; Z: 1 of 3
    assert list(res.ratings.sort_values(ascending=False).index) == ["X", "Y", "Z"]


def test_bradley_terry_undefined_without_a_finite_maximum() -> None:
    sweep = pd.DataFrame({"model_a": ["X", "X"], "model_b": ["Y", "Z"], "score": [1.0, 1.0]})
    res = J.bradley_terry(sweep)
    assert res.ratings is None and "never scored" in res.reason
    assert J.bradley_terry(sweep.iloc[:0]).reason == "no matches"


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 4, 400)
    b = (a + rng.integers(1, 4, 400)) % 4
    strength = np.array([0.0, 0.3, 0.6, 0.9])
    p = 1 / (1 + np.exp(strength[b] - strength[a]))
    matches = pd.DataFrame({
        "model_a": np.array(list("ABCD"))[a], "model_b": np.array(list("ABCD"))[b],
        "score": (rng.random(400) < p).astype(float),
    })
    one = J.bradley_terry(matches, n_boot=300, seed=11)
    two = J.bradley_terry(matches, n_boot=300, seed=11)
    assert one.ci == two.ci and one.seed == 11 and one.n_boot == 300
    for model, (lo, hi) in one.ci.items():
        assert lo < one.ratings[model] < hi
    other = J.bradley_terry(matches, n_boot=300, seed=12)
    assert other.ci != one.ci


def test_batched_newton_equals_the_statsmodels_fit() -> None:
    matches = J.medic_matches(tournament()).matches
    models, codes, s_i, n = J._pair_counts(matches)
    m = len(models)
    i, j = codes // m, codes % m
    glm = J._bt_fit(m, i, j, s_i, n)
    newton = J._bt_newton(m, i, j, s_i[None, :], n[None, :], np.zeros(m))
    assert newton[0] == approx(glm, abs=1e-8)


def test_position_bias_by_hand() -> None:
    t = tournament()
    res = J.position_bias(t["pair"] + "a", t["pair"] + "b", t["order"], t["verdict"])
    # decided verdicts 13, of which the first-shown response won 8; one tie, one invalid
    assert (res.n_decided, res.counts.first_shown_wins, res.counts.invalid) == (13, 8, 1)
    assert res.counts.first_shown_win_share == approx(8 / 13)
    assert res.p_value == approx(2 * 2380 / 8192)  # P(X >= 8) for Bin(13, 1/2), doubled
    assert res.ci == approx(J.wilson_interval(8, 13))
    # pairs with both orders valid: p1 p2 p3 p4 p5 p8; only p2 changes its verdict with the order
    assert (res.counts.pairs_both_orders, res.counts.flips) == (6, 1)


def test_position_bias_without_decided_verdicts() -> None:
    res = J.position_bias(["r1"], ["r2"], ["ab"], ["tie"])
    assert (res.n_decided, res.ci, res.p_value) == (0, None, None)


def test_ranking_agreement_spearman_and_kendall() -> None:
    j1 = pd.Series({"X": 3.0, "Y": 2.0, "Z": 1.0, "W": 0.0})
    j2 = pd.Series({"X": 3.0, "Y": 1.0, "Z": 2.0, "W": 0.0, "V": 9.0})  # V: only one judge
    table = J.ranking_agreement({"J1": j1, "J2": j2})
    row = table.iloc[0]
    assert (row["first"], row["second"], row["n_models"]) == ("J1", "J2", 4)
    assert row["spearman"] == approx(0.8)  # 1 - 6 * 2 / (4 * 15)
    assert row["kendall"] == approx(4 / 6)  # 5 concordant, 1 discordant
    assert row["spearman_p"] == approx(stats.spearmanr([3, 2, 1, 0], [3, 1, 2, 0]).pvalue)
