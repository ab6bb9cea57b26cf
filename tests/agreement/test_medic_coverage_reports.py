"""MEDIC and ClinConsensus analyses in the report, end to end: pages, API, exports.

A Likert judge job (against the local fake endpoint) scores every MEDIC axis; its scores must show
in the study's report beside the clinicians' scores. Coverage tables (Rubric Accuracy, Pass@tau,
CACS@tau) are checked against numbers recomputed here from what the builders wrote.
"""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pandas as pd
import pytest
from django.urls import reverse

from agreement.metrics import judges as J
from agreement.metrics.rubrics import coverage as C
from agreement.reports import build_report
from agreement.selectors import Selection
from annotation.catalogue import LIKERT_MEDIC, MEDIC_AXES, PAIRWISE_PREFERENCE
from annotation.models import Assignment, Item, Rating, TaskType
from graders import services
from graders.models import GraderKind, GraderRun, PairwiseJudgement
from tests.agreement.builders import (
    case_item,
    ensure_task,
    make_study,
    rate,
    reliability_study,
    response_item,
)
from tests.conftest import login
from tests.factories import make_case, make_release, make_response
from tests.graders.conftest import api_key, fake_server, make_config  # noqa: F401  (fixtures)


def likert_study(raters, *, models=("model-x", "model-y"), cases=2):
    release = make_release()
    study = make_study(tasks=())
    study.tasks.set([TaskType.objects.get(slug=LIKERT_MEDIC.slug)])
    task = TaskType.objects.get(slug=LIKERT_MEDIC.slug)
    scores = {}
    for c in range(cases):
        revision = make_case(release=release, narrative=f"Case {c}: three days of fever and cough.")
        for m, model in enumerate(models):
            response = make_response(revision, model_name=model, text=f"{model} says rest and fluids for case {c}.")
            item = response_item(study, response)
            for r, rater in enumerate(raters):
                for a, axis in enumerate(MEDIC_AXES):
                    label = str(1 + (c + m + r + a) % 5)
                    rate(item, rater, task, label, field_key=f"axis:{axis}")
                    scores[(response.pk, axis, rater.pk)] = int(label)
    return release, study, scores


def run_likert_judge(release, fake_server, capture):  # noqa: F811
    config = make_config(fake_server.base_url, kind=GraderKind.LIKERT_JUDGE, axes=list(MEDIC_AXES))
    with capture(execute=True):
        job = services.grading_job_create(config=config, selection={"release": release.pk}, created_by=None)
    job.refresh_from_db()
    return job


def test_a_likert_judge_jobs_scores_appear_in_the_report_page_and_api(
    client, researcher, physician_a, physician_b, fake_server, api_key, django_capture_on_commit_callbacks,  # noqa: F811
):
    release, study, clinician = likert_study([physician_a, physician_b])
    job = run_likert_judge(release, fake_server, django_capture_on_commit_callbacks)
    assert job.done == 12  # 4 responses x 3 axes

    login(client, researcher)
    data = client.get(reverse("agreement_api:study_report", args=[study.pk])).json()
    assert data["counts"]["judge_scores"] == 12
    axes = data["tables"]["judge_axis_scores"]["rows"]
    assert sorted(r["axis"] for r in axes) == sorted(MEDIC_AXES)
    assert all(r["n_scores"] == 4 for r in axes)

    diff = {r["axis"]: r for r in data["tables"]["judge_vs_clinician"]["rows"]}
    for axis in MEDIC_AXES:
        judged = {s.response_id: s.raw_score for s in job.run.scores.filter(axis=axis)}
        d = [judged[resp] - np.mean([v for (rr, ax, _), v in clinician.items() if rr == resp and ax == axis])
             for resp in judged]
        expected = J.paired_mean_difference(d, np.zeros(len(d)))
        assert diff[axis]["n"] == 4
        assert diff[axis]["difference"] == pytest.approx(expected.value)
        assert diff[axis]["ci_low"] == pytest.approx(expected.ci[0]) if expected.ci else True
    assert {r["axis"] for r in data["tables"]["clinician_ac2"]["rows"]} == set(MEDIC_AXES)
    # A Likert scale has no approval: neither column nor per-rater table says otherwise.
    dq = data["tables"]["data_quality"]["rows"][0]
    assert dq["approval_rate"] is None
    assert "approval" not in data["tables"]

    page = client.get(reverse("agreement:report", args=[study.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    assert "Judge scores per axis" in html and "Judge minus clinician per axis" in html
    assert "Patient safety" in html
    assert "0 judge scores" not in html


def pairwise_study(raters, *, models=("m1", "m2", "m3"), cases=3):
    study = make_study(tasks=())
    task = TaskType.objects.get(slug=PAIRWISE_PREFERENCE.slug)
    study.tasks.set([task])
    run = GraderRun.objects.create(name="Judge", kind=GraderKind.PAIRWISE_JUDGE, grader_model="j-1")
    strength = {m: k for k, m in enumerate(models)}
    for c in range(cases):
        revision = make_case(narrative=f"pair case {c}")
        responses = [make_response(revision, model_name=m, text=f"{m} {c}") for m in models]
        for i in range(len(responses)):
            for k in range(i + 1, len(responses)):
                a, b = responses[i], responses[k]
                item = Item.objects.create(study=study, kind="pair", key=f"pair:{a.pk}:{b.pk}", revision=revision,
                                           response=a, response_b=b)
                better = "A" if strength[a.model_name] > strength[b.model_name] else "B"
                for n, rater in enumerate(raters):
                    assignment = Assignment.objects.create(item=item, rater=rater, state="submitted",
                                                           pair_order="ab" if n % 2 == 0 else "ba")
                    Rating.objects.create(assignment=assignment, task=task, label=better if (c + n) % 3 else "tie")
                for order in ("ab", "ba"):
                    verdict = better if order == "ab" or c != 1 else "A"
                    PairwiseJudgement.objects.create(run=run, response_a=a, response_b=b, order=order,
                                                     verdict=verdict)
    return study, run


def test_pairwise_ratings_win_rates_and_position_bias_for_judges_and_physicians(physician_a, physician_b):
    study, run = pairwise_study([physician_a, physician_b])
    report = build_report(Selection(study_id=study.pk))
    ratings = report.table("pairwise_ratings").frame
    assert set(ratings["source"]) == {f"Judge (#{run.pk})", "Physicians"}
    judge = ratings[ratings["source"] != "Physicians"].set_index("model")
    assert judge.loc["m3", "rating"] > judge.loc["m1", "rating"]
    assert (judge["ci_low"] <= judge["rating"]).all() and (judge["rating"] <= judge["ci_high"]).all()
    bias = report.table("pairwise_position_bias").frame.set_index("source")
    assert bias.loc["Physicians", "n_verdicts"] == 18
    assert report.table("pairwise_win_rates") is not None
    agreement = report.table("pairwise_ranking_agreement").frame.iloc[0]
    assert agreement["n_models"] == 3


def test_coverage_tables_match_metrics_on_the_graders_and_consensus(physician_a, physician_b, inspector):
    data = reliability_study([physician_a, physician_b, inspector], n_cases=4, n_runs=2)
    report = build_report(Selection(study_id=data.study.pk, tau=2))
    cov = report.table("coverage").frame
    assert set(cov["tau"]) == {2}
    run = data.runs[0]
    rows = []
    for (response, criterion), verdict in data.grader[run.pk].items():
        if data.criteria_points[criterion] > 0:
            rows.append((data.response_model[response], response, int(verdict == "met")))
    per = (pd.DataFrame(rows, columns=["model", "response", "hits"]).groupby(["model", "response"])["hits"]
           .agg(["sum", "size"]).reset_index().rename(columns={"sum": "hits", "size": "n_criteria"}))
    expected = C.coverage_table(per, tau=2).set_index("model")
    got = cov[cov["scorer"].str.startswith("Grader 0")].set_index("model")
    for column in ("cacs", "pass_rate", "rubric_accuracy"):
        assert got[column].to_dict() == pytest.approx(expected[column].to_dict())
    assert report.table("threshold_sensitivity") is not None
    stability = report.table("ranking_stability_cacs").frame
    assert len(stability) == 3  # consensus and two graders


def test_tau_is_calibrated_from_physician_written_responses(physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=4, models=("physician", "model-y", "model-z"))
    report = build_report(Selection(study_id=data.study.pk, tau_model="physician"))
    cal = report.table("tau_calibration").frame.iloc[0]
    # ClinConsensus 4.3: per response, met decisions over decisions times its criteria (no consensus).
    hits = []
    for response, model in data.response_model.items():
        if model != "physician":
            continue
        labels = [v for (resp, crit), by in data.human.items() if resp == response and data.criteria_points[crit] > 0
                  for v in by.values()]
        criteria = sum(1 for (resp, crit) in data.human if resp == response and data.criteria_points[crit] > 0)
        hits.append(sum(v == "met" for v in labels) / len(labels) * criteria)
    assert cal["tau"] == int(np.floor(np.mean(hits) + 0.5))
    assert cal["mean_hits"] == pytest.approx(np.mean(hits))
    assert "physician" not in set(report.table("coverage").frame["model"])


def test_table_1_approval_counts_scores_of_at_least_one_on_the_0_2_scales(physician_a, physician_b):
    study = make_study()
    task = ensure_task("narrative-quality")
    for n, (a, b) in enumerate([("2", "2"), ("2", "1"), ("1", "0"), ("0", "0")]):
        item = case_item(study, make_case(narrative=f"approval {n}"))
        rate(item, physician_a, task, a)
        rate(item, physician_b, task, b)
    report = build_report(Selection(study_id=study.pk))
    row = report.table("table1").frame.iloc[0]
    assert row["approval R-physician_a"] == pytest.approx(3 / 4)  # 2, 2, 1 approve; 0 does not
    assert row["approval R-physician_b"] == pytest.approx(2 / 4)
    assert "score >= 1" in report.conventions["approval_rate"]


def test_latex_has_per_rater_approval_columns_like_table_1(client, researcher, physician_a, physician_b):
    study = make_study()
    task = ensure_task("narrative-quality")
    for n, (a, b) in enumerate([("2", "2"), ("2", "1"), ("0", "2")]):
        item = case_item(study, make_case(narrative=f"tex {n}"))
        rate(item, physician_a, task, a)
        rate(item, physician_b, task, b)
    login(client, researcher)
    tex = client.get(reverse("agreement:study_export", args=[study.pk, "tex"])).content.decode()
    assert "Rater 1" in tex and "Rater 2" in tex
    assert "R-physician\\_a" in tex
    assert "0.667" in tex and "1.000" in tex


def test_pdf_and_formatted_xlsx(client, researcher, physician_a, physician_b, inspector):
    from openpyxl import load_workbook

    data = reliability_study([physician_a, physician_b, inspector], n_cases=2)
    login(client, researcher)
    pdf = client.get(reverse("agreement:study_pdf", args=[data.study.pk]))
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF") and len(pdf.content) > 5000
    api_pdf = client.get(reverse("agreement_api:study_pdf", args=[data.study.pk]))
    assert api_pdf.status_code == 200 and api_pdf.content.startswith(b"%PDF")

    xlsx = client.get(reverse("agreement:study_export", args=[data.study.pk, "xlsx"]))
    book = load_workbook(io.BytesIO(xlsx.content))
    sheet = book["grader_reliability"]
    assert sheet.freeze_panes == "A2"
    assert sheet["A1"].font.bold
    assert sheet.column_dimensions["A"].width > 10
    numeric = next(c for c in sheet[2] if isinstance(c.value, float))
    assert numeric.number_format in ("0.000", "0.0000")
    assert "charts" in [s.lower() for s in book.sheetnames]

    archive = zipfile.ZipFile(io.BytesIO(client.get(
        reverse("agreement:study_export", args=[data.study.pk, "csv"])).content))
    charts = [n for n in archive.namelist() if n.startswith("charts/")]
    assert charts and all(n.endswith((".svg", ".png")) for n in charts)


def test_release_names_are_unique_and_readable(db):
    from cases.models import ImportFormat

    first = make_release(label="demo-2025")
    second = make_release(label="demo-2025", fmt=ImportFormat.LIVEMEDBENCH_RESPONSES)
    second.model_name = "model-alpha"
    second.save()
    names = {str(first), str(second)}
    assert len(names) == 2
    assert str(second).startswith("LiveMedBench demo-2025 · model-alpha responses · ")
    assert str(first).endswith(f"(#{first.pk})") and f"{first.imported_at:%Y-%m-%d}" in str(first)
