"""The cases API: datasets and releases for researchers and admins, imports for admins."""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from cases.models import Case, Release
from cases.services import release_import

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def api() -> APIClient:
    return APIClient()


def post_import(api: APIClient, name: str = "livemedbench_cases.json", fmt: str = "livemedbench", **fields):
    return api.post(
        reverse("cases_api:import"),
        {"format": fmt, "file": SimpleUploadedFile(name, (FIXTURES / name).read_bytes()), "release": "v1", **fields},
        format="multipart",
    )


@pytest.mark.django_db
def test_it_imports_through_the_api_and_says_unchanged_the_second_time(api: APIClient, admin) -> None:
    api.force_authenticate(admin)
    dry = post_import(api, dry_run="true")
    assert dry.status_code == 200 and dry.json()["status"] == "dry-run"
    assert Case.objects.count() == 0
    first = post_import(api)
    assert first.status_code == 201
    body = first.json()
    assert body["status"] == "imported" and body["created"]["cases"] == 3
    assert Release.objects.get().imported_by == admin
    again = post_import(api)
    assert again.status_code == 200 and again.json()["status"] == "unchanged"


@pytest.mark.django_db
def test_it_answers_400_with_every_error_for_a_bad_file(api: APIClient, admin) -> None:
    api.force_authenticate(admin)
    response = api.post(
        reverse("cases_api:import"),
        {"format": "livemedbench", "file": SimpleUploadedFile("bad.json", b'[{"case_id": 1}]')},
        format="multipart",
    )
    assert response.status_code == 400
    fields = [e["field"] for e in response.json()["errors"]]
    assert fields == ["narrative", "core_request", "rubric_items"]
    assert Case.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["researcher", "physician_a", "inspector"])
def test_it_refuses_imports_to_everyone_but_admins(api: APIClient, persona: str, request) -> None:
    api.force_authenticate(request.getfixturevalue(persona))
    assert post_import(api).status_code == 403
    assert Case.objects.count() == 0


@pytest.mark.django_db
def test_it_requires_authentication(api: APIClient) -> None:
    assert post_import(api).status_code in (401, 403)
    assert api.get(reverse("cases_api:dataset_list")).status_code in (401, 403)


@pytest.mark.django_db
def test_it_lists_datasets_with_releases_for_researchers(api: APIClient, researcher, physician_a) -> None:
    release_import(fmt="liveclin", data=(FIXTURES / "liveclin.jsonl").read_bytes(), file_name="lc.jsonl",
                   dataset_name="LiveClin", release_label="2025H1")
    api.force_authenticate(researcher)
    body = api.get(reverse("cases_api:dataset_list")).json()
    assert body[0]["name"] == "LiveClin" and body[0]["case_count"] == 3
    assert body[0]["releases"][0]["label"] == "2025H1"
    assert body[0]["releases"][0]["counts"]["mcqs"] == 10
    api.force_authenticate(physician_a)
    assert api.get(reverse("cases_api:dataset_list")).status_code == 403


@pytest.mark.django_db
def test_it_answers_405_to_wrong_methods(api: APIClient, admin) -> None:
    api.force_authenticate(admin)
    assert api.get(reverse("cases_api:import")).status_code == 405
    assert api.post(reverse("cases_api:dataset_list")).status_code == 405


@pytest.mark.django_db
def test_it_documents_the_endpoints_in_the_schema(api: APIClient, admin) -> None:
    api.force_authenticate(admin)
    schema = api.get(reverse("api-schema"), {"format": "json"}).json()
    assert "/api/cases/imports/" in schema["paths"]
    assert "/api/cases/datasets/" in schema["paths"]


@pytest.mark.django_db
def test_it_lists_datasets_in_a_bounded_number_of_queries(api: APIClient, researcher) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    api.force_authenticate(researcher)

    def queries() -> int:
        with CaptureQueriesContext(connection) as ctx:
            assert api.get(reverse("cases_api:dataset_list")).status_code == 200
        return len(ctx.captured_queries)

    release_import(fmt="liveclin", data=(FIXTURES / "liveclin.jsonl").read_bytes(), file_name="lc.jsonl",
                   dataset_name="LiveClin", release_label="a")
    small = queries()
    release_import(fmt="healthbench", data=(FIXTURES / "healthbench.jsonl").read_bytes(), file_name="hb.jsonl",
                   dataset_name="HealthBench", release_label="a")
    release_import(fmt="generic", data=(FIXTURES / "generic.csv").read_bytes(), file_name="g.csv",
                   dataset_name="HealthBench", release_label="b")
    assert queries() == small
