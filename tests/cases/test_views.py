"""Upload, confirm and browse pages: the admin flow, access for every role, methods, query counts."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from cases.models import Case, CaseRevision, ImportJob, Release
from cases.services import release_import
from tests.conftest import login

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(autouse=True)
def media(settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path


def upload(client: Client, name: str = "livemedbench_cases.json", fmt: str = "livemedbench", data: bytes | None = None,
           **fields: str):
    content = data if data is not None else (FIXTURES / name).read_bytes()
    return client.post(reverse("cases:import_upload"), {
        "format": fmt, "file": SimpleUploadedFile(name, content), "dataset": "", "release_label": "v202601",
        "model_name": "", "grader_model": "", **fields,
    })


def import_fixture(name: str = "livemedbench_cases.json", fmt: str = "livemedbench", dataset: str = "LiveMedBench"):
    return release_import(fmt=fmt, data=(FIXTURES / name).read_bytes(), file_name=name, dataset_name=dataset,
                          release_label="v1")


@pytest.mark.django_db
def test_it_validates_then_imports_in_the_background_after_confirmation(
    client: Client, admin, django_capture_on_commit_callbacks
) -> None:
    login(client, admin)
    response = upload(client)
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response.url == reverse("cases:import_job", args=[job.pk])
    assert job.status == ImportJob.Status.VALIDATED
    assert job.validation["status"] == "dry-run" and job.validation["created"]["cases"] == 3
    with job.file.open("rb") as stored:  # in the database (STORAGES["imports"]), readable by any worker
        assert stored.read() == (FIXTURES / "livemedbench_cases.json").read_bytes()
    assert Case.objects.count() == 0  # nothing before the admin confirms

    page = client.get(reverse("cases:import_job", args=[job.pk]))
    assert b"Confirm and import" in page.content and b"Would create" in page.content

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        confirmed = client.post(reverse("cases:import_confirm", args=[job.pk]))
    assert confirmed.status_code == 302 and len(callbacks) == 1
    job.refresh_from_db()
    assert job.status == ImportJob.Status.DONE
    assert job.report["status"] == "imported" and job.report["created"]["criteria"] == 15
    assert job.release == Release.objects.get()
    assert Release.objects.get().imported_by == admin
    assert Case.objects.count() == 3

    progress = client.get(reverse("cases:import_job_progress", args=[job.pk]))
    assert b"hx-trigger" not in progress.content  # finished: the page stops polling
    assert b"Import report" in progress.content


@pytest.mark.django_db
def test_it_queues_a_job_once_even_when_confirmed_twice(client: Client, admin, django_capture_on_commit_callbacks) -> None:
    login(client, admin)
    upload(client)
    job = ImportJob.objects.get()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        client.post(reverse("cases:import_confirm", args=[job.pk]))
        client.post(reverse("cases:import_confirm", args=[job.pk]))
    assert len(callbacks) == 1
    assert Release.objects.count() == 1


@pytest.mark.django_db
def test_it_polls_while_a_job_is_queued(client: Client, admin) -> None:
    login(client, admin)
    upload(client)
    job = ImportJob.objects.get()
    ImportJob.objects.filter(pk=job.pk).update(status=ImportJob.Status.QUEUED)
    fragment = client.get(reverse("cases:import_job_progress", args=[job.pk]))
    assert b'hx-trigger="every 1s"' in fragment.content


@pytest.mark.django_db
def test_it_shows_every_error_of_a_refused_upload_and_offers_no_confirm(client: Client, admin) -> None:
    login(client, admin)
    bad = json.dumps([{"case_id": "1", "narrative": "n", "core_request": "q",
                       "rubric_items": [{"criterion": "<b>c</b>", "points": 44}]}]).encode()
    upload(client, data=bad, name="bad.json")
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.REFUSED
    page = client.get(reverse("cases:import_job", args=[job.pk]))
    assert b"points 44 outside -10..10" in page.content
    assert b"rubric_items[1].points" in page.content
    assert b"Confirm and import" not in page.content
    assert client.post(reverse("cases:import_confirm", args=[job.pk])).status_code == 302
    job.refresh_from_db()
    assert job.status == ImportJob.Status.REFUSED and Case.objects.count() == 0


@pytest.mark.django_db
def test_it_asks_for_the_model_name_of_a_responses_upload(client: Client, admin) -> None:
    login(client, admin)
    response = upload(client, name="livemedbench_responses.json", fmt="livemedbench-responses")
    assert response.status_code == 200
    assert b"needs the name of the model" in response.content
    assert ImportJob.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["physician_a", "inspector", "researcher", "outsider"])
def test_it_forbids_the_upload_page_to_every_role_but_admin(client: Client, persona: str, request) -> None:
    login(client, request.getfixturevalue(persona))
    assert client.get(reverse("cases:import_upload")).status_code == 403
    assert upload(client).status_code == 403
    assert ImportJob.objects.count() == 0


@pytest.mark.django_db
def test_it_redirects_anonymous_visitors_to_sign_in(client: Client) -> None:
    response = client.get(reverse("cases:import_upload"))
    assert response.status_code == 302 and reverse("login") in response.url


@pytest.mark.django_db
def test_it_hides_import_jobs_from_others_and_refuses_researchers_a_confirm(
    client: Client, admin, researcher, outsider
) -> None:
    login(client, admin)
    upload(client)
    job = ImportJob.objects.get()
    login(client, outsider)
    assert client.get(reverse("cases:import_job", args=[job.pk])).status_code == 404
    assert client.get(reverse("cases:import_job_progress", args=[job.pk])).status_code == 404
    assert client.post(reverse("cases:import_confirm", args=[job.pk])).status_code == 404
    login(client, researcher)
    assert client.get(reverse("cases:import_job", args=[job.pk])).status_code == 404
    assert client.post(reverse("cases:import_confirm", args=[job.pk])).status_code == 403
    job.refresh_from_db()
    assert job.status == ImportJob.Status.VALIDATED


@pytest.mark.django_db
def test_it_answers_405_to_wrong_methods(client: Client, admin) -> None:
    login(client, admin)
    upload(client)
    job = ImportJob.objects.get()
    assert client.put(reverse("cases:import_upload")).status_code == 405
    assert client.post(reverse("cases:import_job", args=[job.pk])).status_code == 405
    assert client.post(reverse("cases:import_job_progress", args=[job.pk])).status_code == 405
    assert client.get(reverse("cases:import_confirm", args=[job.pk])).status_code == 405
    assert client.post(reverse("cases:release_list")).status_code == 405
    import_fixture()
    assert client.post(reverse("cases:release_detail", args=[Release.objects.get().pk])).status_code == 405
    assert client.delete(reverse("cases:case_detail", args=[Case.objects.first().pk])).status_code == 405


@pytest.mark.django_db
@pytest.mark.parametrize("persona", ["researcher", "admin"])
def test_it_lets_researchers_and_admins_browse_releases_and_cases(client: Client, persona: str, request) -> None:
    import_fixture()
    import_fixture("liveclin.jsonl", "liveclin", "LiveClin")
    login(client, request.getfixturevalue(persona))
    listing = client.get(reverse("cases:release_list"))
    assert listing.status_code == 200
    assert b"LiveMedBench" in listing.content and b"LiveClin" in listing.content
    release = Release.objects.get(dataset__name="LiveClin")
    detail = client.get(reverse("cases:release_detail", args=[release.pk]))
    assert b"PMC-DEMO-0001" in detail.content
    case = Case.objects.get(external_id="PMC-DEMO-0001")
    page = client.get(reverse("cases:case_detail", args=[case.pk]))
    assert page.status_code == 200
    assert b"<table>" in page.content and b"Plasma free metanephrines" in page.content  # Markdown table rendered
    assert b"Pheochromocytoma" in page.content


@pytest.mark.django_db
def test_it_escapes_imported_text_and_sanitises_markdown(client: Client, researcher) -> None:
    record = {"pmc": "PMC-X", "exam_creation": {"final_policy": {
        "scenario": "<script>alert(1)</script>",
        "scenario_table_details": [{"caption": "t", "markdown": "| a |\n|---|\n| <img src=x onerror=alert(2)> |"}],
        "mcqs": [{"question": "q<b>", "options": {"A": "a", "B": "b"}, "correct_answer": "A"}]}}}
    release_import(fmt="liveclin", data=json.dumps(record).encode(), file_name="x.jsonl", dataset_name="LiveClin",
                   release_label="x")
    login(client, researcher)
    page = client.get(reverse("cases:case_detail", args=[Case.objects.get().pk])).content
    assert b"<script>alert(1)" not in page and b"&lt;script&gt;" in page
    assert b"onerror" not in page


@pytest.mark.django_db
def test_it_shows_old_revisions_on_the_case_page(client: Client, researcher) -> None:
    import_fixture()
    cases = json.loads((FIXTURES / "livemedbench_cases.json").read_bytes())
    cases[0]["narrative"] = "A rewritten narrative."
    release_import(fmt="livemedbench", data=json.dumps(cases).encode(), file_name="v2.json",
                   dataset_name="LiveMedBench", release_label="v2")
    login(client, researcher)
    page = client.get(reverse("cases:case_detail", args=[Case.objects.get(external_id="109002500").pk])).content
    assert b"Revision 2" in page and b"Revision 1" in page and b"A rewritten narrative." in page


@pytest.mark.django_db
def test_it_hides_cases_from_physicians_and_forbids_them_the_release_list(client: Client, physician_a) -> None:
    import_fixture()
    login(client, physician_a)
    assert client.get(reverse("cases:release_list")).status_code == 403
    assert client.get(reverse("cases:release_detail", args=[Release.objects.get().pk])).status_code == 404
    assert client.get(reverse("cases:case_detail", args=[Case.objects.first().pk])).status_code == 404


def _make_lmb(n: int, offset: int = 0) -> bytes:
    return json.dumps([
        {"case_id": f"c{offset + i}", "narrative": f"n{offset + i}", "core_request": "q",
         "rubric_items": [{"criterion": f"k{j}", "points": j} for j in range(1, 4)]}
        for i in range(n)
    ]).encode()


@pytest.mark.django_db
def test_it_keeps_browse_page_queries_bounded(client: Client, researcher, django_assert_num_queries) -> None:
    release_import(fmt="livemedbench", data=_make_lmb(2), file_name="a.json", dataset_name="A", release_label="1")
    login(client, researcher)
    client.get(reverse("cases:release_list"))  # warm the session/user queries

    def measure(url: str) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    release = Release.objects.get()
    small = [measure(reverse("cases:release_list")), measure(reverse("cases:release_detail", args=[release.pk]))]
    release_import(fmt="livemedbench", data=_make_lmb(60, 100), file_name="b.json", dataset_name="A", release_label="2")
    release_import(fmt="livemedbench", data=_make_lmb(5, 500), file_name="c.json", dataset_name="B", release_label="1")
    big_release = Release.objects.get(label="2")
    large = [measure(reverse("cases:release_list")), measure(reverse("cases:release_detail", args=[big_release.pk]))]
    assert small == large

    changed = json.loads(_make_lmb(1, 100))
    changed[0]["narrative"] = "a second text"
    release_import(fmt="livemedbench", data=json.dumps(changed).encode(), file_name="d.json", dataset_name="A",
                   release_label="3")
    # One revision with 3 criteria against two revisions with 6: the page makes the same queries.
    small_case, large_case = Case.objects.get(external_id="c0"), Case.objects.get(external_id="c100")
    with django_assert_num_queries(measure(reverse("cases:case_detail", args=[small_case.pk]))):
        client.get(reverse("cases:case_detail", args=[large_case.pk]))
    assert CaseRevision.objects.count() == 68


@pytest.mark.django_db
def test_it_shows_a_factory_made_question_set_with_its_answers(client: Client, admin) -> None:
    from tests.factories import make_question_set

    question_set = make_question_set()
    login(client, admin)
    page = client.get(reverse("cases:case_detail", args=[question_set.revision.case_id])).content.decode()
    assert "Pneumothorax" in page and "<strong>A. Pneumonia ✓</strong>" in page


@pytest.mark.django_db
def test_it_records_a_crashed_import_on_the_job_instead_of_losing_it(
    client: Client, admin, monkeypatch, django_capture_on_commit_callbacks
) -> None:
    login(client, admin)
    upload(client)
    job = ImportJob.objects.get()

    def crash(**kwargs: object) -> None:
        raise OSError("disk unplugged")

    monkeypatch.setattr("cases.services.import_jobs.release_import", crash)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("cases:import_confirm", args=[job.pk]))
    job.refresh_from_db()
    assert job.status == ImportJob.Status.FAILED and job.finished_at is not None
    assert job.report["errors"][0]["message"] == "internal error: OSError"
    assert b"failed" in client.get(reverse("cases:import_job", args=[job.pk])).content
