"""The fast paths of the report (one-message CSV reads, AC1 by swapping subjects) give the plain answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from django.utils import translation

from agreement import metrics
from agreement.reports import _coded_task_matrix, _per_rater_rows, build_report
from agreement.reports.base import factorize_sorted, ranks_in_groups
from agreement.reports.loading import load_labels
from agreement.reports.strata import _stratified, stratum_masks
from agreement.reports.tables.data_quality import data_quality_tables
from agreement.reports.tables.expert_groups import decision_rates
from agreement.selectors import Selection, TaskScale, rating_frame
from annotation.models import Rating
from tests.agreement.builders import case_item, ensure_task, make_study, rate
from tests.factories import make_case


class _Names:
    def pseudonym(self, rater_id: int) -> str:
        return f"r{int(rater_id)}"


def _reference_per_rater(matrix: np.ndarray, column: np.ndarray, q: int, rater: int) -> dict:
    """A rater's row label by label, straight from metrics.gwet_ac1 / metrics.macro_f1: AC1 without the
    rater, agreement with the others, the others' majority as reference for AC1 and Macro-F1 (code 0 =
    met), labels and labels shared with another."""
    codes = list(range(q))
    rest = np.where(column == rater, -1, matrix)
    loo = metrics.gwet_ac1(rest, codes).value if (rest >= 0).any() else None
    counts = metrics.count_matrix(matrix, q)
    n_labels = n_shared = agree = n_pairs = 0
    pairs = []  # (own label, the others' majority)
    for i, j in zip(*np.nonzero((column == rater) & (matrix >= 0)), strict=True):
        others = counts[i].copy()
        others[matrix[i, j]] -= 1
        n_labels += 1
        if others.sum():
            n_shared += 1
            agree += others[matrix[i, j]]
            n_pairs += others.sum()
            if (others == others.max()).sum() == 1:
                pairs.append((matrix[i, j], int(others.argmax())))
    own, majority = (np.array([p[k] for p in pairs]) for k in (0, 1))
    return {
        "ac1_without_rater": loo,
        "ac1_vs_others_majority": metrics.gwet_ac1(np.array(pairs), codes).value if pairs else None,
        "n_labels": n_labels, "n_shared": n_shared, "agreement_with_others": agree / n_pairs if n_pairs else None,
        "macro_f1_vs_others_majority": metrics.macro_f1(majority == 0, own == 0).value if pairs else None,
    }


@pytest.mark.parametrize("seed", range(6))
def test_it_computes_per_rater_ac1_like_the_metrics_function(seed):
    rng = np.random.default_rng(seed)
    n, width, q, raters = 40, 3, 1 + seed % 3, 5
    matrix = rng.integers(-1, q, size=(n, width))
    column = np.where(rng.random((n, width)) < 0.9, rng.integers(0, raters, size=(n, width)), -1)
    matrix = np.where(column >= 0, matrix, -1)
    rows = _per_rater_rows(_Names(), "t", matrix, column, [f"c{k}" for k in range(q)], np.arange(raters))
    assert len(rows) == raters
    for k, row in enumerate(rows):
        expected = _reference_per_rater(matrix, column, q, k)
        assert row["ac1_without_rater"] == pytest.approx(expected["ac1_without_rater"], abs=1e-12)
        assert row["ac1_vs_others_majority"] == pytest.approx(expected["ac1_vs_others_majority"], abs=1e-12)


@pytest.mark.parametrize(("seed", "n", "width", "q", "raters"), [
    (0, 60, 2, 2, 4), (1, 80, 4, 2, 3), (2, 50, 6, 3, 6), (3, 40, 12, 25, 30), (4, 300, 3, 2, 40)])
def test_it_computes_every_per_rater_figure_like_label_by_label(seed, n, width, q, raters):
    # Raters labelling a subject twice, empty slots, labels without a rater column, wide scales (their
    # kinds no longer fit one integer code) and more raters than kinds.
    rng = np.random.default_rng(seed)
    matrix = rng.integers(-1, q, size=(n, width))
    column = np.where(rng.random((n, width)) < 0.9, rng.integers(0, raters, size=(n, width)), -1)
    met = 0 if q == 2 else None
    res = metrics.per_rater_agreement(matrix, column, q, raters, met=met)
    for k in range(raters):
        expected = _reference_per_rater(matrix, column, q, k)
        assert res.ac1_without_rater[k] == pytest.approx(expected["ac1_without_rater"], abs=1e-12)
        assert res.ac1_vs_others_majority[k] == pytest.approx(expected["ac1_vs_others_majority"], abs=1e-12)
        assert (res.n_labels[k], res.n_shared[k]) == (expected["n_labels"], expected["n_shared"])
        assert res.agreement_with_others[k] == pytest.approx(expected["agreement_with_others"], abs=1e-12)
        if met is not None:
            assert res.macro_f1_vs_others_majority[k] == pytest.approx(expected["macro_f1_vs_others_majority"], abs=1e-12)
        else:
            assert res.macro_f1_vs_others_majority[k] is None


@pytest.mark.parametrize("seed", range(3))
def test_it_sums_per_response_like_pandas_groupby(seed):
    from agreement.reports.tables.coverage import _sum_per_response

    rng = np.random.default_rng(seed)
    response = rng.integers(100, 160, size=2000).astype(float)
    names = np.array(["m-b", "m-a", "m-c", None], dtype=object)
    model = names[response.astype(int) % 4]  # a model per response; some responses have none
    response[rng.random(2000) < 0.05] = np.nan  # and some rows no response
    hits = rng.integers(0, 2, size=2000)
    expected = (pd.DataFrame({"model": model, "response": response, "hits": hits, "n_criteria": 1})
                .groupby(["model", "response"], sort=True)[["hits", "n_criteria"]].sum().reset_index())
    pd.testing.assert_frame_equal(_sum_per_response(model, response, hits=hits), expected)


@pytest.mark.parametrize("groups", [
    np.array([3, 0, 3, 1, 3, 0, 5, 5, 1, 3]),  # groups 2 and 4 absent
    np.random.default_rng(4).integers(0, 40, 5000).astype(np.int16),
    np.random.default_rng(5).integers(0, 100_000, 5000),  # too many groups for the 16-bit sort
    np.array([7]),
    np.zeros(0, np.int64),
])
def test_it_ranks_rows_within_their_group_like_pandas_cumcount(groups):
    order, rank = ranks_in_groups(groups)
    assert (np.diff(groups[order]) >= 0).all()  # ordered by group, and stably: rows keep their order in a group
    assert all((np.diff(order[groups[order] == g]) > 0).all() for g in np.unique(groups))
    expected = pd.Series(groups).groupby(groups).cumcount().to_numpy()
    assert (rank == expected[order]).all()


@pytest.mark.parametrize("values", [
    np.array([5, 1, 5, 3, 1, 9, 3]),
    np.repeat(np.arange(1000, 0, -1), 3),  # descending runs
    (np.arange(30_000) // 30 << 32) | np.tile(np.arange(30), 1000),  # (response, criterion) pairs in order
    np.random.default_rng(6).integers(-(2**40), 2**40, 20_000),
    np.array([7]),
    np.zeros(0, np.int64),
])
def test_it_factorizes_integers_in_sorted_order_like_pandas(values):
    codes, uniques = factorize_sorted(values)
    expected_codes, expected_uniques = pd.factorize(values, sort=True)
    assert (codes == expected_codes).all() and (uniques == expected_uniques).all()
    assert codes.shape == values.shape and uniques.dtype == values.dtype


def test_it_numbers_subjects_and_slots_like_pandas_groupby():
    rng = np.random.default_rng(3)
    sub = pd.DataFrame({
        "item": rng.integers(1, 6, 200), "field": rng.choice(["", "a", "criterion:1", "criterion:2"], 200),
        "rater": rng.integers(1, 9, 200), "label": rng.choice(["met", "not_met", "maybe"], 200),
    })
    scale = TaskScale("t", "t", False, ("met", "not_met"), frozenset(), "response_criterion")
    matrix, column, cats, rater_ids, unknown = _coded_task_matrix(sub, scale)
    grouped = sub.groupby(["item", "field"], sort=False)
    subject, slot = grouped.ngroup().to_numpy(), grouped.cumcount().to_numpy()
    expected = sub["label"].map({"met": 0, "not_met": 1}).fillna(-1).to_numpy(dtype=np.int64)
    assert (matrix[subject, slot] == expected).all()
    assert unknown == int((sub["label"] == "maybe").sum())
    assert cats == ["met", "not_met"]
    assert (rater_ids[column[subject, slot]] == sub["rater"].to_numpy()).all()


def test_it_reads_labels_with_commas_quotes_and_newlines_intact(physician_a, physician_b):
    # On PostgreSQL labels arrive as one CSV text built by the server: quoting must survive any text.
    study = make_study(tasks=("criterion-validity",))
    task = ensure_task("criterion-validity")
    item = case_item(study, make_case(narrative="n"))
    # The server's CSV reaches pandas as the UTF-8 bytes PostgreSQL sent: Chinese text must survive too.
    odd = ['a, "b"', "line\nbreak", "", "\\N?", "'quoted'", "未满足，“部分”"]
    for k, label in enumerate(odd):
        rate(item, physician_a, task, label, field_key=f"f,{k}\"" if k % 2 else f"字段,{k}")
    rate(item, physician_b, task, "agree", field_key="")
    frame = rating_frame(Selection(study_id=study.pk))
    got = sorted(zip(frame["field"], frame["label"], strict=True))
    expected = sorted(Rating.objects.filter(assignment__item=item).values_list("field_key", "label"))
    assert got == expected
    report = build_report(Selection(study_id=study.pk))
    assert report.table("data_quality").frame.iloc[0]["unknown_labels"] == len(odd)


def test_it_rebuilds_criterion_field_keys_exactly(physician_a, physician_b):
    # Keys of the form "criterion:<id>" travel as NULL; any other key, or the same text without the
    # criterion, must come back as written and land in the same subject as its twin.
    study = make_study(tasks=("criterion-validity",))
    task = ensure_task("criterion-validity")
    revision = make_case(criteria=[("Names the diagnosis", 5, "Accuracy")], narrative="n")
    criterion = revision.criteria.get()
    item = case_item(study, revision)
    rate(item, physician_a, task, "agree", field_key=f"criterion:{criterion.pk}", criterion=criterion)
    rate(item, physician_b, task, "agree", field_key=f"criterion:{criterion.pk}")
    rate(item, physician_a, task, "disagree", field_key="axis:Accuracy", criterion=criterion)
    frame = rating_frame(Selection(study_id=study.pk))
    assert sorted(frame["field"].astype(str)) == sorted(Rating.objects.values_list("field_key", flat=True))
    row = build_report(Selection(study_id=study.pk)).table("data_quality").frame.iloc[0]
    assert (row["n_subjects"], row["n_paired"], row["percent_agreement"]) == (2, 1, 1.0)


@pytest.mark.parametrize(("seed", "raters", "q"), [(0, 2, 2), (1, 3, 3), (2, 4, 2), (3, 2, 5)])
def test_it_gives_the_same_coefficients_when_subjects_are_grouped_by_their_labels(seed, raters, q, monkeypatch):
    """AC1, AC2, Fleiss and Brennan-Prediger over the distinct rows of labels (weighted by their counts)
    equal the subject-by-subject computation and irrCAC, missing ratings included."""
    from irrCAC.raw import CAC

    from agreement.metrics import coefficients

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, q, size=(3000, raters))
    codes[rng.random(codes.shape) < 0.15] = -1  # missing; some subjects end with one rating or none
    cats = list(range(q))
    assert coefficients._patterns(codes.astype(np.int8), q) is not None
    functions = [lambda c: metrics.gwet_ac1(c, cats), lambda c: metrics.gwet_ac2(c, cats, "quadratic"),
                 lambda c: metrics.fleiss_kappa(c, cats), lambda c: metrics.brennan_prediger(c, cats)]
    grouped = [f(codes) for f in functions]
    monkeypatch.setattr(coefficients, "MAX_PATTERNS", 0)
    plain = [f(codes) for f in functions]
    for g, p in zip(grouped, plain, strict=True):
        assert (g.n_subjects, g.n_paired) == (p.n_subjects, p.n_paired)
        assert g.value == pytest.approx(p.value, abs=1e-12)
        assert g.se == pytest.approx(p.se, abs=1e-12)
        assert g.ci[0] == pytest.approx(p.ci[0], abs=1e-12)
    frame = pd.DataFrame(np.where(codes >= 0, codes, np.nan))
    ref = CAC(frame, categories=cats, digits=15).gwet()["est"]
    assert grouped[0].value == pytest.approx(ref["coefficient_value"], abs=1e-12)
    assert grouped[0].se == pytest.approx(ref["se"], abs=1e-12)


@pytest.mark.parametrize("invalid", ["wrong", "exclude"])
def test_it_counts_the_confusion_table_in_one_pass_like_the_per_pair_cells(invalid):
    from sklearn.metrics import f1_score

    from agreement.metrics.binary import _confusion, _confusion_counts

    rng = np.random.default_rng(4)
    ref = rng.integers(-1, 2, size=5000).astype(np.int8)
    pred = rng.integers(-1, 2, size=5000).astype(np.int8)
    counts, n_invalid, n_skipped = _confusion_counts((ref == 1, ref == 0), (pred == 1, pred == 0), invalid)
    cell, ref_invalid, ref_skipped = _confusion(ref, pred, invalid)
    # The same from float labels, NaN for missing or invalid.
    as_float = [np.where(x >= 0, x, np.nan).astype(float) for x in (ref, pred)]
    assert _confusion_counts(*as_float, invalid)[0].tolist() == counts.tolist()
    assert counts.tolist() == np.bincount(cell[cell >= 0], minlength=4).tolist()
    assert (n_invalid, n_skipped) == (ref_invalid, ref_skipped)
    # Float labels with NaN (missing) and integer 0/1 labels encode as the per-value path did.
    floats = np.where(ref >= 0, ref, np.nan).astype(float)
    assert metrics.encode_binary(floats).tolist() == ref.tolist()
    both = (ref >= 0) & (pred >= 0)
    result = metrics.macro_f1(ref[both].astype(np.int64), pred[both].astype(np.int64))
    assert result.value == pytest.approx(f1_score(ref[both], pred[both], average="macro"), abs=1e-15)
    with pytest.raises(ValueError, match="0/1"):
        metrics.encode_binary(np.array([0.0, 0.5]))
    with pytest.raises(ValueError, match="0/1"):
        metrics.encode_binary(np.array([0, 2]))


@pytest.mark.parametrize("seed", range(4))
def test_it_codes_categorical_labels_like_text_labels(seed):
    # rating_frame's labels are categorical (a code per rating); any other frame's are text: the task
    # matrix, its categories and its count of labels outside the scale must not depend on which.
    rng = np.random.default_rng(seed)
    n = 300
    sub = pd.DataFrame({
        "item": rng.integers(1, 40, n), "field": rng.choice(["", "criterion:1", "criterion:2"], n),
        "rater": rng.integers(1, 7, n), "label": rng.choice(["met", "not_met", "maybe", "2"], n),
    })
    scale = TaskScale("t", "t", False, ("met", "not_met", "never-used")[: 2 + seed % 2], frozenset(),
                      "response_criterion")
    for with_scale in (scale, None):
        text = _coded_task_matrix(sub, with_scale)
        coded = _coded_task_matrix(sub.assign(label=sub["label"].astype("category")), with_scale)
        assert (coded[0] == text[0]).all() and (coded[1] == text[1]).all()
        assert coded[2] == text[2]
        assert (coded[3] == text[3]).all() and coded[4] == text[4]
    assert text[4] == 0  # without a scale every label is a category


@pytest.mark.parametrize("seed", range(4))
def test_it_counts_each_groups_decision_rate_per_model_like_one_mask_per_model(seed):
    rng = np.random.default_rng(seed)
    n_rows, n_pairs, n_raters, n_models = 2000, 400, 6, 4
    hm = type("Rows", (), {})()
    hm.rows_pair = rng.integers(0, n_pairs, n_rows)
    hm.rows_rater = rng.integers(0, n_raters, n_rows)
    hm.rows_met = rng.choice([1.0, 0.0, np.nan], n_rows)
    pair_scope = rng.integers(-1, n_models, n_pairs)  # -1: a case item, no model
    pair_scope[pair_scope == seed % n_models] = -1  # and one model with no pair at all
    group = rng.random(n_raters) < 0.5
    rates = decision_rates(hm, group, pair_scope, n_models)

    def one_mask(pairs: np.ndarray) -> float | None:
        rows = group[hm.rows_rater] & pairs[hm.rows_pair] & ~np.isnan(hm.rows_met)
        return float(hm.rows_met[rows].mean()) if rows.any() else None

    expected = [one_mask(np.ones(n_pairs, bool))] + [one_mask(pair_scope == k) for k in range(n_models)]
    assert rates == expected
    assert rates[1 + seed % n_models] is None


@pytest.fixture
def two_task_study(physician_a, physician_b):
    study = make_study(tasks=("narrative-quality", "criterion-validity"))
    narrative, validity = ensure_task("narrative-quality"), ensure_task("criterion-validity")
    for k in range(4):
        item = case_item(study, make_case(narrative=f"n{k}"))
        rate(item, physician_a, narrative, str(k % 3))
        rate(item, physician_b, narrative, str((k + 1) % 3))
        rate(item, physician_a, validity, "agree", field_key="f")
        rate(item, physician_b, validity, "agree" if k % 2 else "disagree", field_key="f")
    return study


def test_it_builds_the_data_quality_tables_in_the_readers_language(two_task_study):
    # A second thread builds them: it starts with no active language of its own.
    with translation.override("zh-hans"):
        report = build_report(Selection(study_id=two_task_study.pk))
        expected = translation.gettext("Data quality: agreement per task (LiveMedBench Table 1)")
    assert expected == "数据质量：各任务的一致性（LiveMedBench 表 1）"
    assert report.table("data_quality").title == expected
    with translation.override("en"):
        assert build_report(Selection(study_id=two_task_study.pk)).table("data_quality").title.startswith("Data quality")


@pytest.mark.parametrize("stratum", ["", "language", "model"])
def test_it_builds_the_data_quality_tables_without_the_database(two_task_study, stratum, django_assert_num_queries):
    # What lets the report build them on a second thread, which has no connection of the request's.
    data = load_labels(Selection(study_id=two_task_study.pk))
    masks = stratum_masks(data, stratum) if stratum else None
    with django_assert_num_queries(0):
        tables = _stratified(data_quality_tables, data, stratum, masks) if stratum else data_quality_tables(data)
    dq = next(t for t in tables if t.key == "data_quality").frame
    assert set(dq["task"]) == {"narrative-quality", "criterion-validity"}


@pytest.mark.parametrize("invalid", ["wrong", "exclude"])
@pytest.mark.parametrize(("ref_gaps", "pred_gaps"), [(False, False), (True, False), (False, True), (True, True)])
def test_it_counts_the_confusion_table_from_fewer_passes_where_a_side_has_no_gaps(ref_gaps, pred_gaps, invalid):
    # A side without missing labels lets cells be differences of counts: each mix of gaps must still
    # count every cell like the per-pair cells, from float columns (strided), masks and encoded labels.
    from agreement.metrics import binary

    rng = np.random.default_rng(26)
    codes = rng.integers(0, 2, size=(3001, 2)).astype(np.int8)
    for column, gaps in ((0, ref_gaps), (1, pred_gaps)):
        if gaps:
            codes[rng.random(len(codes)) < 0.1, column] = -1
    cell, n_invalid, n_skipped = binary._confusion(codes[:, 0], codes[:, 1], invalid)
    want = np.bincount(cell[cell >= 0], minlength=4).tolist()
    matrix = np.where(codes >= 0, codes, np.nan)
    as_masks = [binary._binary_masks(codes[:, j].copy(), encoded=True) for j in (0, 1)]
    for ref, pred in ((matrix[:, 0], matrix[:, 1]), as_masks, [(m.met, m.not_met) for m in as_masks]):
        counts, got_invalid, got_skipped = binary._confusion_counts(ref, pred, invalid)
        assert counts.tolist() == want
        assert (got_invalid, got_skipped) == (n_invalid, n_skipped)
    if not (ref_gaps or pred_gaps):
        from sklearn.metrics import f1_score

        assert metrics.macro_f1(matrix[:, 0], matrix[:, 1]).value == pytest.approx(
            f1_score(codes[:, 0], codes[:, 1], average="macro"), abs=1e-15)


@pytest.mark.parametrize("block", [1, 7, 64, 10_000])
def test_it_counts_the_confusion_table_block_by_block_like_the_per_pair_cells(monkeypatch, block):
    from agreement.metrics import binary

    monkeypatch.setattr(binary, "_BLOCK", block)
    monkeypatch.setattr(binary, "_WHOLE", block)
    rng = np.random.default_rng(block)
    codes = rng.integers(-1, 2, size=(1001, 2)).astype(np.int8)  # not a multiple of any block size
    matrix = np.where(codes >= 0, codes, np.nan)  # float columns of one array: strided, NaN missing
    for invalid in ("wrong", "exclude"):
        cell, n_invalid, n_skipped = binary._confusion(codes[:, 0], codes[:, 1], invalid)
        counts, got_invalid, got_skipped = binary._confusion_counts(matrix[:, 0], matrix[:, 1], invalid)
        assert counts.tolist() == np.bincount(cell[cell >= 0], minlength=4).tolist()
        assert (got_invalid, got_skipped) == (n_invalid, n_skipped)
    # A label outside 0/1 in the last block is refused like one in the first.
    for column in (0, 1):
        bad = matrix.copy()
        bad[-1, column] = 0.5
        with pytest.raises(ValueError, match="0/1"):
            metrics.macro_f1(bad[:, 0], bad[:, 1])
    integers = np.abs(codes).astype(np.int64)
    integers[-1, 1] = 2
    with pytest.raises(ValueError, match="0/1"):
        metrics.macro_f1(integers[:, 0], integers[:, 1])


@pytest.mark.parametrize("gap_at", [None, 0, 1000])
def test_it_counts_two_neighbouring_columns_row_by_row_like_the_per_pair_cells(monkeypatch, gap_at):
    # Two columns of one row-major array are compared a row at a time (`_pair_counts`), in either order,
    # whole or block by block; a missing label in any block, or a value to refuse, sends them back to
    # the column-by-column count, which must give the same cells and refuse the same values.
    from agreement.metrics import binary

    monkeypatch.setattr(binary, "_BLOCK", 64)
    monkeypatch.setattr(binary, "_WHOLE", 64)
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 2, size=(1001, 2)).astype(np.int8)
    if gap_at is not None:
        codes[gap_at, 1] = -1
    matrix = np.where(codes >= 0, codes, np.nan)
    for first, second in ((0, 1), (1, 0)):
        ref, pred = matrix[:, first], matrix[:, second]
        assert binary._neighbour_columns(ref, pred) is not None
        for invalid in ("wrong", "exclude"):
            cell, n_invalid, n_skipped = binary._confusion(codes[:, first], codes[:, second], invalid)
            counts, got_invalid, got_skipped = binary._confusion_counts(ref, pred, invalid)
            assert counts.tolist() == np.bincount(cell[cell >= 0], minlength=4).tolist()
            assert (got_invalid, got_skipped) == (n_invalid, n_skipped)
        bad = matrix.copy()
        bad[-1, second] = 0.5
        with pytest.raises(ValueError, match="0/1"):
            metrics.macro_f1(bad[:, first], bad[:, second])
    # A row apart, the second column first in memory: pair i is still (ref[i], pred[i]).
    shifted = (matrix[1:, 0], matrix[:-1, 1])
    assert binary._neighbour_columns(*shifted) is not None
    cell, _, _ = binary._confusion(codes[1:, 0], codes[:-1, 1], "wrong")
    assert binary._confusion_counts(*shifted, "wrong")[0].tolist() == np.bincount(cell[cell >= 0], minlength=4).tolist()
    if gap_at is None:
        from sklearn.metrics import f1_score

        assert metrics.macro_f1(matrix[:, 1], matrix[:, 0]).value == pytest.approx(
            f1_score(codes[:, 1], codes[:, 0], average="macro"), abs=1e-15)


def test_it_compares_columns_one_by_one_unless_they_are_each_others_neighbours():
    from agreement.metrics import binary

    wide = np.zeros((50, 3))
    twin = np.zeros((50, 2))
    pair = np.zeros((50, 2))
    assert binary._neighbour_columns(pair[:, 0], pair[:, 1]) is not None
    assert binary._neighbour_columns(pair[5:, 0], pair[5:, 1]) is not None  # rows of a view
    assert binary._neighbour_columns(wide[:, 0], wide[:, 1]) is None  # each steps over a third column
    assert binary._neighbour_columns(pair[:, 0], twin[:, 1]) is None  # two arrays
    assert binary._neighbour_columns(pair[2:, 0], pair[:-2, 1]) is None  # a row and a value apart
    assert binary._neighbour_columns(np.asfortranarray(pair)[:, 0], np.asfortranarray(pair)[:, 1]) is None
    assert binary._neighbour_columns(pair[:, 0], pair[:, 1].astype(np.float32)) is None
