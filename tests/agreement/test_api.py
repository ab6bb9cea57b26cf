"""/api/reports/: the same reports and exports for researchers and admins only."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.urls import reverse

from accounts.tokens import token_create
from tests.agreement.builders import reliability_study
from tests.conftest import login


@pytest.fixture
def study_data(physician_a, physician_b, inspector):
    return reliability_study([physician_a, physician_b, inspector], n_cases=2)


def test_it_returns_the_report_as_json(client, researcher, study_data):
    response = login(client, researcher).get(
        reverse("agreement_api:study_report", args=[study_data.study.pk]), {"stratify_by": "model"}
    )
    assert response.status_code == 200
    data = response.json()
    assert data["selection"]["stratify_by"] == "model"
    rows = data["tables"]["grader_reliability"]["rows"]
    assert {r["stratum"] for r in rows} == {"All", "model-x", "model-y", "model-z"}
    raters = {r["rater"] for r in data["tables"]["grader_vs_rater"]["rows"]}
    assert raters == {"R-physician_a", "R-physician_b", "R-inspector"}


def test_it_accepts_token_authentication(client, admin, study_data):
    _, key = token_create(user=admin)  # hashed, expiring (django-rest-knox)
    response = client.get(reverse("agreement_api:study_list"), HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 200
    assert [s["id"] for s in response.json()] == [study_data.study.pk]


def test_it_serves_exports(client, researcher, study_data):
    login(client, researcher)
    response = client.get(reverse("agreement_api:study_export", args=[study_data.study.pk, "csv"]))
    assert response.status_code == 200
    assert "grader_reliability.csv" in zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    bad = client.get(reverse("agreement_api:study_export", args=[study_data.study.pk, "pdf"]))
    assert bad.status_code == 400
    labels = client.get(reverse("agreement_api:study_labels", args=[study_data.study.pk]))
    assert labels.status_code == 200 and b"R-physician_a" in b"".join(labels.streaming_content)


def test_it_refuses_physicians_and_anonymous_callers(client, physician_a, inspector, study_data):
    url = reverse("agreement_api:study_report", args=[study_data.study.pk])
    assert client.get(url).status_code in (401, 403)
    for user in (physician_a, inspector):
        client.force_login(user)
        assert client.get(url).status_code == 403
        assert client.get(reverse("agreement_api:study_list")).status_code == 403


def test_it_answers_404_for_unknown_ids_and_405_for_writes(client, researcher, study_data):
    login(client, researcher)
    assert client.get(reverse("agreement_api:study_report", args=[987654])).status_code == 404
    assert client.get(reverse("agreement_api:release_report", args=[987654])).status_code == 404
    assert client.post(reverse("agreement_api:study_report", args=[study_data.study.pk])).status_code == 405


def test_it_validates_query_parameters(client, researcher, study_data):
    response = login(client, researcher).get(
        reverse("agreement_api:study_report", args=[study_data.study.pk]), {"month": "June", "group_a": "R-x"}
    )
    assert response.status_code == 400
    assert "month" in response.json()


def test_it_documents_the_endpoints_in_the_schema(client, researcher):
    schema = login(client, researcher).get(reverse("api-schema"), {"format": "json"}).json()
    paths = schema["paths"]
    assert "/api/reports/studies/{id}/" in paths
    assert "/api/reports/studies/{id}/export/{fmt}/" in paths
    assert "stratify_by" in {p["name"] for p in paths["/api/reports/studies/{id}/"]["get"]["parameters"]}
