"""ClinConsensus coverage metrics (agreement.metrics.rubrics.coverage): exact numbers on hand-made fixtures.

Table 9 of the paper (N = 30, tau = 10) is reproduced row by row; the sensitivity table (the
paper's Table 10) is checked on five models whose values are worked out in the comments.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreement.metrics.rubrics import coverage as C

approx = pytest.approx


def per_response(hits: dict[str, list[int]], n: int = 30) -> pd.DataFrame:
    rows = [(m, k, h, n) for m, hs in hits.items() for k, h in enumerate(hs)]
    return pd.DataFrame(rows, columns=["model", "response", "hits", "n_criteria"])


def test_table_9_rows() -> None:
    # ClinConsensus Table 9: hits 9 -> 30.0% / 0 / 0; 10 -> 33.3% / 100% / 4.8%;
    # 15 -> 50.0% / 100% / 28.6%; 30 -> 100% / 100% / 100%.
    scored = C.coverage_per_response(per_response({"m": [9, 10, 15, 30]}), 10)
    assert scored["accuracy"].tolist() == approx([0.3, 1 / 3, 0.5, 1.0])
    assert scored["passed"].tolist() == [0.0, 1.0, 1.0, 1.0]
    assert scored["cacs"].tolist() == approx([0.0, 1 / 21, 6 / 21, 1.0])
    assert [round(100 * v, 1) for v in scored["cacs"]] == [0.0, 4.8, 28.6, 100.0]


def test_pass_at() -> None:
    assert C.pass_at([9, 10, 11], 10).tolist() == [0.0, 1.0, 1.0]


def test_response_hits_from_decisions_invalid_is_not_met() -> None:
    decisions = pd.DataFrame({
        "model": ["a", "a", "a", "b", "b"], "response": [1, 1, 1, 2, 2],
        "met": ["met", "invalid", "not_met", "met", "met"],
    })
    per = C.response_hits(decisions)
    assert per.to_dict("records") == [
        {"model": "a", "response": 1, "hits": 1, "n_criteria": 3},
        {"model": "b", "response": 2, "hits": 2, "n_criteria": 2},
    ]


# Five models, two responses each, N = 30, tau = 10.
#   model  hits      accuracy   Pass@10  CACS@10
#   M1     30, 9     .65        .5       (1 + 0) / 2 = .5
#   M2     20, 20    .666667    1        11/21 = .523810
#   M3     16, 8     .4         .5       (7/21) / 2 = .166667
#   M4     10, 10    .333333    1        1/21 = .047619
#   M5     5, 5      .166667    0        0
FIVE = {"M1": [30, 9], "M2": [20, 20], "M3": [16, 8], "M4": [10, 10], "M5": [5, 5]}


def test_coverage_table_per_model_and_stratum() -> None:
    per = per_response(FIVE)
    table = C.coverage_table(per, tau=10).set_index("model")
    assert table["cacs"].to_dict() == approx({"M1": 0.5, "M2": 11 / 21, "M3": 1 / 6, "M4": 1 / 21, "M5": 0.0})
    assert table["pass_rate"].to_dict() == approx({"M1": 0.5, "M2": 1.0, "M3": 0.5, "M4": 1.0, "M5": 0.0})
    assert table["rubric_accuracy"].to_dict() == approx(
        {"M1": 0.65, "M2": 2 / 3, "M3": 0.4, "M4": 1 / 3, "M5": 1 / 6})
    assert table["tau"].unique().tolist() == [10]
    assert table["n_responses"].tolist() == [2] * 5
    per["stratum"] = ["low", "high"] * 5
    strata = C.coverage_table(per, tau=10, by=("model", "stratum")).set_index(["model", "stratum"])
    assert strata.loc[("M1", "high"), "cacs"] == 0.0 and strata.loc[("M1", "low"), "cacs"] == 1.0
    assert strata.loc[("M3", "low"), "cacs"] == approx(7 / 21)


def test_responses_with_fewer_criteria_than_tau_have_no_cacs() -> None:
    per = pd.DataFrame({"model": ["a", "a"], "response": [1, 2], "hits": [5, 3], "n_criteria": [8, 30]})
    row = C.coverage_table(per, tau=10).iloc[0]
    assert (row["n_short"], row["cacs"], row["pass_rate"]) == (1, 0.0, 0.0)
    assert row["rubric_accuracy"] == approx((5 / 8 + 3 / 30) / 2)
    with pytest.raises(ValueError):
        C.coverage_table(per, tau=0)


def test_threshold_sensitivity_table() -> None:
    table = C.threshold_sensitivity(per_response(FIVE), tau=10).set_index("metric")
    assert list(table.index) == ["CACS@7", "CACS@8", "CACS@12", "CACS@15", "Rubric Accuracy", "Pass@10"]
    # CACS@7: M2 14/24 > M1 27/48 > M3 .25 > M4 4/24 > M5 0, the same order as CACS@10
    assert table.loc["CACS@7", "spearman"] == approx(1.0)
    assert table.loc["CACS@8", "spearman"] == approx(1.0)
    # CACS@12 and @15: M1 > M2 > M3 > M4 = M5 (0): ranks [5,4,3,1.5,1.5] vs [4,5,3,2,1]
    assert table.loc["CACS@12", "spearman"] == approx(8.5 / np.sqrt(10 * 9.5))
    assert table.loc["CACS@15", "spearman"] == approx(0.8720815992723809)
    assert table.loc["Rubric Accuracy", "spearman"] == approx(1.0)
    # Pass@10: M2 = M4 (1) > M1 = M3 (.5) > M5: ranks [2.5,4.5,2.5,4.5,1] vs [4,5,3,2,1]
    assert table.loc["Pass@10", "spearman"] == approx(5 / np.sqrt(90))
    # top 3 of Pass@10 (ties by name): M2, M4, M1; of CACS@10: M2, M1, M3 -> 2/3, as in the paper's Table 10
    assert table[["top3", "top3_of", "top5", "top5_of"]].loc["Pass@10"].tolist() == [2, 3, 5, 5]
    assert table.loc["CACS@15", "top3"] == 3


def test_threshold_sensitivity_keeps_nearby_thresholds_within_n() -> None:
    table = C.threshold_sensitivity(per_response(FIVE, n=30), tau=27)
    assert list(table["metric"]) == ["CACS@24", "CACS@25", "CACS@29", "Rubric Accuracy", "Pass@27"]


def test_calibrate_tau_at_the_papers_scale() -> None:
    # 285 physician-written responses, 2,904 of 8,550 decisions met (10.19 per case) -> tau = 10
    hits = np.array([10] * 231 + [11] * 54)
    cal = C.calibrate_tau(hits, 30)
    assert (cal.tau, cal.n_responses, cal.n_decisions, cal.n_hits) == (10, 285, 8550, 2904)
    assert cal.mean == approx(2904 / 285)
    assert cal.hit_rate == approx(0.3396491228)
    assert cal.distribution == {10: 231, 11: 54}


def test_calibrate_tau_counts_decisions_not_a_consensus() -> None:
    # Two physicians each judge 9 of 30 met on one response, swapping one criterion: 18 of 60
    # decisions met -> 9 hits (a consensus with ties as not met would say 8).
    cal = C.calibrate_tau([18], 30, decisions=[60])
    assert (cal.tau, cal.mean, cal.n_decisions, cal.n_hits, cal.hit_rate) == (9, 9.0, 60, 18, 0.3)
    # Uneven coverage: 3 of 4 decisions met on a 2-criterion response, 1 of 2 on another: 1.5 and 1.
    cal = C.calibrate_tau([3, 1], [2, 2], decisions=[4, 2])
    assert cal.mean == approx(1.25) and cal.distribution == {1: 1, 1.5: 1} and cal.hit_rate == approx(4 / 6)
    with pytest.raises(ValueError, match="decision"):
        C.calibrate_tau([3], 2, decisions=[2])


def test_calibrate_tau_quartiles_and_rounding_half_up() -> None:
    cal = C.calibrate_tau([2, 4, 6, 8, 10], 30)
    assert (cal.tau, cal.median, cal.q1, cal.q3) == (6, 6.0, 4.0, 8.0)
    assert C.calibrate_tau([10, 11], 30).tau == 11  # 10.5 rounds up (numpy would round to even)
    assert C.calibrate_tau([0, 0], 30).tau == 1
    assert C.calibrate_tau([], 30).tau is None


def test_ranking_stability_between_graders() -> None:
    a = pd.Series({"M1": 0.50, "M2": 0.52, "M3": 0.17, "M4": 0.05, "M5": 0.00})
    b = pd.Series({"M1": 0.40, "M2": 0.45, "M3": 0.10, "M4": 0.12, "M5": 0.01})
    res = C.ranking_stability(a, b)
    assert res.n_models == 5
    assert res.spearman == approx(0.9)  # one adjacent swap: 1 - 6 * 2 / (5 * 24)
    assert res.kendall == approx(0.8)
    assert res.mean_abs_diff == approx((0.10 + 0.07 + 0.07 + 0.07 + 0.01) / 5)
    assert (res.top3, res.top3_of, res.top5, res.top5_of) == (2, 3, 5, 5)


def test_top_k_overlap_shrinks_k() -> None:
    a = pd.Series({"x": 1.0, "y": 0.5})
    assert C.top_k_overlap(a, a, 3) == (2, 2)
