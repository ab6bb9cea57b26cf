"""Every page of every persona, rendered with the demo data (`load_demo`), reads in one language:
in Chinese no English interface word outside text tagged `lang="en"`, in English no Chinese
outside text tagged `lang="zh"` (tests/i18n/page_text.py says what counts).

PAGES is phase 1 of issue 23: every page outside the review workflows. The review pages
(docs/review-pages.md) and LiveClin's quality-check page join the list once their Python side
is translated (see docs/i18n.md, "What is translated where").
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings

from annotation.models import Study
from cases.models import Case, Release
from graders import services as grader_services
from graders.models import GraderConfig, GraderDecision, GradingJob, Verdict
from tests.i18n.page_text import interface_leaks

pytestmark = pytest.mark.django_db
DEMO = Path(__file__).resolve().parents[2] / "demo" / "data"
LANGUAGES = ["zh-hans", "en"]


@dataclass(frozen=True)
class Page:
    user: str  # a demo username, or "" for a visitor who is not signed in
    path: str
    status: int = 200


def _demo_jobs(admin: object) -> tuple[int, int, int]:
    """An import waiting for confirmation, a refused import and a grading job with a failed decision
    (the demo data has none): their pages have reports, error tables and progress to read."""
    client = Client()
    client.force_login(admin)
    with (DEMO / "generic_cases.json").open("rb") as upload:
        checked = client.post("/data/import/", {"format": "generic", "file": upload, "dataset": "ClinConsensus",
                                                "release_label": "rendered-pages"})
    refused = client.post("/data/import/", {"format": "generic", "dataset": "ClinConsensus",
                                            "file": io.BytesIO(b'[{"id": 1}]')}, format="multipart")
    config = GraderConfig.objects.get(kind="rubric-grader")
    release = Release.objects.get(label="demo-2025", format="livemedbench-responses", model_name="demo-model-alpha")
    with pytest.MonkeyPatch.context() as patch:  # queued, never run: no endpoint is called
        patch.setattr(grader_services, "_enqueue_runners", lambda *args: None)
        job = grader_services.grading_job_create(config=config, selection={"release": release.pk}, created_by=admin)
    response = release.responses.first()
    GraderDecision.objects.create(run=job.run, response=response, criterion=response.revision.criteria.first(),
                                  verdict=Verdict.FAILED, attempts=5, error="HTTP 500: upstream error",
                                  raw_output="")
    return int(checked["Location"].rstrip("/").split("/")[-1]), int(
        refused["Location"].rstrip("/").split("/")[-1]), job.pk


def _pages() -> Iterator[Page]:
    studies = list(Study.objects.values_list("pk", flat=True))
    releases = list(Release.objects.values_list("pk", flat=True))
    admin = get_user_model().objects.get(username="admin1")
    checked, refused, job = _demo_jobs(admin)
    yield Page("", "/accounts/login/")
    yield Page("", "/accounts/invitation/MQ/expired-token/")
    yield Page("physician1", "/no-such-page/", 404)
    yield Page("physician1", "/data/import/", 403)
    yield Page("physician1", "/reports/study/1/", 403)
    for user in ("researcher1", "admin1"):
        yield Page(user, "/reports/")
        for pk in studies:
            yield Page(user, f"/reports/study/{pk}/")
            yield Page(user, f"/reports/study/{pk}/translation-consistency/")
            yield Page(user, f"/reports/study/{pk}/team/")
        for pk in releases:
            yield Page(user, f"/reports/release/{pk}/")
        yield Page(user, f"/reports/study/{studies[-1]}/?stratify_by=language&group_by=rank")
        yield Page(user, f"/reports/study/{studies[-1]}/?month=2025-13", 400)
        yield Page(user, "/data/")
        yield Page(user, "/graders/")
        yield Page(user, "/graders/jobs/new/")
        yield Page(user, f"/graders/jobs/{job}/")
    for pk in releases:
        yield Page("admin1", f"/data/releases/{pk}/")
    for pk in Case.objects.values_list("pk", flat=True):
        yield Page("admin1", f"/data/cases/{pk}/")
    yield Page("admin1", "/data/import/")
    yield Page("admin1", f"/data/import/{checked}/")
    yield Page("admin1", f"/data/import/{refused}/")
    yield Page("admin1", "/graders/configs/")
    yield Page("admin1", "/graders/configs/new/")
    for pk in GraderConfig.objects.values_list("pk", flat=True):
        yield Page("admin1", f"/graders/configs/{pk}/")
    assert GradingJob.objects.filter(pk=job).exists()
    yield from _label_pages()


def _label_pages() -> Iterator[Page]:
    """LiveClin's label tasks and consolidations (issue 25), as each persona meets them."""
    from liveclin.models import Consolidation, LabelTask

    yield Page("physician1", "/review/labels/")
    for task in LabelTask.objects.order_by("pk"):
        yield Page("physician1", f"/review/labels/units/{task.units.order_by('order').first().pk}/")
        yield Page("inspector1", f"/review/labels/{task.pk}/inspection/")
        yield Page("researcher1", f"/review/labels/{task.pk}/report/")
    yield Page("researcher1", "/review/consolidations/")
    for consolidation in Consolidation.objects.order_by("pk"):
        yield Page("physician1", f"/review/consolidations/{consolidation.pk}/")
        yield Page("researcher1", f"/review/consolidations/{consolidation.pk}/report/")
    releases = Release.objects.filter(dataset__name="LiveClin", format="liveclin").values_list("pk", flat=True)
    yield Page("researcher1", "/reports/pipelines/?release=" + "&release=".join(map(str, releases)), 400)


def _leaks(language: str) -> dict[str, list[str]]:
    call_command("load_demo", stdout=io.StringIO())
    users = {u.username: u for u in get_user_model().objects.all()}
    found: dict[str, list[str]] = {}
    clients: dict[str, Client] = {}
    for page in _pages():
        client = clients.get(page.user)
        if client is None:
            client = clients[page.user] = Client(headers={"accept-language": language})
            if page.user:
                client.force_login(users[page.user])
        response = client.get(page.path)
        where = f"{page.user or 'visitor'} {page.path}"
        assert response.status_code == page.status, where
        assert response["Content-Language"] == language, where
        if leaks := interface_leaks(response.content.decode(), language):
            found[where] = leaks
    locked = _locked_out_page(language)
    if leaks := interface_leaks(locked, language):
        found["visitor locked out"] = leaks
    return found


def _locked_out_page(language: str) -> str:
    """The page after too many wrong passwords (django-axes renders registration/locked_out.html)."""
    client = Client(headers={"accept-language": language})
    with override_settings(AXES_FAILURE_LIMIT=1):
        for _attempt in range(2):
            response = client.post("/accounts/login/", {"username": "physician1", "password": "wrong"})
    assert response.status_code == 429 and "registration/locked_out.html" in [t.name for t in response.templates]
    return response.content.decode()


def test_it_shows_no_english_interface_word_on_any_chinese_page() -> None:
    assert _leaks("zh-hans") == {}


def test_it_shows_no_chinese_interface_text_on_any_english_page() -> None:
    assert _leaks("en") == {}


def test_the_checker_finds_untagged_english_and_accepts_tagged_names() -> None:
    page = ('<html lang="zh-hans"><head><title>报告：Demo study</title></head><body>'
            '<h1>报告：<span lang="en">Demo study</span></h1><p>状态 Running</p><p>Gwet\'s AC1、CSV</p>'
            '<img alt="Forest plot"><code>docs/formats.md</code><p lang="en">Case text</p></body></html>')
    assert interface_leaks(page, "zh-hans") == ["text: Running  ← 状态 Running", "alt: Forest plot  ← Forest plot"]
    assert interface_leaks('<html lang="en"><p>Status 已完成</p><p lang="zh">病例</p></html>', "en") == [
        "text: Status 已完成"]
