"""Issue 22, finding 5: a name from imported data is never parsed as matplotlib math text.

A specialty, theme, axis, grader, model or rater name such as `$\\frac{$` used to make the strata
charts, the stratified exports (XLSX, the CSV archive with its charts) and the PDF answer 500
(matplotlib's mathtext raised ValueError). Every chart, the PDF and the XLSX now show it as typed.
"""

from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse
from matplotlib.text import Text
from openpyxl import load_workbook

from accounts.models import Profile
from agreement import exports
from agreement.charts import available_charts, chart_figures, render_chart
from agreement.reports import build_report
from agreement.selection import STRATA
from agreement.selectors import Selection
from cases.models import CaseRevision, RubricCriterion, Specialty, Theme
from graders.models import GraderRun
from tests.agreement.builders import reliability_study
from tests.agreement.test_medic_coverage_reports import pairwise_study
from tests.conftest import login

pytestmark = pytest.mark.django_db

# Unbalanced and balanced: both used to raise in mathtext ("$\frac{$" is an unclosed group).
MATH = ["$\\frac{$", "$x^{2$", "a $\\sqrt{$ b $c$"]


@pytest.fixture
def math_named_study(physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=3, models=tuple(MATH))
    GraderRun.objects.update(name=MATH[0] + " grader")
    RubricCriterion.objects.filter(axis="Safety").update(axis=MATH[1])
    for n, revision in enumerate(CaseRevision.objects.order_by("pk")):
        revision.specialties.add(Specialty.objects.get_or_create(name=MATH[n % len(MATH)])[0])
        revision.themes.add(Theme.objects.get_or_create(name=MATH[(n + 1) % len(MATH)])[0])
    Profile.objects.filter(user=physician_a).update(pseudonym="R-$\\frac{$")
    return data.study


def texts(figure) -> list[Text]:  # noqa: ANN001
    figure.canvas.draw()  # tick labels and legends are made at draw time
    return list(figure.findobj(Text))


@pytest.mark.parametrize("stratum", ["", "specialty", "theme", "axis", "model"])
def test_every_chart_draws_a_math_like_name_as_typed(math_named_study, stratum: str) -> None:
    report = build_report(Selection(study_id=math_named_study.pk, stratify_by=stratum))
    specs = available_charts(report)
    assert specs
    for spec in specs:
        chart = render_chart(report, spec.key)
        assert chart is not None and chart.png.startswith(b"\x89PNG"), spec.key
    shown = [t for _key, _title, fig in chart_figures(report) for t in texts(fig)]
    assert all(not t.get_parse_math() for t in shown)
    assert any(MATH[0] in t.get_text() for t in shown)


@pytest.mark.parametrize("stratum", ["specialty", "theme", "axis", "model"])
def test_the_pdf_xlsx_and_csv_archive_of_a_stratified_report_hold_the_name(math_named_study, stratum: str) -> None:
    assert stratum in STRATA
    report = build_report(Selection(study_id=math_named_study.pk, stratify_by=stratum))
    assert exports.report_pdf(report).startswith(b"%PDF")
    book = load_workbook(io.BytesIO(exports.render(report, "xlsx")))
    cells = {c.value for sheet in book for row in sheet.iter_rows() for c in row}
    assert any(isinstance(v, str) and ("$\\frac{$" in v or "$x^{2$" in v) for v in cells)
    archive = zipfile.ZipFile(io.BytesIO(exports.render(report, "csv")))
    assert any(name.startswith("charts/") for name in archive.namelist())


def test_the_report_page_its_charts_and_the_pdf_answer_200(math_named_study, client, researcher) -> None:
    login(client, researcher)
    page = client.get(reverse("agreement:report", args=[math_named_study.pk]), {"stratify_by": "specialty"})
    assert page.status_code == 200
    report = build_report(Selection(study_id=math_named_study.pk, stratify_by="specialty"))
    for spec in available_charts(report):
        png = client.get(reverse("agreement:study_chart", args=[math_named_study.pk, spec.key]),
                         {"stratify_by": "specialty"})
        assert png.status_code == 200 and png["Content-Type"] == "image/png", spec.key
    assert client.get(reverse("agreement:study_pdf", args=[math_named_study.pk]),
                      {"stratify_by": "specialty"}).status_code == 200
    xlsx = client.get(reverse("agreement:study_export", args=[math_named_study.pk, "xlsx"]),
                      {"stratify_by": "model"})
    assert xlsx.status_code == 200


def test_pairwise_ratings_of_math_named_models_and_judges_draw(physician_a, physician_b) -> None:
    study, run = pairwise_study([physician_a, physician_b], models=tuple(MATH))
    GraderRun.objects.filter(pk=run.pk).update(name=MATH[2])
    report = build_report(Selection(study_id=study.pk))
    assert "ratings" in [s.key for s in available_charts(report)]
    assert render_chart(report, "ratings") is not None
    assert exports.report_pdf(report).startswith(b"%PDF")
