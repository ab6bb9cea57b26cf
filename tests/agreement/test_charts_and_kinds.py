"""Charts a report lists are charts it can draw, drawn where a reader expects them, and a study's
report holds only the table families of its own task kinds."""

from __future__ import annotations

import re
from html import unescape

import numpy as np
import pandas as pd
from django.urls import reverse
from matplotlib.backends.backend_agg import FigureCanvasAgg

from agreement.charts import KAPPA_OFFSET, available_charts, forest_figure, render_chart
from agreement.exports import report_tex
from agreement.reports import Report, Table, build_report
from agreement.selectors import Selection
from annotation.catalogue import LIKERT_MEDIC, MEDIC_AXES, PAIRWISE_PREFERENCE
from annotation.models import Item, TaskType
from graders.models import GraderKind, GraderRun, JudgeScore, PairwiseJudgement
from tests.agreement.builders import make_study, reliability_study, response_item
from tests.conftest import login
from tests.factories import make_case, make_response


def _forest_frame(n_tasks: int) -> pd.DataFrame:
    return pd.DataFrame({
        "task": [f"t{k}" for k in range(n_tasks)], "task_name": [f"Task {k}" for k in range(n_tasks)],
        "ac1": [0.6] * n_tasks, "ac1_ci_low": [0.4] * n_tasks, "ac1_ci_high": [0.8] * n_tasks,
        "fleiss_kappa": [0.3] * n_tasks,
    })


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_a_single_task_forest_plot_keeps_legend_and_kappa_marker_in_place() -> None:
    for n_tasks in (1, 4):
        fig = forest_figure(_forest_frame(n_tasks))
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
        ax = fig.axes[0]
        legend = fig.legends[0].get_window_extent(renderer)
        label = ax.xaxis.label.get_window_extent(renderer)
        ticks = ax.xaxis.get_tightbbox(renderer)
        assert not _overlap(legend, label) and not _overlap(legend, ticks), n_tasks
        assert legend.y1 <= label.y0  # below the axis label, inside the figure
        assert legend.y0 >= 0
        # The kappa marker sits inside its task's row: less than half a row from its AC1 point.
        row_height = ax.get_window_extent(renderer).height / n_tasks
        ac1_y = ax.transData.transform((0.6, n_tasks - 1))[1]
        kappa_y = ax.transData.transform((0.3, n_tasks - 1 - KAPPA_OFFSET))[1]
        assert 0 < ac1_y - kappa_y < row_height / 2, n_tasks


def _report_with(key: str, frame: pd.DataFrame) -> Report:
    import datetime as dt

    return Report(selection=Selection(), tables=[Table(key, key, frame)], counts={},
                  generated_at=dt.datetime.now(dt.UTC))


def test_it_lists_only_charts_it_can_draw() -> None:
    no_ratings = pd.DataFrame({"source": ["Judge"] * 2, "model": ["m1", "m2"], "rating": [None, None],
                               "ci_low": [None, None], "ci_high": [None, None]})
    report = _report_with("pairwise_ratings", no_ratings)
    assert [c.key for c in available_charts(report)] == []
    rated = no_ratings.assign(rating=[1040.0, 960.0], ci_low=[990.0, 910.0], ci_high=[1090.0, 1010.0])
    report = _report_with("pairwise_ratings", rated)
    assert [c.key for c in available_charts(report)] == ["ratings"]
    assert render_chart(report, "ratings").png.startswith(b"\x89PNG")


def _one_sided_pairwise_study() -> Item:
    """m1 beats m2 in both orders every time: the Bradley-Terry fit has no finite ratings."""
    study = make_study(tasks=())
    study.tasks.set([TaskType.objects.get(slug=PAIRWISE_PREFERENCE.slug)])
    run = GraderRun.objects.create(name="Pairwise judge", kind=GraderKind.PAIRWISE_JUDGE, grader_model="j")
    for c in range(3):
        revision = make_case(narrative=f"one-sided {c}")
        a, b = make_response(revision, model_name="m1"), make_response(revision, model_name="m2")
        Item.objects.create(study=study, kind="pair", key=f"pair:{a.pk}:{b.pk}", revision=revision, response=a,
                            response_b=b)
        for order in ("ab", "ba"):
            PairwiseJudgement.objects.create(run=run, response_a=a, response_b=b, order=order, verdict="A")
    return study


def test_every_chart_image_of_a_report_page_answers_200(client, researcher):
    study = _one_sided_pairwise_study()
    login(client, researcher)
    html = client.get(reverse("agreement:report", args=[study.pk])).content.decode()
    assert "Pairwise ratings (Bradley-Terry" in html
    for url in re.findall(r'<img src="([^"]+)"', html):
        assert client.get(unescape(url)).status_code == 200, url
    assert "/chart/ratings.png" not in html  # nothing to draw: not offered


def test_a_likert_study_shows_no_pairwise_judge_tables_and_a_pairwise_study_no_likert_ones(db):
    likert = make_study(tasks=())
    likert.tasks.set([TaskType.objects.get(slug=LIKERT_MEDIC.slug)])
    pairwise = make_study(tasks=())
    pairwise.tasks.set([TaskType.objects.get(slug=PAIRWISE_PREFERENCE.slug)])
    judge = GraderRun.objects.create(name="Pairwise judge", kind=GraderKind.PAIRWISE_JUDGE, grader_model="j")
    likert_judge = GraderRun.objects.create(name="Likert judge", kind=GraderKind.LIKERT_JUDGE, grader_model="l")
    revision = make_case(narrative="shared responses")
    a, b = make_response(revision, model_name="m1"), make_response(revision, model_name="m2")
    for study in (likert, pairwise):  # both studies hold the same responses
        response_item(study, a)
    Item.objects.create(study=pairwise, kind="pair", key=f"pair:{a.pk}:{b.pk}", revision=revision, response=a,
                        response_b=b)
    for order, verdict in (("ab", "A"), ("ba", "B")):
        PairwiseJudgement.objects.create(run=judge, response_a=a, response_b=b, order=order, verdict=verdict)
    for response in (a, b):
        JudgeScore.objects.create(run=likert_judge, response=response, axis=MEDIC_AXES[0], raw_score=4,
                                  normalized_score=0.75, status="met")

    likert_keys = {t.key for t in build_report(Selection(study_id=likert.pk)).tables}
    assert "judge_axis_scores" in likert_keys
    assert not likert_keys & {"pairwise_ratings", "pairwise_win_rates", "pairwise_position_bias", "position_bias"}
    pairwise_keys = {t.key for t in build_report(Selection(study_id=pairwise.pk)).tables}
    assert {"pairwise_ratings", "position_bias"} <= pairwise_keys
    assert "judge_axis_scores" not in pairwise_keys


def test_a_grader_reliability_study_keeps_its_tables_without_the_pairwise_ones(physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=2)
    response = next(iter(data.response_model))
    judge = GraderRun.objects.create(name="Pairwise judge", kind=GraderKind.PAIRWISE_JUDGE, grader_model="j")
    other = make_response(data.study.items.get(response_id=response).revision, model_name="other")
    for order in ("ab", "ba"):
        PairwiseJudgement.objects.create(run=judge, response_a_id=response, response_b=other, order=order, verdict="A")
    report = build_report(Selection(study_id=data.study.pk))
    keys = [t.key for t in report.tables]
    assert {"grader_reliability", "coverage", "positive_rate"} <= set(keys)
    assert not {"pairwise_ratings", "position_bias", "judge_axis_scores", "approval", "table1"} & set(keys)
    dq = report.table("data_quality").frame.iloc[0]
    assert dq["approval_rate"] is None and np.isfinite(dq["positive_rate"])
    tex = report_tex(report)
    assert "Positive rate" in tex and "Approval" not in tex.split("tab:data-quality")[0].rsplit("begin{table}", 1)[-1]
    # The release report covers every study: there the pairwise tables stay.
    release = data.study.items.first().revision.release_id
    assert "position_bias" in {t.key for t in build_report(Selection(release_id=release)).tables}
