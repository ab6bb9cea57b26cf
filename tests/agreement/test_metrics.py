"""Tests for agreement.metrics against the reference implementations.

Reference libraries (irrCAC, krippendorff, scikit-learn, scipy) are imported
only here.  No database access: pure functions.
"""

from __future__ import annotations

import ast
import math
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from irrCAC import datasets as irr_data
from irrCAC.raw import CAC as RawCAC
from irrCAC.table import CAC as TableCAC
from irrCAC.weights import Weights
from scipy import stats
from sklearn.metrics import cohen_kappa_score, f1_score

from agreement import metrics as M

TOL = 1e-9
approx = pytest.approx

# irrCAC mutates a slice of its input and sklearn warns on degenerate kappa:
# both are the reference implementations' noise, not ours.
pytestmark = [
    pytest.mark.filterwarnings("ignore::pandas.errors.SettingWithCopyWarning"),
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.UndefinedMetricWarning"),
]


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def irr_raw(df: pd.DataFrame, method: str, weights="identity", categories=None) -> dict:
    cac = RawCAC(df.copy(), weights=weights, categories=categories, digits=20)
    return getattr(cac, method)()["est"]


def irr_table(table: pd.DataFrame, method: str, weights="identity") -> dict:
    return getattr(TableCAC(table, weights=weights, digits=20), method)()["est"]


def assert_matches_irr(res: M.AgreementResult, est: dict, *, p: str = "two_sided") -> None:
    """Compare value, se, CI, p, pa and pe with irrCAC at 1e-9."""
    assert res.value == approx(est["coefficient_value"], abs=TOL)
    assert res.se == approx(est["se"], abs=TOL)
    assert res.ci[0] == approx(est["confidence_interval"][0], abs=TOL)
    assert res.ci[1] == approx(est["confidence_interval"][1], abs=TOL)
    assert res.pa == approx(est["pa"], abs=TOL)
    assert res.pe == approx(est["pe"], abs=TOL)
    if p == "two_sided":  # irrCAC gwet/fleiss/cohen: 2 * (1 - F(|z|))
        assert res.p_value_two_sided == approx(est["p_value"], abs=TOL)
    elif p == "abs_one_sided":  # irrCAC bp: 1 - F(|z|)
        assert res.p_value_two_sided / 2 == approx(est["p_value"], abs=TOL)


def table_to_raw(table: pd.DataFrame) -> pd.DataFrame:
    """Expand a contingency table (rows rater A, columns rater B) to raw ratings."""
    rows = []
    for a in table.index:
        for b in table.columns:
            rows += [(a, b)] * int(table.loc[a, b])
    return pd.DataFrame(rows, columns=["A", "B"])


def random_ratings(rng, n, r, cats, p_missing):
    """Random subjects x raters object matrix with correlated raters and missing cells."""
    truth = rng.choice(len(cats), size=n)
    noise = rng.random((n, r)) < 0.4
    labels = np.where(noise, rng.choice(len(cats), size=(n, r)), truth[:, None])
    data = np.array(cats, dtype=object)[labels]
    data[rng.random((n, r)) < p_missing] = None
    return data


# ---------------------------------------------------------------------------
# module hygiene
# ---------------------------------------------------------------------------


def test_it_does_not_import_django_or_reference_libraries():
    # Every module of the package, not just its __init__: the line is crossed module by module.
    modules = sorted(Path(M.__file__).parent.glob("*.py"))
    assert len(modules) > 1
    apps = {"accounts", "annotation", "cases", "graders", "medreview", "demo"}
    for module in modules:
        tree = ast.parse(module.read_text())
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module)
        tops = {name.split(".")[0] for name in imported}
        assert not tops & {"django", "irrCAC", "krippendorff", "sklearn"}, module.name
        assert not tops & apps, module.name
        # Within agreement, only the package itself.
        assert all(name.startswith("agreement.metrics") for name in imported if name.startswith("agreement")), module.name


def test_it_returns_frozen_results():
    res = M.gwet_ac1([[1, 1], [2, 2], [1, 2]])
    with pytest.raises(AttributeError):
        res.value = 0.5  # type: ignore[misc]


# ---------------------------------------------------------------------------
# encoding
# ---------------------------------------------------------------------------


def test_it_encodes_declared_categories_in_declared_order():
    codes, cats = M.encode_ratings([["low", "high"], [None, "mid"]], ["low", "mid", "high"])
    assert cats == ["low", "mid", "high"]
    assert codes.tolist() == [[0, 2], [-1, 1]]


def test_it_encodes_observed_categories_sorted_and_treats_blank_as_missing():
    codes, cats = M.encode_ratings([["b", ""], ["a", "c"], [np.nan, "a"]])
    assert cats == ["a", "b", "c"]
    assert codes.tolist() == [[1, -1], [0, 2], [-1, 0]]


def test_it_keeps_integer_labels_as_ints_for_lists_and_arrays():
    _, cats = M.encode_ratings([[1, 3], [None, 2]])
    assert cats == [1, 2, 3] and all(type(c) is int for c in cats)
    _, cats = M.encode_ratings(np.array([[5, 7], [7, 5]]))
    assert cats == [5, 7]


def test_it_encodes_float_arrays_with_nan_and_non_integral_values():
    codes, cats = M.encode_ratings(np.array([[1.5, 2.0], [np.nan, 3.0]]))
    assert cats == [1.5, 2.0, 3.0]
    assert codes.tolist() == [[0, 1], [-1, 2]]


def test_it_encodes_a_dataframe_with_none_cells():
    df = pd.DataFrame({"r1": ["x", None], "r2": ["y", "x"]})
    codes, cats = M.encode_ratings(df)
    assert cats == ["x", "y"]
    assert codes.tolist() == [[0, 1], [-1, 0]]


def test_it_passes_integer_codes_through_on_the_fast_path():
    arr = np.array([[0, 1], [2, -1]])
    codes, cats = M.encode_ratings(arr, [0, 1, 2])
    assert cats == [0, 1, 2]
    assert codes.tolist() == arr.tolist()


def test_it_pads_ragged_rows_with_missing():
    codes, cats = M.encode_ratings([["a"], ["a", "b", "b"]])
    assert codes.tolist() == [[0, -1, -1], [0, 1, 1]]


def test_it_rejects_labels_outside_the_declared_categories():
    with pytest.raises(ValueError, match="not in categories"):
        M.encode_ratings([[1, 2], [3, 1]], [1, 2])
    with pytest.raises(ValueError, match="not in categories"):
        M.encode_ratings([["a", "z"]], ["a", "b"])


def test_it_encodes_large_ranges_and_wide_numeric_labels():
    arr = np.array([[0, 1000], [500, np.nan]])
    codes, cats = M.encode_ratings(arr)
    assert cats == [0.0, 500.0, 1000.0]
    assert codes.tolist() == [[0, 2], [1, -1]]
    big = np.array([[0, 10_000_000], [10_000_000, 0]])
    codes, cats = M.encode_ratings(big)
    assert cats == [0, 10_000_000]
    assert codes.tolist() == [[0, 1], [1, 0]]


def test_it_builds_the_count_matrix_in_both_layouts():
    codes = np.array([[0, 1, 1], [2, -1, 2]])
    assert M.count_matrix(codes, 3).tolist() == [[1, 2, 0], [0, 0, 2]]
    assert M.count_matrix(codes, 3, transposed=True).tolist() == [[1, 0], [2, 0], [0, 2]]
    wide = np.tile(np.arange(40), (3, 8))  # q * r > 256: bincount path
    assert M.count_matrix(wide, 40, transposed=True).sum(axis=0).tolist() == [320] * 3


# ---------------------------------------------------------------------------
# chance-corrected coefficients vs irrCAC on its bundled datasets
# ---------------------------------------------------------------------------

RAW_DATASETS = ["raw_4raters", "raw_5observers", "raw_g1g2", "raw_gender", "raw_ben_gerry"]


@pytest.mark.parametrize("name", RAW_DATASETS)
def test_it_matches_irrcac_ac1_on_bundled_datasets(name):
    df = getattr(irr_data, name)()
    assert_matches_irr(M.gwet_ac1(df), irr_raw(df, "gwet"))


@pytest.mark.parametrize("name", RAW_DATASETS)
def test_it_matches_irrcac_fleiss_kappa_on_bundled_datasets(name):
    df = getattr(irr_data, name)()
    assert_matches_irr(M.fleiss_kappa(df), irr_raw(df, "fleiss"))


@pytest.mark.parametrize("name", RAW_DATASETS)
def test_it_matches_irrcac_brennan_prediger_on_bundled_datasets(name):
    df = getattr(irr_data, name)()
    est = irr_raw(df, "bp")
    res = M.brennan_prediger(df)
    assert_matches_irr(res, est, p="abs_one_sided")
    if res.value >= 0:
        assert res.p_value == approx(est["p_value"], abs=TOL)


@pytest.mark.parametrize("name", ["raw_4raters", "raw_5observers"])
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_it_matches_irrcac_ac2_on_numeric_datasets(name, weights):
    df = getattr(irr_data, name)()
    assert_matches_irr(M.gwet_ac2(df, weights=weights), irr_raw(df, "gwet", weights=weights))


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_it_matches_irrcac_weighted_fleiss_and_bp(weights):
    df = irr_data.raw_5observers()
    assert_matches_irr(M.fleiss_kappa(df, weights=weights), irr_raw(df, "fleiss", weights=weights))
    assert_matches_irr(
        M.brennan_prediger(df, weights=weights), irr_raw(df, "bp", weights=weights), p="abs_one_sided"
    )


def test_it_matches_irrcac_ac2_with_a_custom_weight_matrix():
    df = irr_data.raw_4raters()
    bipolar = Weights([1.0, 2.0, 3.0, 4.0, 5.0]).bipolar()
    res = M.gwet_ac2(df, weights=bipolar)
    assert_matches_irr(res, irr_raw(df, "gwet", weights="bipolar"))
    # Gwet's published example (irrCAC raw.py docstring), 5 decimals
    assert res.value == approx(0.90037, abs=5e-6)
    assert res.se == approx(0.10582, abs=5e-6)
    assert res.ci[0] == approx(0.66747, abs=5e-6)


def test_it_reproduces_gwets_published_four_rater_example():
    """irrCAC raw.py docstring (Gwet 2014 handbook data): 12 units, 4 raters."""
    df = irr_data.raw_4raters()
    ac1 = M.gwet_ac1(df)
    assert ac1.value == approx(0.77544, abs=5e-6)
    assert ac1.se == approx(0.14295, abs=5e-6)
    assert ac1.ci == (approx(0.46081, abs=5e-6), 1.0)
    assert ac1.p_value_two_sided == approx(0.00021, abs=5e-6)
    assert ac1.pa == approx(0.81818, abs=5e-6)
    assert ac1.pe == approx(0.19032, abs=5e-6)
    assert ac1.n_subjects == 12 and ac1.n_raters == 4
    fk = M.fleiss_kappa(df)
    assert fk.value == approx(0.76117, abs=5e-6)
    assert fk.se == approx(0.15302, abs=5e-6)
    assert fk.ci[0] == approx(0.42438, abs=5e-6)
    assert fk.pe == approx(0.23872, abs=5e-6)


def test_it_reproduces_gwets_published_contingency_table_example():
    """irrCAC table.py docstring: 100 pregnancies, 2 abstractors, 3 categories.

    The coefficient is the same from raw ratings; the published SE uses the
    contingency-table variance (divisor n), ours the raw-data one (n - 1),
    which matches irrCAC ``raw.CAC`` on the expanded ratings.
    """
    table = irr_data.table_cont3x3abstractors()
    raw = table_to_raw(table)
    cats = list(table.index)
    ac1 = M.gwet_ac1(raw, cats)
    assert ac1.value == approx(0.84933, abs=5e-6)
    assert ac1.pa == approx(0.89, abs=1e-12)
    assert ac1.pe == approx(0.26992, abs=5e-6)
    assert_matches_irr(ac1, irr_raw(raw, "gwet", categories=cats))
    assert ac1.se == approx(0.04322 * math.sqrt(100 / 99), abs=5e-5)
    ac2 = M.gwet_ac2(raw, cats, weights="quadratic")
    assert ac2.value == approx(0.94024, abs=5e-6)
    assert ac2.pe == approx(0.53985, abs=5e-6)
    assert_matches_irr(ac2, irr_raw(raw, "gwet", weights="quadratic", categories=cats))


@pytest.mark.parametrize("weights", ["identity", "quadratic", "linear"])
def test_it_matches_irrcac_on_expanded_contingency_tables(weights):
    for table in (irr_data.table_cont3x3abstractors(), irr_data.table_cont4x4diagnosis()):
        raw = table_to_raw(table)
        cats = list(table.index)
        w = None if weights == "identity" else weights
        res = M.gwet_ac2(raw, cats, weights=w) if w else M.gwet_ac1(raw, cats)
        assert res.value == approx(irr_table(table, "gwet", weights=weights)["coefficient_value"], abs=TOL)
        assert_matches_irr(res, irr_raw(raw, "gwet", weights=weights, categories=cats))


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
@pytest.mark.parametrize("dataset", ["table_cont3x3abstractors", "table_cont4x4diagnosis"])
def test_it_matches_irrcac_and_sklearn_cohen_kappa_on_bundled_tables(dataset, weights):
    table = getattr(irr_data, dataset)()
    raw = table_to_raw(table)
    cats = list(table.index)
    res = M.cohen_kappa(raw, cats, weights=weights)
    # value: scikit-learn and irrCAC's contingency-table Cohen kappa
    ref = cohen_kappa_score(raw["A"], raw["B"], labels=cats, weights=weights)
    assert res.value == approx(ref, abs=TOL)
    table_est = irr_table(table, "cohen", weights=weights or "identity")
    assert res.value == approx(table_est["coefficient_value"], abs=TOL)
    assert res.pe == approx(table_est["pe"], abs=TOL)
    # SE, CI, p: irrCAC's raw-data two-rater kappa (Conger's kappa with r = 2)
    assert_matches_irr(res, irr_raw(raw, "conger", weights=weights or "identity", categories=cats))
    assert res.n_subjects == int(table.to_numpy().sum())


def test_it_matches_irrcac_raw_cohen_kappa_with_missing_ratings():
    df = irr_data.raw_ben_gerry()  # one missing rating
    assert_matches_irr(M.cohen_kappa(df), irr_raw(df, "conger"))
    two = irr_data.raw_4raters().iloc[:, :2]
    for w in (None, "linear", "quadratic"):
        assert_matches_irr(M.cohen_kappa(two, weights=w), irr_raw(two, "conger", weights=w or "identity"))


def test_it_uses_each_raters_own_marginals_for_cohen_chance_agreement():
    data = [[1, 1], [2, 2], [1, 2], [None, 1], [2, None], [1, 1]]
    res = M.cohen_kappa(data)
    assert res.n_subjects == 6 and res.n_paired == 4
    assert res.pa == approx(3 / 4)
    p1 = np.array([3, 2]) / 5  # rater 1 over its 5 ratings
    p2 = np.array([3, 2]) / 5
    assert res.pe == approx(float(p1 @ p2), abs=TOL)
    complete = [row for row in data if None not in row]
    ref = cohen_kappa_score([r[0] for r in complete], [r[1] for r in complete])
    assert M.cohen_kappa(complete).value == approx(ref, abs=TOL)


@pytest.mark.parametrize("name", RAW_DATASETS)
def test_it_matches_irrcac_conger_kappa_on_bundled_datasets(name):
    df = getattr(irr_data, name)()
    assert_matches_irr(M.conger_kappa(df), irr_raw(df, "conger"))


def test_it_rejects_cohen_kappa_with_more_than_two_raters():
    with pytest.raises(ValueError, match="two raters"):
        M.cohen_kappa([[1, 1, 2]])


def test_it_matches_irrcac_on_random_matrices_with_missing_and_unobserved_categories():
    rng = np.random.default_rng(20260121)
    checked = 0
    for _trial in range(60):
        n = int(rng.integers(3, 40))
        r = int(rng.integers(2, 7))
        q = int(rng.integers(2, 6))
        declared = list(range(1, q + 2))  # one more category than can be drawn
        data = random_ratings(rng, n, r, declared[:q], p_missing=0.35)
        df = pd.DataFrame(data).astype(float)
        if ((df.notna().sum(axis=1)) >= 2).sum() < 2 or df.stack().nunique() < 2:
            continue
        # irrCAC needs its categories sorted; pass the declared scale
        res = M.gwet_ac1(df, declared)
        assert_matches_irr(res, irr_raw(df, "gwet", categories=declared))
        fk = M.fleiss_kappa(df, declared)
        assert_matches_irr(fk, irr_raw(df, "fleiss", categories=declared))
        bp = M.brennan_prediger(df, declared)
        assert_matches_irr(bp, irr_raw(df, "bp", categories=declared), p="abs_one_sided")
        for w in ("linear", "quadratic"):
            ac2 = M.gwet_ac2(df, declared, weights=w)
            assert_matches_irr(ac2, irr_raw(df, "gwet", weights=w, categories=declared))
        # the same data given as a list of lists with None
        as_list = [[None if pd.isna(v) else int(v) for v in row] for row in df.itertuples(index=False)]
        assert M.gwet_ac1(as_list, declared).se == approx(res.se, abs=TOL)
        checked += 1
    assert checked >= 40


def test_it_matches_irrcac_on_random_string_labels():
    rng = np.random.default_rng(7)
    for _ in range(20):
        data = random_ratings(rng, 25, 3, ["a", "b", "c"], p_missing=0.2)
        df = pd.DataFrame(data)
        if ((df.notna().sum(axis=1)) >= 2).sum() < 2:
            continue
        assert_matches_irr(M.gwet_ac1(df), irr_raw(df, "gwet"))
        assert_matches_irr(M.fleiss_kappa(df), irr_raw(df, "fleiss"))


def test_it_matches_sklearn_and_irrcac_cohen_kappa_on_random_pairs():
    rng = np.random.default_rng(11)
    for _trial in range(15):
        q = int(rng.integers(2, 6))
        cats = list(range(q + 1))  # one category never drawn
        data = random_ratings(rng, int(rng.integers(5, 60)), 2, cats[:q], p_missing=0.0)
        df = pd.DataFrame(data).astype(float)
        a, b = data[:, 0].astype(int), data[:, 1].astype(int)
        for w in (None, "linear", "quadratic"):
            res = M.cohen_kappa(data, cats, weights=w)
            ref = cohen_kappa_score(a, b, labels=cats, weights=w)
            if not np.isfinite(ref):
                assert res.value is None
                continue
            assert res.value == approx(ref, abs=TOL)
            assert_matches_irr(res, irr_raw(df, "conger", weights=w or "identity", categories=cats))
        # with missing ratings: irrCAC's raw two-rater kappa
        holed = df.copy()
        holed[rng.random(holed.shape) < 0.2] = np.nan
        if (holed.notna().sum(axis=1) == 2).sum() >= 2 and holed.notna().sum().min() > 0:
            res = M.cohen_kappa(holed, cats)
            est = irr_raw(holed, "conger", categories=cats)
            if res.value is None:
                assert not np.isfinite(est["coefficient_value"])
            else:
                assert_matches_irr(res, est)


def test_it_matches_irrcac_conger_kappa_on_random_matrices():
    rng = np.random.default_rng(13)
    checked = 0
    for _ in range(16):
        q = int(rng.integers(2, 5))
        cats = list(range(1, q + 2))
        df = pd.DataFrame(
            random_ratings(rng, int(rng.integers(4, 30)), int(rng.integers(3, 6)), cats[:q], 0.25)
        )
        df = df.astype(float)
        if (df.notna().sum(axis=1) >= 2).sum() < 2 or df.notna().sum().min() == 0:
            continue
        for w in ("identity", "quadratic"):
            res = M.conger_kappa(df, cats, weights=None if w == "identity" else w)
            est = irr_raw(df, "conger", weights=w, categories=cats)
            if res.value is None:
                continue
            assert_matches_irr(res, est)
        checked += 1
    assert checked >= 8


def test_it_reports_one_sided_and_two_sided_p_values_consistently():
    df = irr_data.raw_4raters()
    res = M.gwet_ac1(df)
    t = res.value / res.se
    assert res.p_value == approx(stats.t.sf(t, res.n_subjects - 1), abs=1e-15)
    assert res.p_value_two_sided == approx(2 * res.p_value, abs=1e-15)
    # negative coefficient: one-sided p above 1/2
    neg = M.gwet_ac1([[1, 2], [2, 1], [1, 2], [2, 1], [1, 1]])
    assert neg.value < 0 and neg.p_value > 0.5
    assert neg.p_value_two_sided == approx(2 * (1 - neg.p_value), abs=1e-12)


def test_it_caps_the_upper_confidence_bound_at_one_but_not_the_lower_bound():
    res = M.gwet_ac1([["a", "a"], ["b", "b"], ["a", "b"]])
    half = stats.t.ppf(0.975, 2) * res.se
    assert res.ci[1] == 1.0
    assert res.ci[0] == approx(res.value - half, abs=TOL)
    assert res.ci[0] < -1  # irrCAC does not clip the low end either


def test_it_honours_the_confidence_level():
    df = irr_data.raw_4raters()
    res = M.gwet_ac1(df, confidence=0.90)
    est = RawCAC(df, confidence_level=0.90, digits=20).gwet()["est"]
    assert res.ci[0] == approx(est["confidence_interval"][0], abs=TOL)


def test_it_counts_single_rating_subjects_in_prevalence_but_not_in_pa():
    data = [["a", "a"], ["b", "b"], ["a", "b"], ["b", None], ["b", None]]
    res = M.gwet_ac1(data)
    assert res.n_subjects == 5 and res.n_paired == 3
    assert res.pa == approx(2 / 3, abs=TOL)
    pi_b = (0 + 1 + 0.5 + 1 + 1) / 5
    assert res.pe == approx(2 * pi_b * (1 - pi_b), abs=TOL)


def test_it_drops_subjects_without_any_rating_like_irrcac():
    df = irr_data.raw_4raters()
    padded = pd.concat([df, pd.DataFrame([[np.nan] * 4], columns=df.columns)])
    assert M.gwet_ac1(padded).se == approx(M.gwet_ac1(df).se, abs=TOL)
    assert M.gwet_ac1(padded).n_subjects == 12


def test_it_uses_declared_categories_for_chance_agreement():
    data = [[1, 1], [2, 2], [1, 2], [1, 1]]
    observed = M.gwet_ac1(data)
    declared = M.gwet_ac1(data, [1, 2, 3, 4])
    assert observed.categories == (1, 2) and declared.categories == (1, 2, 3, 4)
    assert declared.pe < observed.pe
    assert M.brennan_prediger(data, [1, 2, 3, 4]).pe == approx(0.25)


def test_it_computes_percent_agreement_over_rater_pairs():
    data = [["a", "a", "a"], ["a", "a", "b"], ["a", None, "b"], ["c", None, None]]
    res = M.percent_agreement(data)
    assert res.value == approx((1 + 1 / 3 + 0) / 3, abs=TOL)
    assert res.n == 3
    df = irr_data.raw_4raters()
    assert M.percent_agreement(df).value == approx(irr_raw(df, "gwet")["pa"], abs=TOL)


def test_it_matches_irrcac_on_a_clinconsensus_scale_matrix():
    # Speed is measured by benchmarks/agreement_scale.py, not here; this checks the fast path is exact.
    rng = np.random.default_rng(3)
    n = 82_500
    a = rng.integers(0, 2, n)
    b = np.where(rng.random(n) < 0.85, a, 1 - a)
    df = pd.DataFrame({"r1": a, "r2": b}).astype(float)
    assert_matches_irr(M.gwet_ac1(df), irr_raw(df, "gwet"))


# ---------------------------------------------------------------------------
# degenerate input for the coefficients
# ---------------------------------------------------------------------------

COEFFICIENTS = [M.gwet_ac1, M.fleiss_kappa, M.brennan_prediger, M.gwet_ac2, M.conger_kappa, M.cohen_kappa]


@pytest.mark.parametrize("func", COEFFICIENTS)
@pytest.mark.parametrize("data", [[], np.empty((0, 2)), pd.DataFrame(columns=["a", "b"]), [[None, None]]])
def test_it_returns_none_with_a_reason_for_empty_input(func, data):
    res = func(data)
    assert res.value is None and res.se is None and res.ci is None and res.p_value is None
    assert res.reason == "no ratings"
    assert res.n_subjects == 0


@pytest.mark.parametrize("func", COEFFICIENTS)
def test_it_returns_none_when_no_subject_has_two_ratings(func):
    res = func([[1, None], [None, 2], [3, None]])
    assert res.value is None and res.pa is None
    assert "two or more ratings" in res.reason
    assert res.n_subjects == 3 and res.n_paired == 0


@pytest.mark.parametrize("func", [M.gwet_ac1, M.brennan_prediger])
def test_it_returns_one_for_perfect_agreement_on_a_declared_scale(func):
    res = func([[0, 0], [0, 0], [0, 0]], [0, 1])
    assert res.value == 1.0 and res.pa == 1.0
    assert res.se == 0.0  # irrCAC floors se at 1e-15 for the t statistic
    assert res.ci == (approx(1.0, abs=1e-12), 1.0)
    assert res.p_value == approx(0.0, abs=1e-12)
    assert res.reason is None


def test_it_matches_irrcac_when_every_rater_picks_the_same_declared_category():
    df = pd.DataFrame([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    est = irr_raw(df, "gwet", categories=[0, 1])
    res = M.gwet_ac1(df, [0, 1])
    assert res.value == approx(est["coefficient_value"], abs=TOL)
    assert res.ci[0] == approx(est["confidence_interval"][0], abs=TOL)


@pytest.mark.parametrize("func", [M.gwet_ac1, M.brennan_prediger])
def test_it_follows_irrcac_convention_for_a_single_observed_category(func):
    res = func([["yes", "yes"], ["yes", "yes"]])
    assert res.value == 1.0
    assert res.se is None and res.ci is None and res.p_value is None and res.pe is None
    assert "only one category" in res.reason


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_it_matches_irrcac_value_for_a_single_observed_category():
    df = pd.DataFrame([[1.0, 1.0], [1.0, 1.0], [1.0, np.nan]])
    assert M.gwet_ac1(df).value == approx(irr_raw(df, "gwet")["coefficient_value"], abs=TOL)
    assert M.brennan_prediger(df).value == approx(irr_raw(df, "bp")["coefficient_value"], abs=TOL)
    with pytest.raises(ZeroDivisionError):  # irrCAC itself fails for Fleiss; we return None
        irr_raw(df, "fleiss")
    assert M.fleiss_kappa(df).value is None


def test_it_returns_none_for_fleiss_kappa_when_chance_agreement_is_one():
    declared = M.fleiss_kappa([[0, 0], [0, 0]], [0, 1])
    assert declared.value is None and declared.pe == 1.0 and "pe = 1" in declared.reason
    single = M.fleiss_kappa([[0, 0], [0, 0]])
    assert single.value is None and "only one category" in single.reason


def test_it_returns_none_for_cohen_kappa_when_both_raters_use_one_category():
    res = M.cohen_kappa([[1, 1], [1, 1]], [0, 1])
    assert res.value is None and "pe = 1" in res.reason
    assert math.isnan(cohen_kappa_score([1, 1], [1, 1], labels=[0, 1]))


def test_it_gives_cohen_kappa_degenerate_results():
    assert M.cohen_kappa([]).reason == "no ratings"
    assert "two or more ratings" in M.cohen_kappa([[1, None], [None, 2]]).reason
    one = M.cohen_kappa([[0, 1]], [0, 1])
    assert one.value == approx(0.0) and one.se is None and "single subject" in one.reason


@pytest.mark.parametrize("func", [M.gwet_ac1, M.fleiss_kappa, M.brennan_prediger])
def test_it_gives_a_value_but_no_inference_for_a_single_subject(func):
    res = func([[0, 1]], [0, 1])
    assert res.value == approx(-1.0)
    assert res.se is None and res.ci is None and res.p_value is None and res.p_value_two_sided is None
    assert "single subject" in res.reason


def test_it_returns_none_for_percent_agreement_without_pairs():
    assert M.percent_agreement([]).value is None
    assert M.percent_agreement([[1, None]]).reason == "no subject has two or more ratings"


def test_it_validates_weights():
    with pytest.raises(ValueError):
        M.gwet_ac2([[1, 2], [2, 2]], weights="cubic")
    with pytest.raises(ValueError):
        M.gwet_ac2([[1, 2], [2, 2]], weights=np.eye(3))
    w = M.weight_matrix("linear", ["lo", "mid", "hi"])
    assert w.tolist() == [[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]]
    assert M.weight_matrix("quadratic", [0, 1, 4]).tolist()[0] == [1, approx(15 / 16), 0]


# ---------------------------------------------------------------------------
# Krippendorff's alpha vs the krippendorff package
# ---------------------------------------------------------------------------

KRIPP_EXAMPLE = [
    [np.nan, np.nan, np.nan, np.nan, np.nan, 3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
    [1, np.nan, 2, 1, 3, 3, 4, 3, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
    [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4],
]
KRIPP_ORDINAL = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
@pytest.mark.parametrize("data", [KRIPP_EXAMPLE, KRIPP_ORDINAL], ids=["wikipedia", "ordinal_example"])
def test_it_matches_the_krippendorff_package_on_its_examples(level, data):
    rel = np.array(data, dtype=float)  # raters x units
    res = M.krippendorff_alpha(rel.T, level)
    assert res.value == approx(krippendorff.alpha(rel, level_of_measurement=level), abs=TOL)


def test_it_reproduces_the_krippendorff_docstring_values():
    rel = np.array(KRIPP_EXAMPLE, dtype=float).T
    assert M.krippendorff_alpha(rel, "nominal").value == approx(0.691358, abs=5e-7)
    assert M.krippendorff_alpha(rel, "interval").value == approx(0.810845, abs=5e-7)
    assert M.krippendorff_alpha(np.array(KRIPP_ORDINAL).T, "ordinal").value == approx(0.815, abs=5e-4)


def test_it_computes_ordinal_alpha_on_string_labels_in_declared_order():
    labels = ["very low", "low", "mid", "high", "very high"]
    rel = np.array(KRIPP_ORDINAL, dtype=float)
    as_str = [[None if np.isnan(v) else labels[int(v) - 1] for v in row] for row in rel.T]
    res = M.krippendorff_alpha(as_str, "ordinal", labels)
    assert res.value == approx(krippendorff.alpha(rel, level_of_measurement="ordinal"), abs=TOL)
    nominal = M.krippendorff_alpha(as_str, "nominal")
    assert nominal.value == approx(0.743, abs=5e-4)


@pytest.mark.parametrize("name", ["raw_4raters", "raw_5observers"])
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_it_matches_the_krippendorff_package_on_irrcac_data(name, level):
    df = getattr(irr_data, name)()
    res = M.krippendorff_alpha(df, level)
    assert res.value == approx(krippendorff.alpha(df.to_numpy().T, level_of_measurement=level), abs=TOL)


def test_it_matches_the_krippendorff_package_on_random_data_with_declared_domain():
    rng = np.random.default_rng(5)
    for _ in range(40):
        q = int(rng.integers(2, 6))
        domain = list(range(q + 1))  # one unobserved value
        data = random_ratings(rng, int(rng.integers(3, 30)), int(rng.integers(2, 6)), domain[:q], 0.3)
        rel = pd.DataFrame(data).astype(float).to_numpy().T
        pairable = (~np.isnan(rel)).sum(axis=0) >= 2
        if not pairable.any() or len(np.unique(rel[:, pairable][~np.isnan(rel[:, pairable])])) < 2:
            continue
        for level in ("nominal", "ordinal", "interval"):
            ours = M.krippendorff_alpha(rel.T, level, domain)
            ref = krippendorff.alpha(rel, value_domain=domain, level_of_measurement=level)
            assert ours.value == approx(ref, abs=TOL)


def test_it_returns_none_for_degenerate_krippendorff_input():
    assert M.krippendorff_alpha([], "nominal").value is None
    assert "two or more" in M.krippendorff_alpha([[1, None], [None, 2]]).reason
    assert "only one category" in M.krippendorff_alpha([[1, 1], [1, 1]]).reason
    res = M.krippendorff_alpha([[1, 1], [1, 1], [2, None]], "interval")
    assert res.value is None and "expected disagreement is 0" in res.reason
    with pytest.raises(ValueError):
        M.krippendorff_alpha([["a", "b"]], "interval")
    with pytest.raises(ValueError):
        M.krippendorff_alpha([[1, 2]], "ratio")


# ---------------------------------------------------------------------------
# Macro-F1, rubric accuracy
# ---------------------------------------------------------------------------


def test_it_matches_sklearn_macro_f1_on_random_binary_labels():
    rng = np.random.default_rng(2)
    for _ in range(25):
        n = int(rng.integers(2, 200))
        ref = rng.integers(0, 2, n)
        pred = np.where(rng.random(n) < 0.7, ref, rng.integers(0, 2, n))
        if len(set(ref) | set(pred)) < 2:
            continue
        res = M.macro_f1(ref, pred)
        assert res.value == approx(f1_score(ref, pred, average="macro", labels=[0, 1]), abs=TOL)
        assert res.f1_met == approx(f1_score(ref, pred, pos_label=1), abs=TOL)
        assert res.f1_not_met == approx(f1_score(ref, pred, pos_label=0), abs=TOL)
        assert res.tp + res.fp + res.fn + res.tn == n == res.n


def test_it_accepts_booleans_strings_and_numbers_as_binary_labels():
    ref = [True, "met", 1, "not_met", False, 0.0, "Not met"]
    pred = ["true", 1, "MET", "false", "no", 0, "not met"]
    res = M.macro_f1(ref, pred)
    assert res.value == 1.0
    with pytest.raises(ValueError):
        M.macro_f1(["maybe"], [1])
    with pytest.raises(ValueError):
        M.macro_f1(np.array([2, 0]), np.array([1, 0]))


def test_it_counts_invalid_outputs_as_wrong_by_default():
    ref = [1, 1, 0, 0, 1, 0]
    pred = [1, None, 0, "invalid", 1, np.nan]
    res = M.macro_f1(ref, pred)
    # invalid -> opposite of the reference
    effective = [1, 0, 0, 1, 1, 1]
    assert res.value == approx(f1_score(ref, effective, average="macro"), abs=TOL)
    assert res.n == 6 and res.n_invalid == 3


def test_it_can_exclude_invalid_outputs():
    ref = [1, 1, 0, 0, 1, 0]
    pred = [1, None, 0, "invalid", 0, 1]
    res = M.macro_f1(ref, pred, invalid="exclude")
    assert res.value == approx(f1_score([1, 0, 1, 0], [1, 0, 0, 1], average="macro"), abs=TOL)
    assert res.n == 4 and res.n_invalid == 2
    with pytest.raises(ValueError):
        M.macro_f1(ref, pred, invalid="drop")


def test_it_skips_pairs_without_a_reference_label():
    res = M.macro_f1([1, None, 0, 1], [1, 1, 0, 0])
    assert res.n == 3 and res.n_skipped == 1
    assert res.value == approx(f1_score([1, 0, 1], [1, 0, 0], average="macro"), abs=TOL)


def test_it_returns_none_when_a_class_f1_is_undefined():
    only_met = M.macro_f1([1, 1, 1], [1, 1, 1])
    assert only_met.value is None and only_met.f1_met == 1.0 and only_met.f1_not_met is None
    assert "F1(not met) undefined" in only_met.reason
    only_not = M.macro_f1([0, 0], [0, 0])
    assert only_not.value is None and "F1(met) undefined" in only_not.reason
    empty = M.macro_f1([], [])
    assert empty.value is None and empty.reason == "no pairs"
    # one class absent from the reference but predicted: defined (F1 = 0), never silent
    some = M.macro_f1([1, 1], [1, 0])
    assert some.value == approx(f1_score([1, 1], [1, 0], average="macro", labels=[0, 1], zero_division=0))
    assert some.f1_not_met == 0.0


def test_it_averages_macro_f1_over_raters_like_livemedbench_eq9():
    pred = [1, 0, 1, 1, 0, 0]
    raters = [[1, 1], [0, None], [1, 0], [0, 1], [0, 0], [None, 0]]
    res = M.macro_f1_vs_raters(pred, raters)
    a = f1_score([1, 0, 1, 0, 0], [1, 0, 1, 1, 0], average="macro")
    b = f1_score([1, 0, 1, 0, 0], [1, 1, 1, 0, 0], average="macro")
    assert res.value == approx((a + b) / 2, abs=TOL)
    assert [r.n_skipped for r in res.per_rater] == [1, 1]
    res_df = M.macro_f1_vs_raters(np.array(pred), pd.DataFrame(raters))
    assert res_df.value == approx(res.value, abs=TOL)


def test_it_returns_none_for_macro_f1_vs_raters_when_one_rater_is_undefined():
    res = M.macro_f1_vs_raters([1, 1], [[1, 1], [1, 0]])
    assert res.value is None and "rater(s) [0]" in res.reason
    with pytest.raises(ValueError):
        M.macro_f1_vs_raters([1, 1, 0], [[1, 1]])


def test_it_computes_rubric_accuracy():
    res = M.rubric_accuracy([1, 0, 1, 1, None], [1, 1, None, 1, 0])
    assert res.value == approx(2 / 4) and res.n == 4
    excl = M.rubric_accuracy([1, 0, 1, 1], [1, 1, None, 1], invalid="exclude")
    assert excl.value == approx(2 / 3) and excl.n == 3
    assert M.rubric_accuracy([], []).value is None


def test_it_handles_large_boolean_arrays_quickly():
    rng = np.random.default_rng(0)
    ref = rng.random(82_500) < 0.5
    pred = ref ^ (rng.random(82_500) < 0.2)
    res = M.macro_f1(ref, pred)
    assert res.value == approx(f1_score(ref, pred, average="macro"), abs=TOL)
    obj = np.where(rng.random(82_500) < 0.01, None, pred.astype(object))
    assert M.macro_f1(ref, obj).n_invalid == int(sum(v is None for v in obj))


# ---------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------


def naive_bootstrap(ref, preds, groups, n_boot, seed, diff=False):
    """Loop-based reference: same random draws, sklearn F1 per replicate."""
    ref = np.asarray(ref)
    groups = np.asarray(groups)
    uniq, gcodes = np.unique(groups, return_inverse=True)
    order = pd.factorize(groups)[1]
    members = {g: np.flatnonzero(groups == g) for g in order}
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(order), size=(n_boot, len(order)))
    out = []
    for row in draws:
        idx = np.concatenate([members[order[j]] for j in row])
        vals = [
            f1_score(ref[idx], np.asarray(p)[idx], average="macro", labels=[0, 1], zero_division=0)
            for p in preds
        ]
        out.append(vals[0] - vals[1] if diff else vals[0])
    return np.array(out)


def test_it_matches_a_loop_based_cluster_bootstrap_for_macro_f1():
    rng = np.random.default_rng(9)
    groups = np.repeat(np.arange(30), 5)
    ref = rng.integers(0, 2, groups.size)
    pred = np.where(rng.random(groups.size) < 0.8, ref, 1 - ref)
    res = M.bootstrap_macro_f1(ref, pred, groups, n_boot=200, seed=42)
    reps = naive_bootstrap(ref, [pred], groups, 200, 42)
    assert res.value == approx(f1_score(ref, pred, average="macro"), abs=TOL)
    assert res.ci[0] == approx(np.percentile(reps, 2.5), abs=TOL)
    assert res.ci[1] == approx(np.percentile(reps, 97.5), abs=TOL)
    assert res.se == approx(np.std(reps, ddof=1), abs=TOL)
    assert res.n_groups == 30 and res.n == groups.size and res.n_undefined == 0


def test_it_matches_a_loop_based_paired_bootstrap_for_the_macro_f1_difference():
    rng = np.random.default_rng(10)
    groups = np.repeat([f"case{i}" for i in range(25)], 4)
    ref = rng.integers(0, 2, groups.size)
    pa_ = np.where(rng.random(groups.size) < 0.85, ref, 1 - ref)
    pb_ = np.where(rng.random(groups.size) < 0.7, ref, 1 - ref)
    res = M.bootstrap_macro_f1_difference(ref, pa_, pb_, groups, n_boot=120, seed=1)
    reps = naive_bootstrap(ref, [pa_, pb_], groups, 120, 1, diff=True)
    expected = f1_score(ref, pa_, average="macro") - f1_score(ref, pb_, average="macro")
    assert res.value == approx(expected, abs=TOL)
    assert res.ci[0] == approx(np.percentile(reps, 2.5), abs=TOL)
    assert res.ci[1] == approx(np.percentile(reps, 97.5), abs=TOL)


def test_it_uses_an_exact_multinomial_bootstrap_over_cluster_types():
    """Item-level bootstrap: 4 cluster types, resampled as Multinomial(G, share)."""
    rng = np.random.default_rng(21)
    ref = rng.integers(0, 2, 400)
    pred = np.where(rng.random(400) < 0.8, ref, 1 - ref)
    res = M.bootstrap_macro_f1(ref, pred, None, n_boot=300, seed=5)
    # replay: types in cell order tn, fp, fn, tp (the implementation's key order)
    cells = [(0, 0), (0, 1), (1, 0), (1, 1)]
    counts = np.array([np.sum((ref == a) & (pred == b)) for a, b in cells])
    draws = np.random.default_rng(5).multinomial(400, counts / 400, size=300)
    reps = []
    for row in draws:
        r_ = np.concatenate([[a] * m for (a, _), m in zip(cells, row, strict=True)])
        p_ = np.concatenate([[b] * m for (_, b), m in zip(cells, row, strict=True)])
        reps.append(f1_score(r_, p_, average="macro", labels=[0, 1], zero_division=0))
    assert res.ci[0] == approx(np.percentile(reps, 2.5), abs=TOL)
    assert res.ci[1] == approx(np.percentile(reps, 97.5), abs=TOL)
    # and it agrees in distribution with resampling item indices
    idx = np.random.default_rng(0).integers(0, 400, size=(3000, 400))
    r_, p_ = ref[idx], pred[idx]
    tp = ((r_ == 1) & (p_ == 1)).sum(1)
    tn = ((r_ == 0) & (p_ == 0)).sum(1)
    wrong = (r_ != p_).sum(1)
    naive = (2 * tp / (2 * tp + wrong) + 2 * tn / (2 * tn + wrong)) / 2
    wide = M.bootstrap_macro_f1(ref, pred, None, n_boot=3000, seed=5)
    assert wide.ci[0] == approx(np.percentile(naive, 2.5), abs=0.01)
    assert wide.ci[1] == approx(np.percentile(naive, 97.5), abs=0.01)


def test_it_is_deterministic_for_a_seed_and_resamples_items_without_groups():
    rng = np.random.default_rng(4)
    ref = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, ref, 1 - ref)
    a = M.bootstrap_macro_f1(ref, pred, None, seed=3)
    b = M.bootstrap_macro_f1(ref, pred, None, seed=3)
    c = M.bootstrap_macro_f1(ref, pred, None, seed=4)
    assert a == b and a.ci != c.ci
    assert a.n_boot == 2000 and a.n_groups == 200
    assert a.ci[0] < a.value < a.ci[1]


def test_it_bootstraps_many_clusters_in_chunks():
    rng = np.random.default_rng(8)
    groups = np.arange(5000).repeat(3)
    ref = rng.integers(0, 2, groups.size)
    pred = np.where(rng.random(groups.size) < 0.8, ref, 1 - ref)
    res = M.bootstrap_macro_f1(ref, pred, groups, n_boot=2000, seed=0)
    assert res.ci[0] < res.value < res.ci[1]
    assert res.se == approx(0.006, abs=0.003)


def test_it_reports_undefined_bootstrap_results():
    res = M.bootstrap_macro_f1([1, 1], [1, 1], [0, 1], n_boot=50)
    assert res.value is None and res.ci is None and "undefined" in res.reason
    empty = M.bootstrap_macro_f1([], [], [], n_boot=50)
    assert empty.value is None and empty.reason == "no pairs"
    # replicates that draw only one class are undefined and counted, not zero
    few = M.bootstrap_macro_f1([1, 0], [1, 0], [0, 1], n_boot=200, seed=0)
    assert few.value == 1.0 and few.n_undefined > 0
    diff = M.bootstrap_macro_f1_difference([1, 1], [1, 1], [1, 0], [0, 1], n_boot=50)
    assert diff.value is None and diff.reason.startswith("grader a")


def test_it_applies_the_invalid_rule_in_the_bootstrap():
    ref = [1, 0, 1, 0, 1, 0, 1, 0]
    pred = [1, 0, None, 0, 1, "invalid", 1, 0]
    groups = [0, 0, 1, 1, 2, 2, 3, 3]
    wrong = M.bootstrap_macro_f1(ref, pred, groups, n_boot=100)
    excl = M.bootstrap_macro_f1(ref, pred, groups, n_boot=100, invalid="exclude")
    assert wrong.value == M.macro_f1(ref, pred).value
    assert excl.value == M.macro_f1(ref, pred, invalid="exclude").value == 1.0


# ---------------------------------------------------------------------------
# correlations vs scipy
# ---------------------------------------------------------------------------


def test_it_matches_scipy_correlations():
    rng = np.random.default_rng(12)
    x = rng.random(40)
    y = x + rng.normal(0, 0.3, 40)
    p = M.pearson(x, y)
    ref = stats.pearsonr(x, y)
    assert p.value == approx(ref.statistic, abs=TOL) and p.p_value == approx(ref.pvalue, abs=TOL)
    lo, hi = ref.confidence_interval()
    assert p.ci == (approx(lo, abs=TOL), approx(hi, abs=TOL))
    z = np.arctanh(ref.statistic)
    half = stats.norm.ppf(0.975) / math.sqrt(37)
    assert p.ci[0] == approx(math.tanh(z - half), abs=TOL)
    s = M.spearman(x, y)
    sref = stats.spearmanr(x, y)
    assert s.value == approx(sref.statistic, abs=TOL) and s.p_value == approx(sref.pvalue, abs=TOL)
    assert s.ci is None
    k = M.kendall(np.round(x, 1), np.round(y, 1))  # with ties: tau-b
    kref = stats.kendalltau(np.round(x, 1), np.round(y, 1))
    assert k.value == approx(kref.statistic, abs=TOL) and k.p_value == approx(kref.pvalue, abs=TOL)
    assert k.n == 40 and k.method == "kendall"


def test_it_drops_incomplete_pairs_in_correlations():
    x = [1.0, 2.0, None, 4.0, 5.0, 7.0]
    y = [2.0, 1.0, 3.0, np.nan, 6.0, 8.0]
    res = M.pearson(x, y)
    assert res.n == 4
    assert res.value == approx(stats.pearsonr([1, 2, 5, 7], [2, 1, 6, 8]).statistic, abs=TOL)


@pytest.mark.parametrize("func", [M.pearson, M.spearman, M.kendall])
def test_it_returns_none_for_degenerate_correlations(func):
    assert func([], []).value is None
    short = func([1, 2], [2, 3])
    assert short.value is None and short.reason == "fewer than 3 complete pairs"
    const = func([1, 1, 1, 1], [1, 2, 3, 4])
    assert const.value is None and "constant" in const.reason
    with pytest.raises(ValueError):
        func([1, 2, 3], [1, 2])


def test_it_omits_the_pearson_ci_for_three_points():
    res = M.pearson([1, 2, 3], [1, 3, 2])
    assert res.value == approx(0.5) and res.ci is None


# ---------------------------------------------------------------------------
# case scores and CACS
# ---------------------------------------------------------------------------


def test_it_computes_livemedbench_case_scores_with_clipping():
    assert M.case_score([5, 3, 2], [1, 0, 1]) == approx(0.7)
    assert M.case_score([5, 3, -4], [1, 0, 1]) == approx(1 / 8)
    assert M.case_score([5, -10], [1, 1]) == 0.0  # clipped at 0
    assert M.case_score([5, 3], [True, None]) == approx(5 / 8)  # invalid = not met
    assert M.case_score([-3, 0], [1, 1]) is None  # no positive points
    assert M.case_score([], []) is None


def test_it_vectorises_case_scores_and_documents_metric_calc_difference():
    case = np.array([0, 0, 0, 1, 1, 2, 2])
    points = np.array([5, 3, -10, 4, 6, -2, 0])
    met = np.array([1, 0, 1, 1, 1, 1, 0])
    scores = M.case_scores(case, points, met)
    assert scores[0] == 0.0 and scores[1] == 1.0 and math.isnan(scores[2])
    per_case = [M.case_score(points[case == c], met[case == c]) for c in range(2)]
    assert scores[:2].tolist() == per_case
    raw = M.case_scores(case, points, met, clip=False)
    assert raw[0] == approx(-5 / 8)
    # LiveMedBench paper: mean of clipped case scores; metric_calc.py: clip of the mean
    paper = np.nanmean(scores)
    metric_calc = float(np.clip(np.nanmean(raw), 0, 1))
    assert paper == approx(0.5) and metric_calc == approx(0.1875)
    assert M.case_scores(np.array([1]), [2], [1], n_cases=3).shape == (3,)
    assert M.case_scores(np.array([], dtype=int), [], []).shape == (0,)
    with pytest.raises(ValueError):
        M.case_scores(np.array([-1]), [1], [1])


def test_it_reproduces_clinconsensus_table9_cacs_values():
    res = M.cacs([9, 10, 15, 30], tau=10, n_criteria=30)
    assert res.per_response.tolist() == [0.0, approx(1 / 21), approx(6 / 21), 1.0]
    assert round(res.per_response[1] * 100, 1) == 4.8
    assert round(res.per_response[2] * 100, 1) == 28.6
    assert res.value == approx((0 + 1 / 21 + 6 / 21 + 1) / 4)
    assert res.n == 4 and res.tau == 10


def test_it_computes_cacs_from_criterion_hit_matrices():
    rng = np.random.default_rng(0)
    hits = (rng.random((20, 30)) < 0.4).astype(int)
    from_matrix = M.cacs(hits, tau=10)
    from_counts = M.cacs(hits.sum(axis=1), tau=10, n_criteria=30)
    assert from_matrix.value == approx(from_counts.value, abs=TOL)
    ragged = [[1, 1, 0], [1, None, 1, 1], ["met", "not_met"]]
    res = M.cacs(ragged, tau=2)
    assert res.per_response.tolist() == [approx(1 / 2), approx(2 / 3), 0.0]
    as_float = M.cacs(np.array([[1, np.nan, 1], [0, 0, 1]]), tau=1)
    assert as_float.per_response.tolist() == [approx(2 / 3), approx(1 / 3)]


def test_it_validates_cacs_input():
    assert M.cacs([], tau=10, n_criteria=30).value is None
    with pytest.raises(ValueError):
        M.cacs([5], tau=10, n_criteria=8)
    with pytest.raises(ValueError):
        M.cacs([5], tau=0, n_criteria=30)
    with pytest.raises(ValueError):
        M.cacs([31], tau=10, n_criteria=30)
    with pytest.raises(ValueError):
        M.cacs([5], tau=2.5, n_criteria=30)


# ---------------------------------------------------------------------------
# ranking stability, per rater (moved out of the reports)
# ---------------------------------------------------------------------------


def test_ranking_stability_compares_every_two_graders():
    scores = pd.DataFrame(
        {"g1": [0.9, 0.7, 0.5, 0.3], "g2": [0.8, 0.75, 0.2, 0.4], "g3": [np.nan, 0.1, 0.2, 0.3]},
        index=["m1", "m2", "m3", "m4"],
    )
    table = M.ranking_stability(scores)
    assert list(table[["grader_a", "grader_b"]].itertuples(index=False, name=None)) == [
        ("g1", "g2"), ("g1", "g3"), ("g2", "g3")]
    first = table.iloc[0]
    assert first["n_models"] == 4
    assert first["spearman"] == pytest.approx(stats.spearmanr(scores["g1"], scores["g2"]).statistic)
    assert first["top3_overlap"] == "2/3"  # g2 ranks m4 above m3
    assert first["top5_overlap"] is None
    assert first["mean_abs_diff_pp"] == pytest.approx(np.mean([10, 5, 30, 10]))
    assert table.iloc[1]["n_models"] == 3  # g3 did not score m1


def test_per_rater_agreement_is_none_without_labels():
    empty = np.zeros((0, 0), dtype=np.int64)
    assert M.per_rater_agreement(empty, empty, 2, 0) is None


def test_ac1_from_sums_matches_gwet_ac1():
    ratings = np.array([[0, 0, 1], [1, 1, 1], [0, 1, -1], [2, 2, 2], [0, -1, -1]])
    counts = M.count_matrix(ratings, 3, transposed=True).astype(float)
    rated, paired, pa_i, shares = M.ac1_terms([counts[j] for j in range(3)])
    value = M.ac1_from_sums(rated.sum(), paired.sum(), pa_i.sum(), np.array([s.sum() for s in shares]), 3)
    assert value == pytest.approx(M.gwet_ac1(ratings, [0, 1, 2]).value, abs=1e-12)
