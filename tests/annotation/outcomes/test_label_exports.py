"""Long-format exports of final, first-round and later-round labels (command, page, API), and the
effort and cost of a study (study page, API, XLSX)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook

from annotation.inspection.services import inspection_return
from annotation.models import ReviewEvent
from annotation.outcomes.selectors import study_effort
from annotation.outcomes.services import study_set_hourly_rate
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import api_client_for
from tests.annotation.outcomes.builders import import_fixture, rate_everything, study_on
from tests.conftest import login

pytestmark = pytest.mark.django_db


def plan(rater: str):
    def label(case, f) -> str:
        if case == "LMB-D004" and rater == "a":
            return "1"
        if case == "LMB-D003":
            return "0"
        return "2"
    return label


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["narrative-quality"], raters=[physician_a, physician_b],
                     inspectors=[inspector])
    rate_everything(study, physician_a, plan("a"), seconds=90)
    rate_everything(study, physician_b, plan("b"), seconds=30)
    # The disagreement goes back to physician_a, who revises to 2 with a formula-like comment.
    item = study.items.get(revision__case__external_id="LMB-D004")
    returned = item.assignments.get(rater=physician_a)
    inspection_return(item=item, inspector=inspector, assignment=returned, comment="Please re-read")
    returned.refresh_from_db()
    rating_submit(assignment=returned, rater=physician_a, seconds_spent=45,
                  labels={"narrative-quality|": {"label": "2", "comment": "=HYPERLINK(\"http://x\")"}})
    return study


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_it_exports_final_first_round_and_later_round_labels_in_long_format(study) -> None:
    out = StringIO()
    call_command("export_labels", "--study", str(study.pk), "--format", "csv", stdout=out)
    table = rows(out.getvalue())
    d004 = [(r["kind"], r["round"], r["rater"], r["label"], r["rule"], r["source"]) for r in table
            if r["case"] == "LMB-D004"]
    assert d004 == [
        ("final", "", "", "", "unresolved", ""),  # back in inspection after the revision
        ("rating", "1", "R-physician_a", "1", "", ""),
        ("rating", "1", "R-physician_b", "2", "", ""),
        ("rating", "2", "R-physician_a", "2", "", ""),
    ]
    d003 = [(r["kind"], r["label"], r["rule"], r["source"]) for r in table if r["case"] == "LMB-D003"]
    assert d003[0] == ("final", "0", "unanimous", "consensus")
    revised = next(r for r in table if r["round"] == "2")
    assert revised["comment"] == "'=HYPERLINK(\"http://x\")"  # the one escaping path
    assert len(table) == 3 + 7


def test_it_exports_jsonl_and_xlsx_with_the_effort_sheet(study, tmp_path) -> None:
    out = StringIO()
    call_command("export_labels", "--study", str(study.pk), "--format", "jsonl", stdout=out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    assert records[0]["kind"] == "final" and records[0]["round"] is None
    assert {r["comment"] for r in records} >= {"=HYPERLINK(\"http://x\")"}  # JSON keeps the text as written
    study_set_hourly_rate(study=study, hourly_rate=Decimal("24.00"), currency="USD", actor=study.created_by)
    path = tmp_path / "labels.xlsx"
    call_command("export_labels", "--study", str(study.pk), "--format", "xlsx", "--output", str(path))
    workbook = load_workbook(path)
    assert workbook.sheetnames == ["labels", "effort", "audit_chain"]  # issue 22: the head of the chain
    effort = [[c.value for c in row] for row in workbook["effort"].iter_rows()]
    assert effort[0] == ["study", "rater", "items", "rounds", "seconds", "hours", "items_per_hour", "hourly_rate",
                         "cost", "currency"]
    assert effort[1:] == [
        [study.pk, "R-physician_a", 3, 4, 315, "0.09", "34.29", "24.00", "2.10", "USD"],
        [study.pk, "R-physician_b", 3, 3, 90, "0.03", "120.00", "24.00", "0.60", "USD"],
        [study.pk, "total", 6, 7, 405, "0.11", "53.33", "24.00", "2.70", "USD"],
    ]


def test_the_page_and_api_export_for_readers_and_record_the_export(study, client, researcher, inspector,
                                                                  physician_a) -> None:
    url = reverse("annotation:study_labels_export", args=[study.pk, "csv"])
    login(client, researcher)
    response = client.get(url)
    assert response.status_code == 200
    assert len(rows(b"".join(response.streaming_content).decode())) == 10
    assert ReviewEvent.objects.filter(study=study, kind=ReviewEvent.Kind.EXPORTED).count() == 1
    client.force_login(physician_a)
    assert client.get(url).status_code == 404
    api = api_client_for(inspector)
    api_url = reverse("annotation_api:study_labels_export", kwargs={"study_pk": study.pk, "fmt": "jsonl"})
    assert api.get(api_url).status_code == 200
    assert api.get(api_url.replace("jsonl", "pdf")).status_code == 404
    release_url = reverse("annotation_api:release_labels_export", kwargs={"pk": study.items.first().revision.release_id,
                                                                          "fmt": "csv"})
    body = b"".join(api_client_for(researcher).get(release_url).streaming_content).decode()
    assert len(rows(body)) == 10


def test_the_study_page_and_api_show_effort_and_cost(study, client, admin, researcher) -> None:
    login(client, admin)
    response = client.post(reverse("annotation:study_hourly_rate", args=[study.pk]),
                           {"hourly_rate": "24", "currency": "USD"})
    assert response.status_code == 302
    page = client.get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert "Effort and cost" in page and "2.70" in page and "53.33" in page
    data = api_client_for(researcher).get(
        reverse("annotation_api:study_effort", kwargs={"study_pk": study.pk})).json()
    assert data["total"] == {"rater": "total", "items": 6, "rounds": 7, "seconds": 405, "hours": "0.11",
                             "items_per_hour": "53.33", "hourly_rate": "24.00", "cost": "2.70"}
    assert study_effort(study).total.cost(Decimal("24")) == Decimal("2.70")
    client.force_login(researcher)
    assert client.post(reverse("annotation:study_hourly_rate", args=[study.pk]),
                       {"hourly_rate": "1"}).status_code == 403


def test_the_release_page_exports_every_study_of_the_release(study, client, researcher) -> None:
    release_id = study.items.first().revision.release_id
    login(client, researcher)
    response = client.get(reverse("annotation:release_labels_export", args=[release_id, "jsonl"]))
    assert response.status_code == 200
    records = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert {r["study"] for r in records} == {study.pk} and len(records) == 10
    assert "labels of every study of this release" in client.get(
        reverse("cases:release_detail", args=[release_id])).content.decode()
