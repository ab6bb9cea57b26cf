"""Exports parse back and carry the same numbers as the report; raw labels keep every round."""

from __future__ import annotations

import io
import json
import zipfile

import pandas as pd
import pytest
from openpyxl import load_workbook

from agreement import exports
from agreement.reports import build_report
from agreement.selectors import Selection
from tests.agreement.builders import case_item, ensure_task, make_study, rate, reliability_study
from tests.factories import make_case


@pytest.fixture
def report(physician_a, physician_b, inspector):
    data = reliability_study([physician_a, physician_b, inspector], n_cases=3, n_runs=2)
    return build_report(Selection(study_id=data.study.pk, group_by="rank"))


def test_it_exports_csv_as_a_zip_of_tables_that_pandas_reads(report):
    archive = zipfile.ZipFile(io.BytesIO(exports.render(report, "csv")))
    names = set(archive.namelist())
    assert {"data_quality.csv", "grader_reliability.csv", "grader_vs_rater.csv", "about.json"} <= names
    frame = pd.read_csv(archive.open("grader_reliability.csv"))
    expected = report.table("grader_reliability").frame
    assert list(frame["evaluator"]) == list(expected["evaluator"])
    assert frame["macro_f1"].tolist() == pytest.approx(expected["macro_f1"].astype(float).tolist(), nan_ok=True)
    about = json.loads(archive.read("about.json"))
    assert about["labels_used"].startswith("First-round ratings only")


def test_it_exports_xlsx_with_one_sheet_per_table(report):
    workbook = load_workbook(io.BytesIO(exports.render(report, "xlsx")))
    assert workbook.sheetnames[0] == "About"
    assert {t.key[:31] for t in report.tables} <= set(workbook.sheetnames)
    sheet = workbook["data_quality"]
    # A reader's headers; each header's comment names the column as the CSV and JSON exports do.
    header = [c.value for c in sheet[1]]
    columns = [c.comment.text for c in sheet[1]]
    assert "Gwet's AC1" in header and "Fleiss' κ" in header and "Task (id)" in header
    assert "ac1" in columns and "fleiss_kappa" in columns
    ac1 = sheet.cell(row=2, column=columns.index("ac1") + 1).value
    assert ac1 == pytest.approx(report.table("data_quality").frame.iloc[0]["ac1"])


def test_it_exports_json_with_conventions_selection_counts_and_version(report):
    data = json.loads(exports.render(report, "json"))
    assert {"software", "generated_at", "selection", "labels_used", "counts", "conventions", "tables"} <= set(data)
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert data["software"] == {"name": "medreview", "version": pyproject["project"]["version"]}
    assert data["selection"]["group_by"] == "rank"
    assert data["counts"]["ratings_round_1"] == 3 * 3 * 4 * 3  # cases x models x criteria x raters
    assert "ac1" in data["conventions"]
    row = data["tables"]["grader_reliability"]["rows"][0]
    assert row["evaluator"] == "Human inter-rater"
    # Undefined numbers are null, never NaN (which is not JSON).
    assert row["pearson_r"] is None


def test_it_exports_latex_booktabs_tables(report):
    tex = exports.render(report, "tex").decode()
    assert tex.count(r"\toprule") >= 3 and r"\bottomrule" in tex and r"\midrule" in tex
    assert r"\label{tab:data-quality}" in tex and r"\label{tab:grader-reliability}" in tex
    assert "Human inter-rater" in tex


def test_it_escapes_latex_special_characters():
    assert exports.tex_escape("a_b & 50% #1 {x}") == r"a\_b \& 50\% \#1 \{x\}"


def test_it_keeps_labels_that_look_like_formulas_as_text():
    assert exports._cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert exports._cell("-1") == "-1"


def test_it_exports_raw_labels_of_every_round_with_pseudonyms(physician_a, physician_b):
    study = make_study()
    task = ensure_task("narrative-quality")
    item = case_item(study, make_case(narrative="raw labels"))
    rate(item, physician_a, task, "2")
    rate(item, physician_b, task, "0")
    rate(item, physician_b, task, "1", round_=2)
    text = "".join(exports.raw_labels_lines(Selection(study_id=study.pk)))
    frame = pd.read_csv(io.StringIO(text), dtype={"label": str})
    assert list(frame.columns) == list(exports.RAW_LABEL_COLUMNS)
    assert sorted(zip(frame["rater"], frame["round"], frame["label"], strict=True)) == [
        ("R-physician_a", 1, "2"), ("R-physician_b", 1, "0"), ("R-physician_b", 2, "1")]
    assert "physician_b" not in text.replace("R-physician_b", "")


def test_it_rejects_an_unknown_format(report):
    with pytest.raises(ValueError, match="unknown format"):
        exports.render(report, "pdf")
