"""AI-label audit and pipeline statistics (agreement.metrics.label_audit) on hand-computed data.

LiveClin App. E (taxonomy accuracy per level), App. J (audit accuracy per label family) and Table 1
(pipeline pass rates, Judge-approved subset, McNemar) are reproduced from raw labels. Wilson
intervals are checked against the closed form written out here and against scipy; McNemar against
statsmodels.
"""

from __future__ import annotations

import math

import pytest
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from agreement.metrics import cohen_kappa, gwet_ac1
from agreement.metrics import label_audit as L

approx = pytest.approx
Z = stats.norm.ppf(0.975)


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - half, centre + half


def scipy_wilson(k: int, n: int) -> tuple[float, float]:
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def app_e_paths() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """200 case reports. The AI is wrong on 3 chapters (so on their clusters and codes too), on 2 more
    clusters within the right chapter (and their codes), and on 1 more code within the right
    cluster: 197, 195 and 194 correct, App. E's 98.5%, 97.5% and 97.0%."""
    expert = [("2", "C40-C41", "C41")] * 200
    ai = list(expert)
    for i in range(3):
        ai[i] = ("6", "G00-G14", "G08")
    for i in range(3, 5):
        ai[i] = ("2", "C45-C49", "C49")
    ai[5] = ("2", "C40-C41", "C40")
    return ai, expert


def test_it_reproduces_the_taxonomy_accuracy_table_of_appendix_e() -> None:
    ai, expert = app_e_paths()
    table = L.taxonomy_accuracy(ai, expert)
    assert {level: (r.successes, r.n) for level, r in table.items()} == {1: (197, 200), 2: (195, 200), 3: (194, 200)}
    assert [round(100 * table[level].value, 1) for level in (1, 2, 3)] == [98.5, 97.5, 97.0]
    for level, k in ((1, 197), (2, 195), (3, 194)):
        assert table[level].ci == approx(wilson_by_hand(k, 200))
        assert table[level].ci == approx(scipy_wilson(k, 200))
    assert table[1].ci == approx((0.9568342712073097, 0.9948857622067417))


def test_it_leaves_out_items_without_an_expert_label_and_counts_a_missing_ai_label_wrong() -> None:
    ai = [("1", "A00-A19"), ("1",), ("2", "C50")]
    expert = [("1", "A00-A19"), ("1", "A20-A28"), ("2",)]
    table = L.taxonomy_accuracy(ai, expert)
    assert (table[1].successes, table[1].n) == (3, 3)
    # level 2: item 3 has no expert label (left out); item 2 has no AI label (wrong)
    assert (table[2].successes, table[2].n) == (1, 2)


def test_it_returns_no_number_for_an_empty_level() -> None:
    result = L.label_accuracy([None, None], [None, ""])
    assert result.value is None and result.ci is None and result.reason == "no items"


def test_it_refuses_unpaired_inputs() -> None:
    with pytest.raises(ValueError, match="3 predictions for 2"):
        L.label_accuracy(["a", "b", "c"], ["a", "b"])


def test_it_reproduces_the_full_audit_of_appendix_j_with_wilson_intervals_at_100_percent() -> None:
    families = ["image"] * 3757 + ["table"] * 634
    result = L.audit_accuracy(families, [True] * (3757 + 634))
    assert result["image"].value == 1.0 and result["table"].value == 1.0
    # At p = 1 the Wilson interval is [n / (n + z^2), 1]: not the degenerate [1, 1] of a Wald interval.
    assert result["image"].ci[0] == approx(3757 / (3757 + Z * Z))
    assert result["table"].ci[0] == approx(634 / (634 + Z * Z))
    assert result["table"].ci == approx(scipy_wilson(634, 634))
    assert (result["all"].successes, result["all"].n) == (4391, 4391)


def test_it_gives_each_family_its_own_accuracy_when_physicians_correct_some_labels() -> None:
    families = ["CT", "CT", "CT", "CT", "MRI", "MRI", "Lab Results"]
    correct = [True, True, True, False, True, False, True]
    result = L.audit_accuracy(families, correct)
    assert (result["CT"].successes, result["CT"].n) == (3, 4)
    assert result["CT"].ci == approx(wilson_by_hand(3, 4))
    assert (result["MRI"].successes, result["MRI"].n) == (1, 2)
    assert (result["all"].successes, result["all"].n) == (5, 7)


def table_1_outcomes() -> dict[str, dict[int, bool]]:
    """200 case reports, Table 1's pass rates: physicians 92.5% (185), Generator 84.5% (169),
    Generator-Critic 93.0% (186), Generator-Critic-Judge 89.5% (179)."""
    fails = {
        "Physicians": set(range(185, 200)),
        "Generator": set(range(0, 31)),
        "Generator-Critic": set(range(20, 34)),
        "Generator-Critic-Judge": set(range(0, 21)),
    }
    return {name: {item: item not in failed for item in range(200)} for name, failed in fails.items()}


def test_it_reproduces_the_pass_rates_of_table_1_with_the_judge_approved_subset() -> None:
    outcomes = table_1_outcomes()
    # The Judge approved 182 of the full pipeline's sets: all 179 that physicians passed and 3 they failed.
    judge = {"Generator-Critic-Judge": {item: item >= 18 for item in range(200)}}
    result = L.pipeline_comparison(outcomes, judge_approved=judge)
    assert {name: round(100 * r.value, 1) for name, r in result.pass_rates.items()} == {
        "Physicians": 92.5, "Generator": 84.5, "Generator-Critic": 93.0, "Generator-Critic-Judge": 89.5,
    }
    for name, k in (("Physicians", 185), ("Generator", 169), ("Generator-Critic", 186)):
        assert result.pass_rates[name].ci == approx(scipy_wilson(k, 200))
    subset = result.judge_approved["Generator-Critic-Judge"]
    assert (subset.successes, subset.n) == (179, 182)
    assert round(100 * subset.value, 1) == 98.4
    assert subset.ci == approx(wilson_by_hand(179, 182))
    assert [(p.a, p.b) for p in result.pairs][:3] == [
        ("Physicians", "Generator"), ("Physicians", "Generator-Critic"), ("Physicians", "Generator-Critic-Judge"),
    ]


def test_it_uses_the_exact_mcnemar_test_when_few_pairs_are_discordant() -> None:
    outcomes = table_1_outcomes()
    gen, critic = outcomes["Generator"], outcomes["Generator-Critic"]
    result = L.mcnemar([gen[i] for i in range(200)], [critic[i] for i in range(200)], a="Generator", b="Critic")
    # Generator passes 31-33 that the Critic fails (3); the Critic passes 0-19 that the Generator fails (20).
    assert (result.a_only, result.b_only, result.n) == (3, 20, 200)
    assert result.method == "exact"
    reference = sm_mcnemar([[166, 3], [20, 11]], exact=True)
    assert result.p_value == approx(reference.pvalue)
    assert result.p_value == approx(stats.binomtest(3, 23, 0.5).pvalue)  # independent of statsmodels
    assert result.statistic == approx(reference.statistic)
    assert result.difference == approx(0.845 - 0.93)


def test_it_uses_the_corrected_chi_square_when_many_pairs_are_discordant() -> None:
    a = [True] * 40 + [False] * 10 + [True] * 50
    b = [False] * 40 + [True] * 10 + [True] * 50
    result = L.mcnemar(a, b)
    assert (result.a_only, result.b_only) == (40, 10) and result.method == "chi-square"
    reference = sm_mcnemar([[50, 40], [10, 0]], exact=False, correction=True)
    assert result.statistic == approx(reference.statistic) == approx((40 - 10 - 1) ** 2 / 50)
    assert result.p_value == approx(stats.chi2.sf((40 - 10 - 1) ** 2 / 50, 1))
    assert result.p_value == approx(reference.pvalue)
    forced = L.mcnemar(a, b, exact=True)
    assert forced.p_value == approx(sm_mcnemar([[50, 40], [10, 0]], exact=True).pvalue)


def test_it_compares_pipelines_on_the_items_both_produced() -> None:
    outcomes = {"A": {1: True, 2: True, 3: False}, "B": {2: False, 3: True, 4: True}}
    pair = L.pipeline_comparison(outcomes).pairs[0]
    assert (pair.n, pair.a_only, pair.b_only) == (2, 1, 1)


def test_it_reports_identical_pipelines_without_a_statistic() -> None:
    result = L.mcnemar([True, False], [True, False])
    assert result.p_value == 1.0 and result.statistic is None and "no discordant" in result.reason
    assert L.mcnemar([], []).p_value is None


def test_it_measures_agreement_between_experts_per_level_with_the_existing_coefficients() -> None:
    level_1 = [["2", "2"], ["6", "6"], ["2", "6"], ["9", "9"], ["2", "2"]]
    level_2 = [["C40-C41", "C40-C41"], ["G00-G14", "G20-G32"], ["C50", "C50"], ["I00-I25", "I00-I25"],
               ["C50", None]]
    results = L.expert_agreement_by_level({1: level_1, 2: level_2})
    assert [r.level for r in results] == [1, 2]
    assert results[0].cohen.value == approx(cohen_kappa(level_1).value)
    assert results[0].gwet_ac1.value == approx(gwet_ac1(level_1).value)
    assert results[1].gwet_ac1.n_paired == 4
    three = L.expert_agreement_by_level({1: [["2", "2", "2"], ["6", "6", "2"]]})[0]
    assert three.cohen is None and three.gwet_ac1.value == approx(gwet_ac1([["2", "2", "2"], ["6", "6", "2"]]).value)
