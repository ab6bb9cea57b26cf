"""Appendix G's two information views on the rating screen and in the API: phase 1 (auditor) shows the
source report and the captions; phase 2 (examinee) opens after phase 1 and shows neither, anywhere in
the page or the response body (searched for marker strings), but does show the correct answers."""

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.fields import item_fields
from annotation.models import Assignment, Rating
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import assignment_save_draft
from tests.liveclin.builders import (
    CAPTION_MARKER,
    REPORT_MARKER,
    import_liveclin,
    judge_block,
    liveclin_study,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment(admin, physician_a, physician_b) -> Assignment:
    import_liveclin(1, judge=[{"pmc": "PMC-QC-1", "judge": [judge_block(False, why="JUDGE-MARKER"), judge_block()]}])
    study = liveclin_study(admin, [physician_a, physician_b], show_prescreen=True)
    return assignment_claim_next(study=study, rater=physician_a)


def fields_of(assignment: Assignment, slug: str) -> list:
    return [f for f in item_fields(assignment.item) if f.task.slug == slug]


def factual_done(assignment: Assignment, rater) -> None:
    draft = {f.id: {"label": "yes", "comment": ""} for f in fields_of(assignment, "mcq-factual")}
    first = fields_of(assignment, "mcq-factual")[0]
    draft[first.id] = {"label": "no", "comment": "The dose is not in the report"}
    assignment_save_draft(assignment=assignment, rater=rater, draft=draft, seconds_spent=10)


def test_phase_1_shows_the_report_captions_and_answers_and_only_factual_fields(client, assignment, physician_a):
    client.force_login(physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert f"{REPORT_MARKER}-1" in page and f"{CAPTION_MARKER}-1" in page and f"{CAPTION_MARKER}-S1" in page
    assert 'data-phase="auditor"' in page
    for field in fields_of(assignment, "mcq-factual"):
        assert f'name="{field.id}"' in page
    for field in fields_of(assignment, "mcq-solvability"):
        assert f'name="{field.id}"' not in page
    assert "JUDGE-MARKER" in page  # the study shows the pre-screen, next to the question


def test_phase_2_waits_for_phase_1(client, assignment, physician_a):
    client.force_login(physician_a)
    response = client.get(reverse("annotation:rate", args=[assignment.pk]) + "?phase=examinee")
    assert response.status_code == 302 and response["Location"].endswith(f"/review/assignments/{assignment.pk}/")
    api = APIClient()
    api.force_authenticate(physician_a)
    url = reverse("annotation_api:assignment_detail", args=[assignment.pk])
    assert api.get(url, {"phase": "examinee"}).status_code == 409


def test_phase_2_page_has_no_report_and_no_caption_but_the_answers(client, assignment, physician_a):
    factual_done(assignment, physician_a)
    client.force_login(physician_a)
    response = client.get(reverse("annotation:rate", args=[assignment.pk]))  # phase 1 done: phase 2 is next
    page = response.content.decode()
    assert response.status_code == 200 and 'data-phase="examinee"' in page
    assert REPORT_MARKER not in page and CAPTION_MARKER not in page
    assert "JUDGE-MARKER" not in page  # the factual explanation belongs to phase 1
    assert page.count("correct answer") >= 2
    for field in fields_of(assignment, "mcq-solvability"):
        assert f'name="{field.id}"' in page
    for field in fields_of(assignment, "mcq-factual"):
        assert f'name="{field.id}"' not in page


def test_phase_2_api_body_has_no_report_and_no_caption(assignment, physician_a):
    api = APIClient()
    api.force_authenticate(physician_a)
    url = reverse("annotation_api:assignment_detail", args=[assignment.pk])
    auditor = api.get(url)
    assert auditor.status_code == 200 and auditor.json()["phase"]["current"] == "auditor"
    body = json.dumps(auditor.json())
    assert f"{REPORT_MARKER}-1" in body and f"{CAPTION_MARKER}-1" in body
    factual_done(assignment, physician_a)
    examinee = api.get(url, {"phase": "examinee"})
    assert examinee.status_code == 200
    text = examinee.content.decode()
    assert REPORT_MARKER not in text and CAPTION_MARKER not in text
    data = examinee.json()
    assert data["phase"] == {"current": "examinee", "phases": ["auditor", "examinee"]}
    assert {f["task"] for f in data["fields"]} == {"mcq-solvability"}
    assert [m["correct_answer"] for m in data["item"]["question_set"]["mcqs"]] == ["B", "B"]


def test_submitting_from_phase_2_keeps_the_phase_1_verdicts(client, assignment, physician_a):
    factual_done(assignment, physician_a)
    client.force_login(physician_a)
    form = {"seconds_spent": "30", "liveclin_phase": "examinee"}  # as phase 2's form posts it
    for field in fields_of(assignment, "mcq-solvability"):
        form[field.id] = "yes"
        form[f"comment:{field.id}"] = ""
    response = client.post(reverse("annotation:rate", args=[assignment.pk]), form)
    assert response.status_code in (200, 302)
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SUBMITTED
    labels = {(r.task.slug, r.mcq.order): (r.label, r.comment) for r in Rating.objects.filter(assignment=assignment)}
    assert labels == {
        ("mcq-factual", 1): ("no", "The dose is not in the report"), ("mcq-factual", 2): ("yes", ""),
        ("mcq-solvability", 1): ("yes", ""), ("mcq-solvability", 2): ("yes", ""),
    }


def test_a_solvability_only_study_shows_the_answers_without_report_or_captions(admin, physician_a, physician_b):
    import_liveclin(1, label="solv")
    study = liveclin_study(admin, [physician_a, physician_b], tasks=("mcq-solvability",), label="solv")
    api = APIClient()
    api.force_authenticate(physician_a)
    response = api.post(reverse("annotation_api:claim_next", args=[study.pk]))
    text = response.content.decode()
    assert REPORT_MARKER not in text and CAPTION_MARKER not in text
    assert [m["correct_answer"] for m in response.json()["item"]["question_set"]["mcqs"]] == ["B", "B"]


def test_the_prescreen_is_shown_only_where_the_study_says_so(client, admin, physician_a, physician_b):
    import_liveclin(1, judge=[{"pmc": "PMC-QC-1", "judge": [judge_block(False, why="JUDGE-MARKER"), judge_block()]}])
    study = liveclin_study(admin, [physician_a, physician_b], show_prescreen=False)
    assignment = assignment_claim_next(study=study, rater=physician_a)
    client.force_login(physician_a)
    assert "JUDGE-MARKER" not in client.get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    api = APIClient()
    api.force_authenticate(physician_a)
    body = api.get(reverse("annotation_api:assignment_detail", args=[assignment.pk]))
    assert "JUDGE-MARKER" not in body.content.decode() and "prescreen" not in body.json()


def test_the_api_puts_the_prescreen_beside_its_own_check(assignment, physician_a):
    api = APIClient()
    api.force_authenticate(physician_a)
    body = api.get(reverse("annotation_api:assignment_detail", args=[assignment.pk])).json()
    first = fields_of(assignment, "mcq-factual")[0]
    assert body["prescreen"][first.id] == {"verdict": "no", "explanation": "JUDGE-MARKER"}


def test_a_phase_2_submit_before_phase_1_is_refused_on_phase_1(client, assignment, physician_a):
    client.force_login(physician_a)
    form = {"seconds_spent": "5", "liveclin_phase": "examinee"}
    for field in fields_of(assignment, "mcq-solvability"):
        form[field.id] = "yes"
    response = client.post(reverse("annotation:rate", args=[assignment.pk]), form)
    assert response.status_code == 400 and 'data-phase="auditor"' in response.content.decode()
    assert not Rating.objects.exists()
