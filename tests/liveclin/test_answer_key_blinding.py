"""Issue 9, finding 2: in a study holding both LiveClin checks (factual validation and solvability,
as the demo study does), the solvability fields are judged on what an examinee sees, so neither the
API nor the rating page may send the image captions or the source report with them (they used to,
with the whole answer key, because visibility was "any task privileged" over all fields).

Issue 10 shows the two checks as separate phases; wherever both tasks' fields meet in one view, the
item is shown as the examinee sees it (`selectors.item_content_for_rater`: fail closed)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
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
    study = study_create(
        name="LiveClin both checks", created_by=admin, task_slugs=["mcq-factual", "mcq-solvability"],
        selection=ItemSelection(kind="question_set", release_label="both-checks"), seed=3,
    )
    study_add_members(study=study, users=[physician_a], role=StudyMember.Role.RATER, actor=admin)
    return study_start(study=study, actor=admin)


def assert_examinee_view(text: str) -> None:
    # Which answers the examinee view shows (the judged question's and earlier steps') is issue 10's
    # LiveClin design; the source report and the image captions are never beside solvability fields.
    assert "SOURCE REPORT" not in text
    assert "CAPTION-SCENARIO" not in text and "CAPTION-MCQ" not in text


def solvability_body(api: APIClient, study) -> dict:
    """The rater's item until its solvability fields are shown: issue 10 shows LiveClin in phases
    (factual validation first, then solvability), so the factual fields get a draft verdict first.
    Every body on the way that holds a solvability field must already be the examinee view."""
    body = api.post(reverse("annotation_api:claim_next", kwargs={"study_pk": study.pk})).json()
    detail = reverse("annotation_api:assignment_detail", kwargs={"pk": body["assignment"]["id"]})
    for _ in range(3):
        if any(f["task"] == "mcq-solvability" for f in body["fields"]):
            return body
        draft = {f["id"]: {"label": f["categories"][0]["value"], "comment": "checked"} for f in body["fields"]}
        saved = api.put(reverse("annotation_api:draft", kwargs={"pk": body["assignment"]["id"]}),
                        {"draft": draft, "seconds_spent": 5}, format="json")
        assert saved.status_code == 200, saved.content
        body = api.get(detail).json()
    raise AssertionError("the solvability fields were never shown")


def test_the_api_sends_no_answer_key_caption_or_source_beside_solvability_fields(both_checks, physician_a) -> None:
    api = APIClient()
    api.force_authenticate(physician_a)
    body = solvability_body(api, both_checks)
    assert_examinee_view(json.dumps(body))


def test_the_rating_page_shows_no_answer_key_caption_or_source_beside_solvability(
    both_checks, physician_a, client
) -> None:
    api = APIClient()
    api.force_authenticate(physician_a)
    body = solvability_body(api, both_checks)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[body["assignment"]["id"]])).content.decode()
    assert "What is the most likely diagnosis?" in page and "Tuberculosis" in page
    assert_examinee_view(page)


def test_fields_of_both_checks_together_get_the_examinee_view(both_checks, physician_a) -> None:
    from annotation.fields import item_fields
    from annotation.rating.selectors import item_content_for_rater

    assignment = assignment_claim_next(study=both_checks, rater=physician_a)
    fields = item_fields(assignment.item)
    assert {f.task.slug for f in fields} == {"mcq-factual", "mcq-solvability"}
    content = item_content_for_rater(assignment.item, fields)
    assert not content.privileged and content.narrative == ""
    assert [m.correct_answer for m in content.mcqs()] == [None]
    assert all("caption" not in d for d in content.scenario_images)
    factual_only = item_content_for_rater(assignment.item, [f for f in fields if f.task.slug == "mcq-factual"])
    assert factual_only.privileged and "SOURCE REPORT" in factual_only.narrative
