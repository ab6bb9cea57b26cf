"""Issue 21: calibration labels carry calibration=true in every label export and are left out
unless asked for (`?calibration=1` on pages and API, `--calibration` on the command)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from annotation.models import Item
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.calibration.services import calibration_mark, rater_admit
from tests.annotation.builders import api_client_for, api_url, claim_and_submit, make_running_study
from tests.conftest import login


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3,
                               tasks=("narrative-quality",))
    first = study.items.order_by("pk").first()
    calibration_mark(item=first, actor=admin, expected={"narrative-quality|": {"label": "2", "explanation": "ok"}})
    claim = assignment_claim_next(study=study, rater=physician_a)
    assert claim.item.status == Item.Status.CALIBRATION
    rating_submit(assignment=claim, rater=physician_a, seconds_spent=5,
                  labels={"narrative-quality|": {"label": "1", "comment": ""}})
    rater_admit(study=study, rater=physician_a, actor=admin)
    claim_and_submit(study, physician_a, "2")
    return study


def _csv_rows(body: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body)))


def test_it_leaves_calibration_labels_out_of_the_csv_unless_asked(client, study, admin):
    login(client, admin)
    url = reverse("annotation:study_labels_export", args=[study.pk, "csv"])
    plain = _csv_rows(b"".join(client.get(url).streaming_content).decode())
    assert plain and {r["calibration"] for r in plain} == {"False"}
    assert {r["item_status"] for r in plain} != {"calibration"}
    every = _csv_rows(b"".join(client.get(url + "?calibration=1").streaming_content).decode())
    marked = [r for r in every if r["calibration"] == "True"]
    assert marked and {r["item_status"] for r in marked} == {"calibration"}
    assert len(every) == len(plain) + len(marked)


def test_it_marks_calibration_rows_in_the_jsonl_and_xlsx_of_the_api(study, admin):
    api = api_client_for(admin)
    url = api_url("study_labels_export", study_pk=study.pk, fmt="jsonl")
    rows = [json.loads(line) for line in b"".join(api.get(url).streaming_content).decode().splitlines()]
    assert rows and not any(r["calibration"] for r in rows)
    rows = [json.loads(line) for line in
            b"".join(api.get(url + "?calibration=1").streaming_content).decode().splitlines()]
    assert any(r["calibration"] is True and r["item_status"] == "calibration" for r in rows)
    book = load_workbook(io.BytesIO(api.get(api_url("study_labels_export", study_pk=study.pk, fmt="xlsx")).content))
    sheet = book["labels"]
    header = [c.value for c in next(sheet.iter_rows(max_row=1))]
    column = header.index("calibration")
    assert all(row[column] is False for row in sheet.iter_rows(min_row=2, values_only=True))


def test_it_exports_calibration_labels_from_the_command_only_when_asked(tmp_path, study):
    out = tmp_path / "labels.csv"
    call_command("export_labels", "--study", str(study.pk), "--output", str(out))
    assert not [r for r in _csv_rows(out.read_text()) if r["calibration"] == "True"]
    call_command("export_labels", "--study", str(study.pk), "--output", str(out), "--calibration")
    assert [r for r in _csv_rows(out.read_text()) if r["calibration"] == "True"]


def test_it_documents_the_parameter_in_the_schema(client, admin):
    login(client, admin)
    schema = client.get("/api/schema/?format=json").content.decode()
    assert "include calibration items' labels" in schema


def test_it_keeps_calibration_out_of_the_raw_labels_export_unless_asked(client, study, admin):
    """The agreement report's raw labels export (all rounds) is where round 0 mixed in (issue 21)."""
    login(client, admin)
    url = reverse("agreement:study_labels", args=[study.pk])
    plain = _csv_rows(b"".join(client.get(url).streaming_content).decode())
    assert plain and {r["calibration"] for r in plain} == {"False"} and "0" not in {r["round"] for r in plain}
    every = _csv_rows(b"".join(client.get(url + "?calibration=1").streaming_content).decode())
    marked = [r for r in every if r["calibration"] == "True"]
    assert marked and {r["round"] for r in marked} == {"0"}
    api = api_client_for(admin).get(reverse("agreement_api:study_labels", args=[study.pk]))
    assert "True" not in {r["calibration"] for r in _csv_rows(b"".join(api.streaming_content).decode())}
