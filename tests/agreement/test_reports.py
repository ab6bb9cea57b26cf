"""The report numbers equal the metrics functions on arrays rebuilt independently from what was written."""

from __future__ import annotations

import numpy as np
import pytest

from accounts.models import Rank, Role
from agreement import metrics
from agreement.metrics import macro_f1_from_counts
from agreement.reports import build_report
from agreement.selectors import Selection
from graders.models import GraderDecision, JudgeScore
from tests.agreement.builders import (
    case_item,
    ensure_task,
    make_study,
    rate,
    reliability_study,
)
from tests.conftest import make_user
from tests.factories import make_case


def _row(report, key: str, **match):
    frame = report.table(key).frame
    for col, value in match.items():
        frame = frame[frame[col] == value]
    assert len(frame) == 1, f"{key} {match}: {len(frame)} rows"
    return frame.iloc[0]


@pytest.fixture
def three_raters(physician_a, physician_b, inspector):
    return [physician_a, physician_b, inspector]


def test_it_reports_data_quality_equal_to_metrics_on_first_round_labels(physician_a, physician_b, inspector):
    study = make_study()
    task = ensure_task("narrative-quality")
    labels = [("2", "2", "1"), ("2", "2", "2"), ("1", "0", None), ("2", "1", "2"), ("0", "0", "0")]
    for n, row in enumerate(labels):
        item = case_item(study, make_case(narrative=f"narrative {n}"))
        for rater, label in zip((physician_a, physician_b, inspector), row, strict=True):
            if label is not None:
                rate(item, rater, task, label)
        # A label changed after inspection must never enter the statistics.
        rate(item, physician_a, task, "0", round_=2)

    report = build_report(Selection(study_id=study.pk))
    row = _row(report, "data_quality", task="narrative-quality")
    cats = ["2", "1", "0"]
    expected_ac1 = metrics.gwet_ac1([list(r) for r in labels], cats)
    expected_kappa = metrics.fleiss_kappa([list(r) for r in labels], cats)
    assert row["ac1"] == pytest.approx(expected_ac1.value, abs=1e-12)
    assert row["ac1_se"] == pytest.approx(expected_ac1.se, abs=1e-12)
    assert row["ac1_ci_low"] == pytest.approx(expected_ac1.ci[0], abs=1e-12)
    assert row["fleiss_kappa"] == pytest.approx(expected_kappa.value, abs=1e-12)
    assert row["percent_agreement"] == pytest.approx(metrics.percent_agreement([list(r) for r in labels], cats).value)
    assert row["n_subjects"] == 5 and row["n_raters"] == 3 and row["n_ratings"] == 14
    assert report.counts["ratings_later_rounds_not_used"] == 5
    approval = _row(report, "approval", task="narrative-quality", rater="R-physician_a")
    # Issue 13: a score >= 1 approves on the 0-2 scales (LiveMedBench); physician_a gave 2, 2, 1, 2, 0.
    assert approval["approval_rate"] == pytest.approx(4 / 5)


def test_it_reports_grader_reliability_equal_to_metrics(three_raters):
    data = reliability_study(three_raters, n_cases=5, n_runs=2, invalid_every=7)
    report = build_report(Selection(study_id=data.study.pk))
    pairs = sorted(data.human)
    raters = sorted(r.pk for r in three_raters)
    human = np.array([[1.0 if data.human[p][r] == "met" else 0.0 for r in raters] for p in pairs])

    pair_f1 = [metrics.macro_f1(human[:, i], human[:, j]).value for i in range(3) for j in range(i + 1, 3)]
    human_row = _row(report, "grader_reliability", evaluator="Human inter-rater")
    assert human_row["macro_f1"] == pytest.approx(np.mean(pair_f1), abs=1e-12)

    responses = sorted({p[0] for p in pairs})

    def scores(label_of) -> np.ndarray:
        return np.array([
            metrics.case_score(
                [data.criteria_points[c] for (r, c) in pairs if r == resp],
                [label_of((r, c)) for (r, c) in pairs if r == resp],
            ) for resp in responses
        ])

    consensus = np.mean([scores(lambda p, rid=rid: data.human[p][rid]) for rid in raters], axis=0)
    for run in data.runs:
        verdicts = data.grader[run.pk]
        predicted = [verdicts[p] for p in pairs]
        expected = metrics.macro_f1_vs_raters(predicted, human)
        row = _row(report, "grader_reliability", evaluator=f"{run.name} (#{run.pk})")
        assert row["macro_f1"] == pytest.approx(expected.value, abs=1e-12)
        assert row["n_invalid"] == sum(v == "invalid" for v in predicted) > 0
        assert row["positive_rate"] == pytest.approx(sum(v == "met" for v in predicted) / len(predicted))
        grader_scores = scores(lambda p, v=verdicts: "met" if v[p] == "met" else "not_met")
        expected_r = metrics.pearson(grader_scores, consensus)
        assert row["pearson_r"] == pytest.approx(expected_r.value, abs=1e-12)
        assert row["pearson_p"] == pytest.approx(expected_r.p_value, rel=1e-9)
        assert row["n_cases"] == len(responses)
        per = _row(report, "grader_vs_rater", grader=f"{run.name} (#{run.pk})", rater="R-inspector")
        assert per["macro_f1"] == pytest.approx(
            metrics.macro_f1(human[:, raters.index(three_raters[2].pk)], predicted).value, abs=1e-12
        )


def test_it_compares_graders_only_on_pairs_physicians_rated(three_raters):
    data = reliability_study(three_raters, n_cases=3)
    run = data.runs[0]
    # A decision on a response no physician rated must not count.
    stray = make_case(narrative="not in the study")
    from tests.factories import make_response
    response = make_response(stray, model_name="model-x")
    GraderDecision.objects.bulk_create(
        GraderDecision(run=run, response=response, criterion=c, verdict="met") for c in stray.criteria.all()
    )
    report = build_report(Selection(study_id=data.study.pk))
    row = _row(report, "grader_reliability", evaluator=f"{run.name} (#{run.pk})")
    assert row["n_decisions"] == len(data.grader[run.pk])


def test_it_correlates_judge_scores_with_consensus(three_raters):
    data = reliability_study(three_raters, n_cases=4)
    from graders.models import GraderRun
    judge = GraderRun.objects.create(name="Judge", kind="llm-judge", grader_model="gpt-4.1")
    responses = sorted(data.response_model)
    values = {r: (i * 37 % 11) / 10 for i, r in enumerate(responses)}
    JudgeScore.objects.bulk_create(
        JudgeScore(run=judge, response_id=r, normalized_score=v, raw_score=v * 10) for r, v in values.items()
    )
    report = build_report(Selection(study_id=data.study.pk))
    consensus_table = report.table("model_scores").frame
    assert "Physician consensus" in consensus_table.columns
    row = _row(report, "grader_reliability", evaluator=f"Judge (#{judge.pk})")
    assert row["n_cases"] == len(responses)
    assert row["pearson_r"] is not None and -1 <= row["pearson_r"] <= 1


def test_it_reports_expert_groups_with_majority_labels(db):
    seniors = [make_user(f"chief{i}", role=Role.INSPECTOR, rank=Rank.CHIEF) for i in range(2)]
    juniors = [make_user(f"att{i}", role=Role.PHYSICIAN, rank=Rank.ATTENDING) for i in range(1)]
    data = reliability_study([*juniors, *seniors], n_cases=4)
    report = build_report(Selection(study_id=data.study.pk, group_by="rank"))
    pairs = sorted(data.human)
    a = [1.0 if data.human[p][juniors[0].pk] == "met" else 0.0 for p in pairs]

    def majority(p):
        votes = [data.human[p][s.pk] == "met" for s in seniors]
        return 1.0 if sum(votes) == 2 else (0.0 if sum(votes) == 0 else np.nan)

    b = [majority(p) for p in pairs]
    ok = [not np.isnan(x) for x in b]
    expected = metrics.macro_f1(np.array(a)[ok], np.array(b)[ok])
    row = _row(report, "expert_groups", scope="All models")
    assert row["macro_f1"] == pytest.approx(expected.value, abs=1e-12)
    assert row["n_decisions"] == sum(ok)
    per_model = report.table("expert_groups").frame
    assert set(per_model["scope"]) == {"All models", "model-x", "model-y", "model-z"}


def test_it_computes_case_level_macro_f1_like_the_metrics_function():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, size=(200, 4))
    vectorised = macro_f1_from_counts(counts[:, 0], counts[:, 1], counts[:, 2], counts[:, 3])
    for (tn, fp, fn, tp), value in zip(counts, vectorised, strict=True):
        ref = [0] * tn + [0] * fp + [1] * fn + [1] * tp
        pred = [0] * tn + [1] * fp + [0] * fn + [1] * tp
        expected = metrics.macro_f1(ref, pred).value
        assert (expected is None and np.isnan(value)) or value == pytest.approx(expected, abs=1e-12)


def test_it_breaks_tables_down_by_stratum(three_raters):
    data = reliability_study(three_raters, n_cases=4)
    report = build_report(Selection(study_id=data.study.pk, stratify_by="model"))
    frame = report.table("grader_reliability").frame
    assert set(frame["stratum"]) == {"All", "model-x", "model-y", "model-z"}
    run = data.runs[0]
    pairs = sorted(p for p in data.human if data.response_model[p[0]] == "model-y")
    raters = sorted(r.pk for r in three_raters)
    human = [[data.human[p][r] for r in raters] for p in pairs]
    expected = metrics.macro_f1_vs_raters([data.grader[run.pk][p] for p in pairs], human)
    got = frame[(frame["stratum"] == "model-y") & (frame["evaluator"] == f"{run.name} (#{run.pk})")].iloc[0]
    assert got["macro_f1"] == pytest.approx(expected.value, abs=1e-12)
    assert report.table("ranking_stability") is None


def test_it_breaks_down_by_axis_and_language(three_raters):
    data = reliability_study(three_raters, n_cases=3)
    by_axis = build_report(Selection(study_id=data.study.pk, stratify_by="axis")).table("data_quality").frame
    assert {"All", "Accuracy", "Safety", "Communication Quality"} <= set(by_axis["stratum"])
    safety = by_axis[by_axis["stratum"] == "Safety"].iloc[0]
    assert safety["n_subjects"] == 3 * 3 * 2
    by_lang = build_report(Selection(study_id=data.study.pk, stratify_by="language")).table("data_quality").frame
    assert set(by_lang["stratum"]) == {"All", "en"}


def test_it_filters_by_stratum_value(three_raters):
    data = reliability_study(three_raters, n_cases=3)
    report = build_report(Selection(study_id=data.study.pk, filters=(("model", "model-x"),)))
    assert _row(report, "data_quality", task="grader-reliability")["n_subjects"] == 3 * 4


def test_it_flags_an_outlier_rater(db):
    task_raters = [make_user(f"doc{i}", role=Role.PHYSICIAN) for i in range(4)]
    study = make_study()
    task = ensure_task("criterion-validity")
    for n in range(12):
        item = case_item(study, make_case(narrative=f"n{n}"))
        truth = "agree" if n % 3 else "disagree"
        for k, rater in enumerate(task_raters):
            flipped = {"agree": "disagree", "disagree": "agree"}[truth]
            rate(item, rater, task, flipped if k == 3 and n % 2 else truth)
    frame = build_report(Selection(study_id=study.pk)).table("per_rater").frame
    worst = frame.sort_values("agreement_with_others").iloc[0]
    assert worst["rater"] == "R-doc3"
    assert worst["ac1_without_rater"] == pytest.approx(1.0)


@pytest.mark.parametrize("graders_installed", [True, False])
def test_it_reports_pairwise_position_bias(physician_a, physician_b, monkeypatch, graders_installed):
    from graders.models import GraderRun, PairwiseJudgement
    from tests.agreement.builders import response_item, with_pairwise_task
    from tests.factories import make_response

    study = with_pairwise_task(make_study())
    judge = GraderRun.objects.create(name="Pairwise judge", kind="pairwise-judge", grader_model="gpt-4.1")
    verdicts = [("A", "A"), ("A", "B"), ("B", "B"), ("tie", "A")]  # (order ab, order ba): two flips
    for n, (ab, ba) in enumerate(verdicts):
        revision = make_case(narrative=f"pair {n}")
        first, second = make_response(revision, model_name="m1"), make_response(revision, model_name="m2")
        response_item(study, first)
        PairwiseJudgement.objects.create(run=judge, response_a=first, response_b=second, order="ab", verdict=ab)
        PairwiseJudgement.objects.create(run=judge, response_a=first, response_b=second, order="ba", verdict=ba)
    if not graders_installed:
        # The statistic lives in agreement.metrics and the read in agreement.selectors: the report
        # needs nothing from graders.selectors (it used to fall back to a second implementation).
        monkeypatch.setitem(__import__("sys").modules, "graders.selectors", None)
    row = _row(build_report(Selection(study_id=study.pk)), "position_bias", grader=f"Pairwise judge (#{judge.pk})")
    assert row["n_both_orders"] == 4
    assert row["n_flips"] == 2
    assert row["flip_rate"] == pytest.approx(0.5)


def test_it_pools_one_graders_per_model_runs_into_one_row(three_raters):
    from graders.models import GraderRun

    data = reliability_study(three_raters, n_cases=3)
    original = data.runs[0]
    # Re-file the decisions as LiveMedBench ships them: one run (one file) per answering model.
    per_model = {}
    for model in ("model-x", "model-y", "model-z"):
        run = GraderRun.objects.create(name=f"gpt-4.1 on {model}", kind="rubric-grader", grader_model="gpt-0")
        GraderDecision.objects.filter(run=original, response__model_name=model).update(run=run)
        per_model[model] = run
    report = build_report(Selection(study_id=data.study.pk))
    graders = report.table("grader_reliability").frame
    assert len(graders) == 2  # physicians + one pooled grader
    pooled = graders.iloc[1]
    assert "rubric grader" in pooled["evaluator"] and pooled["n_decisions"] == len(data.grader[original.pk])
    pairs = sorted(data.human)
    raters = sorted(r.pk for r in three_raters)
    expected = metrics.macro_f1_vs_raters([data.grader[original.pk][p] for p in pairs],
                                          [[data.human[p][r] for r in raters] for p in pairs])
    assert pooled["macro_f1"] == pytest.approx(expected.value, abs=1e-12)
    assert _row(report, "ranking_stability", grader_a="Physician consensus")["n_models"] == 3


def test_it_keeps_two_gradings_of_the_same_pairs_apart(three_raters):
    from graders.models import GraderRun

    data = reliability_study(three_raters, n_cases=2)
    rerun = GraderRun.objects.create(name="Grader 0 again", kind="rubric-grader", grader_model="gpt-0")
    GraderDecision.objects.bulk_create(
        GraderDecision(run=rerun, response_id=r, criterion_id=c, verdict="met") for (r, c) in data.human
    )
    assert len(build_report(Selection(study_id=data.study.pk)).table("grader_reliability").frame) == 3


def test_it_orders_tasks_and_skips_grader_tables_without_physician_met_labels(physician_a, physician_b):
    study = make_study()
    narrative, validity = ensure_task("narrative-quality"), ensure_task("criterion-validity")
    item = case_item(study, make_case(narrative="order"))
    for rater in (physician_a, physician_b):
        rate(item, rater, validity, "agree", field_key="criterion:1")
        rate(item, rater, narrative, "2")
    report = build_report(Selection(study_id=study.pk))
    expected = sorted(["narrative-quality", "criterion-validity"],
                      key=lambda s: (type(narrative).objects.get(slug=s).order, s))
    assert list(report.table("data_quality").frame["task"]) == expected
    assert report.table("grader_reliability") is None


def test_it_lays_out_table_1_like_the_paper_for_few_raters(physician_a, physician_b):
    study = make_study()
    task = ensure_task("narrative-quality")
    for n, (a, b) in enumerate([("2", "2"), ("2", "1"), ("1", "2"), ("2", "2")]):
        item = case_item(study, make_case(narrative=f"t1 {n}"))
        rate(item, physician_a, task, a)
        rate(item, physician_b, task, b)
    report = build_report(Selection(study_id=study.pk))
    row = report.table("table1").frame.iloc[0]
    # Issue 13: a score >= 1 approves on the 0-2 scales (LiveMedBench), so every label here approves.
    assert row["approval R-physician_a"] == pytest.approx(1.0)
    assert row["approval R-physician_b"] == pytest.approx(1.0)
    assert row["ac1"] == pytest.approx(metrics.gwet_ac1([["2", "2"], ["2", "1"], ["1", "2"], ["2", "2"]],
                                                        ["2", "1", "0"]).value)


def test_it_handles_raters_who_each_label_only_some_pairs(db):
    """ClinConsensus-style: many physicians, each pair labelled by two of them."""
    import random

    from tests.agreement.builders import response_item
    from tests.factories import make_response

    doctors = [make_user(f"md{i}", role=Role.PHYSICIAN) for i in range(4)]
    study = make_study()
    task = ensure_task("grader-reliability")
    rng = random.Random(11)
    from graders.models import GraderRun
    run = GraderRun.objects.create(name="Grader", kind="rubric-grader", grader_model="g")
    human: dict[tuple[int, int], dict[int, str]] = {}
    grader: dict[tuple[int, int], str] = {}
    for c in range(8):
        revision = make_case(narrative=f"partial {c}")
        response = make_response(revision, model_name=f"m{c % 2}")
        item = response_item(study, response)
        pair_of_doctors = rng.sample(doctors, 2)
        for crit in revision.criteria.all():
            labels = {}
            for doc in pair_of_doctors:
                labels[doc.pk] = rng.choice(["met", "not_met"])
                rate(item, doc, task, labels[doc.pk], field_key=f"criterion:{crit.pk}", criterion=crit)
            human[(response.pk, crit.pk)] = labels
            grader[(response.pk, crit.pk)] = rng.choice(["met", "not_met", "met"])
            GraderDecision.objects.create(run=run, response=response, criterion=crit, verdict=grader[(response.pk,
                                                                                                        crit.pk)])
    report = build_report(Selection(study_id=study.pk))
    pairs = sorted(human)
    ids = sorted(d.pk for d in doctors)
    wide = [[human[p].get(d) for d in ids] for p in pairs]
    pair_values = []
    for i in range(4):
        for j in range(i + 1, 4):
            shared = [p for p in pairs if ids[i] in human[p] and ids[j] in human[p]]
            if shared:
                value = metrics.macro_f1([human[p][ids[i]] for p in shared], [human[p][ids[j]] for p in shared]).value
                if value is not None:
                    pair_values.append(value)
    human_row = _row(report, "grader_reliability", evaluator="Human inter-rater")
    assert human_row["macro_f1"] == pytest.approx(np.mean(pair_values), abs=1e-12)
    expected = metrics.macro_f1_vs_raters([grader[p] for p in pairs], wide)
    row = _row(report, "grader_reliability", evaluator=f"Grader (#{run.pk})")
    if expected.value is None:
        assert row["macro_f1"] is None or np.isnan(row["macro_f1"])
    else:
        assert row["macro_f1"] == pytest.approx(expected.value, abs=1e-12)
    per = report.table("grader_vs_rater").frame
    for k, doc in enumerate(ids):
        got = per[per["rater"] == f"R-md{[d.pk for d in doctors].index(doc)}"].iloc[0]
        assert got["macro_f1"] == pytest.approx(expected.per_rater[k].value, abs=1e-12, nan_ok=True)


def test_it_counts_a_case_in_each_of_its_specialties_and_filters_by_month(three_raters):
    import datetime as dt

    from cases.models import CaseRevision, Specialty

    data = reliability_study(three_raters, n_cases=3)
    cardio, neuro = Specialty.objects.create(name="Cardiology"), Specialty.objects.create(name="Neurology")
    revisions = sorted(set(data.response_revision.values()))
    CaseRevision.objects.get(pk=revisions[0]).specialties.set([cardio, neuro])
    CaseRevision.objects.get(pk=revisions[1]).specialties.set([cardio])
    CaseRevision.objects.filter(pk=revisions[0]).update(post_time=dt.datetime(2025, 6, 3, tzinfo=dt.UTC))
    CaseRevision.objects.filter(pk__in=revisions[1:]).update(post_time=dt.datetime(2025, 7, 9, tzinfo=dt.UTC))
    frame = build_report(Selection(study_id=data.study.pk, stratify_by="specialty")).table("data_quality").frame
    per_case = 3 * 4  # models x criteria
    assert dict(zip(frame["stratum"], frame["n_subjects"], strict=True)) == {
        "All": 3 * per_case, "Cardiology": 2 * per_case, "Neurology": per_case}
    june = build_report(Selection(study_id=data.study.pk, filters=(("month", "2025-06"),)))
    assert _row(june, "data_quality", task="grader-reliability")["n_subjects"] == per_case
    by_month = build_report(Selection(study_id=data.study.pk, stratify_by="month")).table("data_quality").frame
    assert set(by_month["stratum"]) == {"All", "2025-06", "2025-07"}


def test_it_rejects_unknown_strata():
    with pytest.raises(ValueError, match="unknown stratum"):
        Selection(stratify_by="colour")
    with pytest.raises(ValueError, match="unknown stratum filter"):
        Selection(filters=(("colour", "red"),))


def test_it_keeps_grader_numbers_when_the_study_also_has_case_level_tasks(three_raters):
    data = reliability_study(three_raters, n_cases=3)
    before = build_report(Selection(study_id=data.study.pk)).table("grader_reliability").frame
    narrative = ensure_task("narrative-quality")
    for n in range(3):
        item = case_item(data.study, make_case(narrative=f"mixed {n}"))
        for rater in three_raters:
            rate(item, rater, narrative, "2")
    after = build_report(Selection(study_id=data.study.pk))
    assert set(after.table("data_quality").frame["task"]) == {"grader-reliability", "narrative-quality"}
    frame = after.table("grader_reliability").frame
    for column in ("macro_f1", "pearson_r", "n_decisions", "positive_rate"):
        assert frame[column].tolist() == pytest.approx(before[column].tolist(), nan_ok=True)
