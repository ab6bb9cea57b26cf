"""The quality-check pages, API and command: who may read them, and what they answer."""

import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from tests.liveclin.builders import import_liveclin, judge_block

pytestmark = pytest.mark.django_db


@pytest.fixture
def release(db):
    return import_liveclin(2, judge=[
        {"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]},
        {"pmc": "PMC-QC-2", "judge": [judge_block(False), judge_block()]},
    ])


def test_the_release_page_lists_every_set_with_its_prescreen_and_outcome(client, researcher, release):
    client.force_login(researcher)
    page = client.get(reverse("liveclin:release_quality", args=[release.pk])).content.decode()
    assert "PMC-QC-1" in page and "PMC-QC-2" in page
    assert "failed the Judge pre-screen; not reviewed by physicians" in page
    rejected = client.get(reverse("liveclin:release_quality", args=[release.pk]), {"outcome": "rejected"})
    assert "PMC-QC-2" in rejected.content.decode() and "PMC-QC-1</td>" not in rejected.content.decode()


def test_the_api_answers_the_funnel_and_the_sets(researcher, release):
    api = APIClient()
    api.force_authenticate(researcher)
    body = api.get(reverse("liveclin_api:release_quality", args=[release.pk])).json()
    assert body["funnel"] == {"generated": 2, "screened": 2, "passed_prescreen": 1, "reviewed": 0,
                              "validated": 0, "rejected": 1, "pending": 1}
    assert [(s["key"], s["prescreen"], s["outcome"]) for s in body["sets"]] == [
        ("PMC-QC-1", "passed", "pending"), ("PMC-QC-2", "flagged", "rejected"),
    ]
    assert body["sets"][1]["mcqs"][0]["judge"] == {"factual": "no", "solvability": "yes"}
    export = api.get(reverse("liveclin_api:release_validated_export", args=[release.pk]))
    assert export.status_code == 200 and export.content == b""  # nothing validated yet


def test_physicians_may_not_read_it(client, physician_a, release):
    client.force_login(physician_a)
    assert client.get(reverse("liveclin:release_quality", args=[release.pk])).status_code in (403, 404)
    api = APIClient()
    api.force_authenticate(physician_a)
    assert api.get(reverse("liveclin_api:release_quality", args=[release.pk])).status_code == 403


def test_the_command_prints_the_report(release, capsysbinary):
    call_command("liveclin_validated", "--release", str(release.pk), "--report")
    report = json.loads(capsysbinary.readouterr().out)
    assert report["funnel"]["passed_prescreen"] == 1
