"""The fast paths of the report (one-message CSV reads, AC1 by swapping subjects) give the plain answers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreement import metrics
from agreement.reports import _coded_task_matrix, _per_rater_rows, build_report
from agreement.selectors import Selection, TaskScale, rating_frame
from annotation.models import Rating
from tests.agreement.builders import case_item, ensure_task, make_study, rate
from tests.factories import make_case


class _Names:
    def pseudonym(self, rater_id: int) -> str:
        return f"r{int(rater_id)}"


def _reference_per_rater(matrix: np.ndarray, column: np.ndarray, q: int, rater: int) -> tuple:
    """AC1 without the rater and AC1 against the others' majority, straight from metrics.gwet_ac1."""
    codes = list(range(q))
    rest = np.where(column == rater, -1, matrix)
    loo = metrics.gwet_ac1(rest, codes).value if (rest >= 0).any() else None
    counts = metrics.count_matrix(matrix, q)
    pairs = []
    for i, j in zip(*np.nonzero((column == rater) & (matrix >= 0)), strict=True):
        others = counts[i].copy()
        others[matrix[i, j]] -= 1
        if others.sum() and (others == others.max()).sum() == 1:
            pairs.append((matrix[i, j], int(others.argmax())))
    ac1 = metrics.gwet_ac1(np.array(pairs), codes).value if pairs else None
    return loo, ac1


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
        loo, ac1 = _reference_per_rater(matrix, column, q, k)
        assert row["ac1_without_rater"] == pytest.approx(loo, abs=1e-12)
        assert row["ac1_vs_others_majority"] == pytest.approx(ac1, abs=1e-12)


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
    odd = ['a, "b"', "line\nbreak", "", "\\N?", "'quoted'"]
    for k, label in enumerate(odd):
        rate(item, physician_a, task, label, field_key=f"f,{k}\"")
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
