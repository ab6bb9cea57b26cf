"""Curating a release through the service, the command, the admin page and the API: files stored
(in the database by default, issue 22) with the manifest and checksums, identical on a re-run,
nothing written when refused."""

from __future__ import annotations

import hashlib
import json
from io import StringIO

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Curation, ReviewEvent
from annotation.outcomes.curation.service import curation_create, curation_storage
from cases.exporters import CurationRules
from cases.models import StoredFile
from medreview.errors import ConflictError
from tests.annotation.builders import api_client_for
from tests.annotation.outcomes.builders import adjudicate, import_fixture, rate_everything, study_on
from tests.annotation.outcomes.test_curation_flow import inspector_lmb, lmb_plan
from tests.conftest import login

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def stored(curation_name: str) -> dict[str, bytes]:
    """The curation's files as the curations storage holds them, by file name."""
    storage = curation_storage()
    _dirs, names = storage.listdir(f"curations/{curation_name}")
    out = {}
    for name in names:
        with storage.open(f"curations/{curation_name}/{name}") as f:
            out[name] = f.read()
    return out


def history(item_id: int) -> str:
    return reverse("annotation:item_history", args=[item_id])


@pytest.fixture
def lmb(admin, physician_a, physician_b, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    study = study_on(release, admin, tasks=["narrative-quality", "advice-quality", "criterion-validity"],
                     raters=[physician_a, physician_b], inspectors=[inspector], name="LMB validity")
    rate_everything(study, physician_a, lmb_plan("a"))
    rate_everything(study, physician_b, lmb_plan("b"))
    adjudicate(study, inspector, inspector_lmb)
    return release, study


def test_it_writes_the_release_the_manifest_and_checksums_and_is_unchanged_on_a_rerun(lmb, admin) -> None:
    release, study = lmb
    curation, created = curation_create(name="v202601-reviewed", release=release, studies=[study],
                                        rules=CurationRules(), actor=admin, history_url=history)
    assert created
    files = stored("v202601-reviewed")
    assert sorted(files) == ["SHA256SUMS", "manifest.json", "merged_data_rubric.json"]
    data = files["merged_data_rubric.json"]
    manifest = json.loads(files["manifest.json"])
    assert manifest["files"][0]["sha256"] == hashlib.sha256(data).hexdigest() == curation.files["merged_data_rubric.json"]
    assert manifest["counts"]["criteria"]["dropped"] == 2
    item = study.items.get(revision__case__external_id="109002500")
    assert manifest["items"][0]["history"] == [f"/review/items/{item.pk}/history/"]
    sums = files["SHA256SUMS"].decode().splitlines()
    assert sums == [f"{hashlib.sha256(files[n]).hexdigest()}  {n}" for n in ("manifest.json", "merged_data_rubric.json")]
    event = ReviewEvent.objects.get(study=study, kind=ReviewEvent.Kind.CURATED)
    assert event.data["manifest_sha256"] == curation.files["manifest.json"] and event.item_id is None

    before = stored("v202601-reviewed")
    again, created_again = curation_create(name="v202601-reviewed", release=release, studies=[study],
                                           rules=CurationRules(), actor=admin, history_url=history)
    assert (again.pk, created_again) == (curation.pk, False)
    assert stored("v202601-reviewed") == before
    with pytest.raises(ConflictError):
        curation_create(name="v202601-reviewed", release=release, studies=[study],
                        rules=CurationRules(keep_rejected_criteria=True), actor=admin, history_url=history)


def test_it_writes_nothing_when_refused(lmb, admin, physician_a, physician_b, inspector, media) -> None:
    release, _ = lmb
    other = import_fixture("healthbench", "healthbench.jsonl", dataset="HealthBench", label="2025-05")
    other_study = study_on(other, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                           inspectors=[inspector], name="HB validity")
    events = ReviewEvent.objects.count()
    with pytest.raises(ValidationError):
        curation_create(name="mixed", release=release, studies=[other_study], rules=CurationRules(), actor=admin,
                        history_url=history)
    assert not Curation.objects.exists() and ReviewEvent.objects.count() == events
    assert stored("mixed") == {} and not StoredFile.objects.filter(name__startswith="curations/").exists()
    with pytest.raises(PermissionDenied):
        curation_create(name="x", release=release, studies=[other_study], rules=CurationRules(), actor=inspector,
                        history_url=history)


def test_the_command_curates_and_refuses_with_exit_status_1(lmb, admin, physician_a, physician_b) -> None:
    release, study = lmb
    out = StringIO()
    call_command("curate_release", "v1-cmd", "--release", str(release.pk), "--studies", str(study.pk),
                 "--admin", "admin", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "written" and report["counts"]["cases"]["flagged"] == 1
    out = StringIO()
    call_command("curate_release", "v1-cmd", "--release", str(release.pk), "--studies", str(study.pk),
                 "--admin", "admin", stdout=out)
    assert out.getvalue().startswith("unchanged")

    strict = study_on(release, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                      inspectors=[], name="unfinished")
    err = StringIO()
    with pytest.raises(SystemExit) as exit_:
        call_command("curate_release", "v1-strict", "--release", str(release.pk), "--studies", str(strict.pk),
                     "--admin", "admin", "--resolved-only", stderr=err)
    assert exit_.value.code == 1
    assert err.getvalue().startswith("refused, nothing written: resolved only: 15 fields of 3 item(s)")
    assert stored("v1-strict") == {}


def test_the_admin_page_curates_and_links_each_dropped_item_to_its_history(lmb, client, admin) -> None:
    release, study = lmb
    login(client, admin)
    page = client.get(reverse("annotation:curation_list") + f"?release={release.pk}")
    assert page.status_code == 200
    response = client.post(reverse("annotation:curation_list"), {
        "name": "v202601-reviewed", "release": release.pk, "studies": [study.pk]})
    curation = Curation.objects.get(name="v202601-reviewed")
    assert response.status_code == 302 and response["Location"] == reverse("annotation:curation_detail",
                                                                           args=[curation.pk])
    detail = client.get(response["Location"]).content.decode()
    item = study.items.get(revision__case__external_id="109002500")
    assert f'href="/review/items/{item.pk}/history/"' in detail
    assert curation.files["merged_data_rubric.json"] in detail
    download = client.get(reverse("annotation:curation_file", args=[curation.pk, "merged_data_rubric.json"]))
    assert hashlib.sha256(b"".join(download.streaming_content)).hexdigest() == curation.files["merged_data_rubric.json"]


def test_the_page_refuses_with_a_message_and_non_admins_cannot_curate(lmb, client, admin, researcher, inspector,
                                                                       physician_a, physician_b) -> None:
    release, _ = lmb
    unfinished = study_on(release, admin, tasks=["criterion-validity"], raters=[physician_a, physician_b],
                          inspectors=[], name="unfinished")
    login(client, admin)
    page = client.post(reverse("annotation:curation_list"), {
        "name": "strict", "release": release.pk, "studies": [unfinished.pk], "resolved_only": "on"}, follow=True)
    assert page.status_code == 200 and not Curation.objects.exists()
    assert "Refused, nothing written: resolved only: 15 fields of 3 item(s)" in page.content.decode()
    client.force_login(researcher)
    assert client.get(reverse("annotation:curation_list")).status_code == 403
    client.force_login(inspector)
    assert client.get(reverse("annotation:curation_list")).status_code == 404


def test_the_api_curates_for_admins_only(lmb, admin, researcher) -> None:
    release, study = lmb
    url = reverse("annotation_api:curation_list")
    body = {"name": "v202601-api", "release": release.pk, "studies": [study.pk], "keep_rejected": True}
    assert api_client_for(researcher).post(url, body, format="json").status_code == 403
    created = api_client_for(admin).post(url, body, format="json")
    assert created.status_code == 201
    assert created.json()["manifest"]["counts"]["criteria"]["marked"] == 2
    assert api_client_for(admin).post(url, body, format="json").status_code == 200
    bad = api_client_for(admin).post(url, {**body, "name": "other", "studies": []}, format="json")
    assert bad.status_code == 400 and "studies" in bad.json()
    listed = api_client_for(admin).get(url).json()
    assert [c["name"] for c in listed] == ["v202601-api"]


def test_the_release_admin_action_opens_the_curation_page_for_one_release(lmb, client, admin) -> None:
    release, _ = lmb
    admin.is_staff = admin.is_superuser = True
    admin.save()
    login(client, admin)
    response = client.post(reverse("admin:cases_release_changelist"),
                           {"action": "curate", "_selected_action": [release.pk]})
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('annotation:curation_list')}?release={release.pk}"


# --- issue 22, finding 7: stored where every web server and worker finds them ----------------------


def test_it_stores_the_files_in_the_database_by_default(lmb, admin, client, media) -> None:
    release, study = lmb
    curation, _ = curation_create(name="v202601-db", release=release, studies=[study], rules=CurationRules(),
                                  actor=admin, history_url=history)
    rows = dict(StoredFile.objects.filter(name__startswith="curations/v202601-db/").values_list("name", "size"))
    assert sorted(rows) == [f"curations/v202601-db/{n}" for n in ("SHA256SUMS", "manifest.json",
                                                                  "merged_data_rubric.json")]
    assert not (media / "curations").exists()  # nothing on this machine's disk
    # Another web server (no MEDIA_ROOT of its own) serves the download.
    response = login(client, admin).get(reverse("annotation:curation_file", args=[curation.pk, "manifest.json"]))
    assert response.status_code == 200
    body = b"".join(response.streaming_content)
    assert hashlib.sha256(body).hexdigest() == curation.files["manifest.json"]
    detail = client.get(reverse("annotation:curation_detail", args=[curation.pk])).content.decode()
    assert "missing on disk" not in detail
    assert client.get(reverse("annotation:curation_file", args=[curation.pk, "other.json"])).status_code == 404


def test_it_stores_the_files_under_media_root_when_configured(lmb, admin, settings, media) -> None:
    settings.STORAGES = {**settings.STORAGES,
                         "curations": {"BACKEND": "django.core.files.storage.FileSystemStorage"}}
    release, study = lmb
    curation, _ = curation_create(name="v202601-fs", release=release, studies=[study], rules=CurationRules(),
                                  actor=admin, history_url=history)
    path = media / "curations" / "v202601-fs" / "manifest.json"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == curation.files["manifest.json"]
    assert not StoredFile.objects.filter(name__startswith="curations/").exists()


def test_the_command_copies_the_files_to_an_output_directory(lmb, admin, tmp_path) -> None:
    release, study = lmb
    out = StringIO()
    call_command("curate_release", "v1-out", "--release", str(release.pk), "--studies", str(study.pk),
                 "--admin", "admin", "--json", "--output", str(tmp_path / "out"), stdout=out)
    report = json.loads(out.getvalue())
    assert report["stored_as"] == "curations/v1-out/" and report["directory"] == str(tmp_path / "out")
    for name, digest in report["files"].items():
        assert hashlib.sha256((tmp_path / "out" / name).read_bytes()).hexdigest() == digest
