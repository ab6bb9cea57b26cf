"""manage.py agreement_report and agreement_compute."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from agreement import metrics
from tests.agreement.builders import reliability_study


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_it_writes_a_report_in_every_format(tmp_path: Path, physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=2)
    report = json.loads(_run("agreement_report", "--study", str(data.study.pk), "--format", "json"))
    assert report["selection"]["study_id"] == data.study.pk
    assert "grader_reliability" in report["tables"]
    assert r"\toprule" in _run("agreement_report", "--study", str(data.study.pk), "--format", "tex")
    for fmt in ("csv", "xlsx"):
        target = tmp_path / f"report.{fmt}"
        _run("agreement_report", "--study", str(data.study.pk), "--format", fmt, "--output", str(target))
        assert target.stat().st_size > 0
    assert "data_quality.csv" in zipfile.ZipFile(tmp_path / "report.csv").namelist()


def test_it_fails_clearly_for_an_unknown_study_or_filter(db):
    with pytest.raises(CommandError, match="No study with id 424242"):
        _run("agreement_report", "--study", "424242")


def test_it_rejects_a_bad_filter(physician_a, physician_b):
    data = reliability_study([physician_a, physician_b], n_cases=1)
    with pytest.raises(CommandError, match="STRATUM=VALUE"):
        _run("agreement_report", "--study", str(data.study.pk), "--filter", "language")
    with pytest.raises(CommandError, match="unknown stratum filter"):
        _run("agreement_report", "--study", str(data.study.pk), "--filter", "colour=red")


RATINGS = "id,r1,r2,r3\nc1,0,0,1\nc2,2,2,2\nc3,1,,1\nc4,0,1,0\nc5,2,2,1\n"
MATRIX = [[0, 0, 1], [2, 2, 2], [1, None, 1], [0, 1, 0], [2, 2, 1]]


def test_it_computes_coefficients_for_a_csv(tmp_path: Path):
    path = tmp_path / "ratings.csv"
    path.write_text(RATINGS)
    result = json.loads(_run("agreement_compute", "--input", str(path), "--categories", "0,1,2", "--json"))
    coeffs = result["coefficients"]
    assert result["raters"] == ["r1", "r2", "r3"] and result["n_subjects"] == 5
    expected = metrics.gwet_ac1(MATRIX, [0, 1, 2])
    assert coeffs["ac1"]["value"] == pytest.approx(expected.value, abs=1e-12)
    assert coeffs["ac1"]["se"] == pytest.approx(expected.se, abs=1e-12)
    assert coeffs["ac2_quadratic"]["value"] == pytest.approx(
        metrics.gwet_ac2(MATRIX, [0, 1, 2], weights="quadratic").value, abs=1e-12)
    assert coeffs["fleiss_kappa"]["value"] == pytest.approx(metrics.fleiss_kappa(MATRIX, [0, 1, 2]).value)
    assert coeffs["percent_agreement"]["value"] == pytest.approx(0.6)
    assert "cohen_kappa" not in coeffs  # three raters
    table = _run("agreement_compute", "--input", str(path), "--categories", "0,1,2")
    assert "ac1" in table and "krippendorff_alpha_nominal" in table


def test_it_adds_cohen_for_two_raters_and_reads_files_without_ids(tmp_path: Path):
    path = tmp_path / "two.csv"
    path.write_text("doc_a,doc_b\nyes,yes\nno,yes\nno,no\nyes,yes\n")
    coeffs = json.loads(_run("agreement_compute", "--input", str(path), "--json"))["coefficients"]
    expected = metrics.cohen_kappa([["yes", "yes"], ["no", "yes"], ["no", "no"], ["yes", "yes"]])
    assert coeffs["cohen_kappa"]["value"] == pytest.approx(expected.value, abs=1e-12)
    assert "ac2_quadratic" not in coeffs  # nominal labels


def test_it_names_file_line_and_column_of_a_bad_label(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_text("id,r1,r2\nc1,0,1\nc2,0,maybe\n")
    with pytest.raises(CommandError, match=r"bad.csv, line 3 \(subject 'c2'\), column 'r2': label 'maybe'"):
        _run("agreement_compute", "--input", str(path), "--categories", "0,1")
    with pytest.raises(CommandError, match="file not found"):
        _run("agreement_compute", "--input", str(tmp_path / "missing.csv"))


@pytest.mark.parametrize(("text", "where"), [
    ("id,r1,r2\nc1,1," + "x" * 131_073 + "\n", "line 2"),
    ('id,r1,r2\nc1,1,"2\nc2,1,1\n', "line 3"),
], ids=["a cell over the csv limit", "a quote never closed"])
def test_it_names_the_line_of_a_csv_it_cannot_read(tmp_path: Path, text: str, where: str):
    path = tmp_path / "broken.csv"
    path.write_text(text)
    with pytest.raises(CommandError, match=rf"broken.csv, {where}: "):
        call_command("agreement_compute", "--input", str(path), stdout=io.StringIO())
