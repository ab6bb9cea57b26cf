"""Issue 9, finding 7 (500s) and finding 9 (connection health checks, uploads left behind): each
request here used to answer 500 or leave a file in MEDIA_ROOT."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import labels_for, make_cases, running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db
TOO_MANY = 2**31  # PositiveIntegerField holds up to 2^31 - 1 on PostgreSQL


@pytest.fixture
def claimed(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["narrative-quality"], raters_per_item=1)
    return assignment_claim_next(study=study, rater=physician_a)


def api_for(user) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


@pytest.mark.parametrize("seconds", [TOO_MANY, 2**63, 10**30])
def test_seconds_spent_too_large_is_a_400_on_draft_and_submit(claimed, physician_a, seconds: int) -> None:
    api = api_for(physician_a)
    draft = api.put(reverse("annotation_api:draft", kwargs={"pk": claimed.pk}),
                    {"draft": {}, "seconds_spent": seconds}, format="json")
    assert draft.status_code == 400 and "seconds_spent" in draft.json()
    submit = api.post(reverse("annotation_api:submit", kwargs={"pk": claimed.pk}),
                      {"labels": labels_for(claimed, "2"), "seconds_spent": seconds}, format="json")
    assert submit.status_code == 400 and "seconds_spent" in submit.json()


def test_a_field_seconds_too_large_is_a_400(claimed, physician_a) -> None:
    labels = {fid: {**entry, "seconds": TOO_MANY} for fid, entry in labels_for(claimed, "2").items()}
    answer = api_for(physician_a).post(reverse("annotation_api:submit", kwargs={"pk": claimed.pk}),
                                       {"labels": labels, "seconds_spent": 5}, format="json")
    assert answer.status_code == 400


def test_the_admin_change_page_of_a_case_opens(client, admin) -> None:
    from django.contrib.auth import get_user_model

    revision = make_cases(1)[0]
    superuser = get_user_model().objects.create_superuser("root", "root@example.org", "pw-root-2026")
    client.force_login(superuser)
    page = client.get(reverse("admin:cases_case_change", args=[revision.case_id]))
    assert page.status_code == 200


def test_the_admin_change_page_of_an_import_job_with_its_stored_upload_opens(client, admin) -> None:
    from django.contrib.auth import get_user_model

    from cases.services import import_job_create

    job = import_job_create(user=admin, fmt="generic", data=b'[{"id": "a", "narrative": "n", "criteria": '
                            b'[{"criterion": "c"}]}]', file_name="a.json", dataset_name="D", release_label="v1")
    assert job.file  # kept in the database storage until its import ends
    superuser = get_user_model().objects.create_superuser("root2", "root2@example.org", "pw-root-2026")
    client.force_login(superuser)
    assert client.get(reverse("admin:cases_importjob_change", args=[job.pk])).status_code == 200


def test_database_connections_are_health_checked() -> None:
    assert django_settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] is True


def test_uploads_are_deleted_when_the_job_ends(client, admin, settings, tmp_path, django_capture_on_commit_callbacks) -> None:
    from pathlib import Path

    from django.core.files.uploadedfile import SimpleUploadedFile

    from cases.models import ImportJob, StoredFile

    settings.MEDIA_ROOT = tmp_path
    fixtures = Path(__file__).parent / "cases" / "fixtures"
    login(client, admin)

    def upload(data: bytes, name: str) -> ImportJob:
        client.post(reverse("cases:import_upload"), {
            "format": "generic", "file": SimpleUploadedFile(name, data), "dataset": "", "release_label": name,
            "model_name": "", "grader_model": ""})
        return ImportJob.objects.get(file_name=name)

    refused = upload(b"[{}]", "bad.json")
    assert refused.status == ImportJob.Status.REFUSED
    done = upload((fixtures / "generic.json").read_bytes(), "good.json")
    stored_while_waiting = StoredFile.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("cases:import_confirm", args=[done.pk]))
    done.refresh_from_db()
    assert done.status == ImportJob.Status.DONE
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []
    assert stored_while_waiting == 1  # the validated upload waits in the database for its worker
    assert not StoredFile.objects.exists()  # nor in the database storage
    assert not refused.file and not ImportJob.objects.get(pk=done.pk).file
