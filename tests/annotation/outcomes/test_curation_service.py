"""Curating a release through the service, the command, the admin page and the API: files on disk
with the manifest and checksums, identical on a re-run, nothing written when refused."""

from __future__ import annotations

import hashlib
import json
from io import StringIO

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Curation, ReviewEvent
from annotation.outcomes.curation.service import curation_create, curations_root
from cases.exporters import CurationRules
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
    directory = curations_root() / "v202601-reviewed"
    assert sorted(p.name for p in directory.iterdir()) == ["SHA256SUMS", "manifest.json", "merged_data_rubric.json"]
    data = (directory / "merged_data_rubric.json").read_bytes()
    manifest = json.loads((directory / "manifest.json").read_bytes())
    assert manifest["files"][0]["sha256"] == hashlib.sha256(data).hexdigest() == curation.files["merged_data_rubric.json"]
    assert manifest["counts"]["criteria"]["dropped"] == 2
    item = study.items.get(revision__case__external_id="109002500")
    assert manifest["items"][0]["history"] == [f"/review/items/{item.pk}/history/"]
    sums = (directory / "SHA256SUMS").read_text().splitlines()
    assert sums == [f"{hashlib.sha256((directory / n).read_bytes()).hexdigest()}  {n}"
                    for n in ("manifest.json", "merged_data_rubric.json")]
    event = ReviewEvent.objects.get(study=study, kind=ReviewEvent.Kind.CURATED)
    assert event.data["manifest_sha256"] == curation.files["manifest.json"] and event.item_id is None

    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    again, created_again = curation_create(name="v202601-reviewed", release=release, studies=[study],
                                           rules=CurationRules(), actor=admin, history_url=history)
    assert (again.pk, created_again) == (curation.pk, False)
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
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
    assert not (curations_root() / "mixed").exists()
    assert list(curations_root().iterdir()) == [] if curations_root().exists() else True
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
    assert not (curations_root() / "v1-strict").exists()


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
