"""Issue 9, finding 2: in a study holding both LiveClin checks (factual validation and solvability,
as the demo study does), the solvability fields are judged on what an examinee sees, so neither the
API nor the rating page may send the answer key, image captions or the source report with them.

Until issue 10 gives the two checks separate screens, an item whose fields mix a privileged and an
examinee-view task is shown as the examinee sees it (fail closed)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation import services
from annotation.models import StudyMember
from cases.models import MCQ, QuestionSet
from tests.conftest import login
from tests.factories import make_case, make_release

pytestmark = pytest.mark.django_db


def question_set() -> QuestionSet:
    release = make_release(dataset_name="LiveClin", label="both-checks", fmt="liveclin")
    revision = make_case(release=release, narrative="SOURCE REPORT: biopsy showed sarcoidosis.", criteria=[])
    qs = QuestionSet.objects.create(
        revision=revision, scenario="A 34-year-old woman presents with cough.",
        scenario_images=[{"url": "https://example.org/cxr.png", "caption": "CAPTION-SCENARIO: hilar nodes"}],
    )
    MCQ.objects.create(
        question_set=qs, order=1, stage="Diagnosis", question="What is the most likely diagnosis?",
        options={"A": "Sarcoidosis", "B": "Tuberculosis"}, correct_answer="A",
        image_details=[{"url": "https://example.org/ct.png", "caption": "CAPTION-MCQ: granulomas"}],
    )
    return qs


@pytest.fixture
def both_checks(admin, physician_a):
    question_set()
    study = services.study_create(
        name="LiveClin both checks", created_by=admin, task_slugs=["mcq-factual", "mcq-solvability"],
        selection=services.ItemSelection(kind="question_set", release_label="both-checks"), seed=3,
    )
    services.study_add_members(study=study, users=[physician_a], role=StudyMember.Role.RATER, actor=admin)
    return services.study_start(study=study, actor=admin)


def test_the_api_sends_no_answer_key_caption_or_source_beside_solvability_fields(both_checks, physician_a) -> None:
    api = APIClient()
    api.force_authenticate(physician_a)
    body = api.post(reverse("annotation_api:claim_next", kwargs={"study_pk": both_checks.pk})).json()
    assert {f["task"] for f in body["fields"]} == {"mcq-factual", "mcq-solvability"}
    text = json.dumps(body)
    assert "SOURCE REPORT" not in text
    assert "CAPTION-SCENARIO" not in text and "CAPTION-MCQ" not in text
    assert [m["correct_answer"] for m in body["item"]["question_set"]["mcqs"]] == [None]
    again = api.get(reverse("annotation_api:assignment_detail", kwargs={"pk": body["assignment"]["id"]})).json()
    assert "SOURCE REPORT" not in json.dumps(again) and '"correct_answer": "A"' not in json.dumps(again)


def test_the_rating_page_shows_no_answer_key_caption_or_source(both_checks, physician_a, client) -> None:
    assignment = services.assignment_claim_next(study=both_checks, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "What is the most likely diagnosis?" in page and "Tuberculosis" in page
    assert "SOURCE REPORT" not in page
    assert "CAPTION-SCENARIO" not in page and "CAPTION-MCQ" not in page
    assert "correct answer" not in page and 'class="option correct"' not in page
