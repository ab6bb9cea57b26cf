"""Every page of every persona, rendered with the demo data (`load_demo`), reads in one language:
in Chinese no English interface word outside text tagged `lang="en"`, in English no Chinese
outside text tagged `lang="zh"` (tests/i18n/page_text.py says what counts).

The pages (issue 23): reports, translation consistency, team, data, releases, cases, imports (a
dry run and a refused file), grader configurations and jobs, sign-in, invitation, lock-out,
400 / 403 / 404; and the review workflows: the inspection queue (filtered too) and item pages
(an item awaiting inspection, one returned to its annotator, one resolved by final labels, a
LiveClin question set with the Judge's verdicts and both phases), item histories, the studies list,
every study page (as an admin and as a researcher) and its calibration page, curations, and
LiveClin's quality-check pages. `_review_state` adds the work the demo leaves out. The rating
screens too (`_rating_pages`): a physician's queue, a case item, a response item with criteria, a
Likert item, a pair, a LiveClin question set in both phases, and revisits of submitted work; an
inspection page is checked whole, the item's content (`details.item-details`) included.
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

from annotation.fields import item_fields
from annotation.inspection.services import inspection_adjudicate, inspection_return
from annotation.models import Assignment, Item, Study
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from cases.models import Case, Release
from graders import services as grader_services
from graders.models import GraderConfig, GraderDecision, GradingJob, Verdict
from liveclin.phases import AUDITOR, EXAMINEE, phase_of
from tests.annotation.builders import labels_for
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


def _review_state(admin: object) -> dict[str, int]:
    """What the demo leaves out of the review pages: a LiveClin question set both raters answered
    (its inspection shows the MCQ evidence, the Judge's verdicts and the two phases), an item
    returned to an annotator (the queue's second list, "Returned" in its history), an item resolved
    by final labels, and a curation of the demo release."""
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["physician1", "physician2",
                                                                                    "inspector1"])}
    liveclin = Study.objects.get(name="Demo: LiveClin question sets")
    for rater, verdict in (("physician1", "yes"), ("physician2", "no")):
        assignment = assignment_claim_next(study=liveclin, rater=users[rater])
        labels = {f.id: {"label": verdict, "comment": "" if verdict == "yes" else "The dose is not in the report."}
                  for f in item_fields(assignment.item)}
        rating_submit(assignment=assignment, rater=users[rater], labels=labels, seconds_spent=69)
    liveclin_item = Item.objects.get(study=liveclin, status=Item.Status.INSPECTION)
    livemedbench = Study.objects.get(name="Demo: LiveMedBench human validation")
    # How many demo items wait for inspection depends on the database's ids (an item's inspection
    # sample is drawn from its key, which holds the case id; PostgreSQL's sequences run on across
    # tests): top up with items the two physicians disagree on, so every run sees three.
    while Item.objects.filter(study=livemedbench, status=Item.Status.INSPECTION).count() < 3:
        claimed = [assignment_claim_next(study=livemedbench, rater=users[name]) for name in ("physician1", "physician2")]
        assert None not in claimed and claimed[0].item_id == claimed[1].item_id, "the demo has no item left to top up"
        for assignment, pick in zip(claimed, ("first", "last"), strict=True):
            rating_submit(assignment=assignment, rater=assignment.rater, labels=labels_for(assignment, pick=pick),
                          seconds_spent=60)
    waiting = list(Item.objects.filter(study=livemedbench, status=Item.Status.INSPECTION).order_by("pk"))
    returned, resolved, pending = waiting[0], waiting[1], waiting[2]
    submitted = Assignment.objects.filter(item=returned, state__in=Assignment.RATED_STATES).order_by("pk").first()
    fields = item_fields(returned)
    inspection_return(item=returned, inspector=users["inspector1"], assignment=submitted,
                      comment="Please read the criterion again.", fields=[fields[0].id])
    inspection_adjudicate(item=resolved, inspector=users["inspector1"], reason="Guideline 4.2.",
                          labels={f.id: f.values[0] for f in item_fields(resolved)})
    client = Client()
    client.force_login(admin)
    release = Release.objects.get(label="demo-2025", format="livemedbench")
    created = client.post("/review/curations/", {"name": "demo-reviewed", "release": release.pk,
                                                 "studies": [resolved.study_id], "review_block": "on"})
    assert created.status_code == 302, created.content.decode()[:2000]
    return {"liveclin": liveclin_item.pk, "returned": returned.pk, "resolved": resolved.pk, "pending": pending.pk,
            "curation": int(created["Location"].rstrip("/").split("/")[-1])}


def _review_pages(admin: object) -> Iterator[Page]:
    """The inspection queue and item pages, histories, studies, calibration, curations and LiveClin's
    quality-check pages (issue 23, phase 2)."""
    state = _review_state(admin)
    studies = list(Study.objects.values_list("pk", flat=True))
    for user in ("inspector1", "admin1"):
        yield Page(user, "/review/inspection/")
        yield Page(user, "/review/inspection/?reason=disagreement&sort=differ")
    for key in ("pending", "returned", "resolved"):
        yield Page("inspector1", f"/review/inspection/items/{state[key]}/")
        yield Page("admin1", f"/review/items/{state[key]}/history/")
    yield Page("admin1", f"/review/inspection/items/{state['liveclin']}/")
    yield Page("admin1", f"/review/items/{state['liveclin']}/history/")
    yield Page("admin1", "/review/studies/")
    for pk in studies:
        yield Page("admin1", f"/review/studies/{pk}/")
        yield Page("admin1", f"/review/studies/{pk}/calibration/")
        yield Page("researcher1", f"/review/studies/{pk}/")
    yield Page("admin1", "/review/curations/")
    yield Page("admin1", f"/review/curations/{state['curation']}/")
    for pk in Release.objects.filter(dataset__name="LiveClin").values_list("pk", flat=True):
        yield Page("researcher1", f"/reports/release/{pk}/quality/")
        yield Page("admin1", f"/reports/release/{pk}/quality/")
    yield from _rating_pages()


def _rating_pages() -> Iterator[Page]:
    """The rating screens as physician1 meets them: the queue, a case item, a response item with
    criteria (grader reliability), a Likert item, a pair, a LiveClin question set in both phases, and
    revisits of submitted work (one still editable, one read-only because inspection has begun)."""
    rater = get_user_model().objects.get(username="physician1")
    yield Page("physician1", "/review/")
    revisits = list(Assignment.objects.filter(rater=rater, state=Assignment.State.SUBMITTED).order_by("pk"))
    editable = next(a for a in revisits if a.item.status != Item.Status.INSPECTION)
    in_inspection = next(a for a in revisits if a.item.status == Item.Status.INSPECTION)
    yield Page("physician1", f"/review/assignments/{editable.pk}/")
    yield Page("physician1", f"/review/assignments/{in_inspection.pk}/")
    for name in ("Demo: LiveMedBench human validation", "Demo: grader reliability", "Demo: MEDIC Likert axes",
                 "Demo: pairwise preference", "Demo: LiveClin question sets"):
        assignment = assignment_claim_next(study=Study.objects.get(name=name), rater=rater)
        assert assignment is not None, name
        yield Page("physician1", f"/review/assignments/{assignment.pk}/")
    fields = [f for f in item_fields(assignment.item) if phase_of(f) == AUDITOR]
    assignment_save_draft(assignment=assignment, rater=rater, seconds_spent=5,
                          draft={f.id: {"label": f.values[0], "comment": ""} for f in fields})
    yield Page("physician1", f"/review/assignments/{assignment.pk}/?phase={EXAMINEE}")


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
    yield from _review_pages(admin)


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


def test_it_shows_no_english_interface_word_on_any_chinese_page(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = str(tmp_path)  # the curation's files
    assert _leaks("zh-hans") == {}


def test_it_shows_no_chinese_interface_text_on_any_english_page(settings, tmp_path) -> None:
    settings.MEDIA_ROOT = str(tmp_path)
    assert _leaks("en") == {}


def test_the_checker_finds_untagged_english_and_accepts_tagged_names() -> None:
    page = ('<html lang="zh-hans"><head><title>报告：Demo study</title></head><body>'
            '<h1>报告：<span lang="en">Demo study</span></h1><p>状态 Running</p><p>Gwet\'s AC1、CSV</p>'
            '<img alt="Forest plot"><code>docs/formats.md</code><p lang="en">Case text</p></body></html>')
    assert interface_leaks(page, "zh-hans") == ["text: Running  ← 状态 Running", "alt: Forest plot  ← Forest plot"]
    assert interface_leaks('<html lang="en"><p>Status 已完成</p><p lang="zh">病例</p></html>', "en") == [
        "text: Status 已完成"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_it_shows_the_summary_to_confirm_in_one_language(language: str) -> None:
    """The inspection's confirmation page (a POST answers it): the final labels to store and a return."""
    call_command("load_demo", stdout=io.StringIO())
    item = Item.objects.filter(study__name="Demo: LiveMedBench human validation",
                               status=Item.Status.INSPECTION).order_by("pk").first()
    client = Client(headers={"accept-language": language})
    client.force_login(get_user_model().objects.get(username="inspector1"))
    finals = {f"final:{f.id}": f.values[0] for f in item_fields(item)}
    assignment = Assignment.objects.filter(item=item, state__in=Assignment.RATED_STATES).order_by("pk").first()
    for data in ({"action": "adjudicate", "reason": "Guideline 4.2.", **finals},
                 {"action": "return", "assignment": assignment.pk, "comment": "请再看一下评分标准。",
                  "fields": [item_fields(item)[0].id]}):
        response = client.post(f"/review/inspection/items/{item.pk}/", data)
        assert response.status_code == 200 and "inspection/confirm.html" in [t.name for t in response.templates]
        assert interface_leaks(response.content.decode(), language) == [], data["action"]
