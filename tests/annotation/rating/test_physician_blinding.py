"""What a physician may see of an item (pages and API alike): the content for each kind of item, the
LiveClin privileged source only for factual validation, pairs in their own order, never another
rater's labels, grader decisions or model names; the safe Markdown and URL filters."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from annotation.models import StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from cases.models import MCQ, QuestionSet
from medreview.text.safe_html import http_url
from medreview.text.safe_html import markdown_to_safe_html as markdown_safe
from tests.annotation.builders import (
    api_client_for,
    api_url,
    claim_and_submit,
    labels_for,
    make_running_study,
    running_study,
)
from tests.conftest import login
from tests.factories import make_case, make_grader_decisions, make_question_set, make_release, make_response

pytestmark = pytest.mark.django_db



@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(
        admin, [physician_a, physician_b], inspectors=[inspector], cases=2,
        guidelines="## Rating rules\n\n| Score | Meaning |\n|---|---|\n| 2 | Perfect |",
    )


def test_it_never_shows_a_physician_the_other_raters_labels(client, study, physician_a, physician_b):
    secret = "ZEBRA-COMMENT-OF-B"
    theirs = claim_and_submit(study, physician_b, pick="last", comment=secret, seconds_spent=42)
    mine = assignment_claim_next(study=study, rater=physician_a)
    assert mine.item_id == theirs.item_id  # items other raters started come first
    login(client, physician_a)
    pages = [
        client.get(reverse("annotation:physician_dashboard")),
        client.get(reverse("annotation:rate", args=[mine.pk])),
    ]
    for response in pages:
        page = response.content.decode()
        assert secret not in page
        assert "checked" not in page  # nothing preselected from anyone else's labels
        assert "physician_b" not in page


def _study(admin, raters, *, kind: str, tasks: list[str], release_label: str):
    study = study_create(
        name=f"{kind} study", created_by=admin, task_slugs=tasks,
        selection=ItemSelection(kind=kind, release_label=release_label), seed=3,
    )
    study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
    study_start(study=study, actor=admin)
    return study


def _question_set(release_label: str) -> QuestionSet:
    release = make_release(dataset_name="LiveClin", label=release_label, fmt="liveclin")
    revision = make_case(release=release, narrative="SOURCE REPORT: biopsy showed sarcoidosis.", criteria=[])
    question_set = QuestionSet.objects.create(
        revision=revision,
        # Issue 10: the privileged report is the imported case report, never the scenario / narrative.
        case_report="SOURCE REPORT: biopsy showed sarcoidosis.",
        captions=[{"mcq": 0, "image": 1, "caption": "CAPTION: bilateral hilar nodes"}],
        scenario="A 34-year-old woman presents with cough.",
        scenario_tables=[{"caption": "Labs", "markdown": "| Test | Value |\n|---|---|\n| ACE | 98 U/L |"}],
        scenario_images=[
            {"url": "https://example.org/cxr.png", "caption": "CAPTION: bilateral hilar nodes"},
            {"url": "javascript:alert(1)", "caption": "bad"},
        ],
    )
    MCQ.objects.create(
        question_set=question_set, order=1, stage="Diagnosis", question="What is the most likely diagnosis?",
        options={"A": "Sarcoidosis", "B": "Tuberculosis", "C": "Lymphoma"}, correct_answer="A",
    )
    return question_set


def test_it_shows_the_privileged_source_for_factual_validation(client, admin, physician_a):
    _question_set("qs-factual")
    study = _study(admin, [physician_a], kind="question_set", tasks=["mcq-factual"], release_label="qs-factual")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "A 34-year-old woman presents with cough." in page
    assert "What is the most likely diagnosis?" in page
    assert "SOURCE REPORT" in page
    assert "CAPTION: bilateral hilar nodes" in page
    assert 'class="option correct"' in page
    assert "<td>98 U/L</td>" in page  # the Markdown table rendered as a table
    assert 'src="https://example.org/cxr.png"' in page
    assert "javascript:alert(1)" not in page


def test_it_shows_only_what_an_examinee_sees_for_solvability(client, admin, physician_a):
    _question_set("qs-solv")
    study = _study(admin, [physician_a], kind="question_set", tasks=["mcq-solvability"], release_label="qs-solv")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "What is the most likely diagnosis?" in page and "Tuberculosis" in page
    assert "SOURCE REPORT" not in page
    assert "CAPTION: bilateral hilar nodes" not in page
    # Appendix G (issue 10): the examinee sees the correct answer of the question being judged.
    assert 'class="option correct"' in page
    assert 'src="https://example.org/cxr.png"' in page  # images without captions


def test_it_shows_the_pair_in_the_order_recorded_for_the_rater(client, admin, physician_a):
    release = make_release(label="pairs")
    revision = make_case(release=release)
    make_response(revision, model_name="secret-model-one", text="FIRST-MODEL-TEXT")
    make_response(revision, model_name="secret-model-two", text="SECOND-MODEL-TEXT")
    study = _study(admin, [physician_a], kind="pair", tasks=["pairwise-preference"], release_label="pairs")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    first, second = page.index("FIRST-MODEL-TEXT"), page.index("SECOND-MODEL-TEXT")
    assert (first < second) == (assignment.pair_order == "ab")
    # Blinded: no model names (distinctive ones, so random CSRF tokens cannot match by chance).
    assert "secret-model-one" not in page and "secret-model-two" not in page
    assert 'data-shortcut="a"' in page and 'data-shortcut="t"' in page


def test_it_shows_the_response_but_never_the_grader_decisions(client, admin, physician_a):
    from tests.factories import make_grader_decisions

    release = make_release(label="grader")
    revision = make_case(release=release)
    response = make_response(revision, text="Drink fluids and rest at home.")
    run = make_grader_decisions(response, ["met", "not_met", "met"])
    run.decisions.update(reasoning="GRADER-REASONING-SECRET")
    study = _study(admin, [physician_a], kind="response", tasks=["grader-reliability"], release_label="grader")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "Drink fluids and rest at home." in page
    assert "GRADER-REASONING-SECRET" not in page
    assert " checked" not in page
    for criterion in revision.criteria.all():
        assert criterion.text in page


def test_it_renders_conversation_turns(client, admin, physician_a):
    release = make_release(dataset_name="HealthBench", label="hb")
    revision = make_case(release=release, narrative="", core_request="")
    revision.conversation = [
        {"role": "user", "content": "My child has a fever <img src=x onerror=alert(1)>"},
        {"role": "assistant", "content": "How old is your child?"},
    ]
    revision.save(update_fields=["conversation"])
    study = _study(admin, [physician_a], kind="case", tasks=["criterion-validity"], release_label="hb")
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "turn-user" in page and "turn-assistant" in page
    assert "How old is your child?" in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<img src=x" not in page


def test_it_renders_markdown_tables_and_strips_scripts():
    html = markdown_safe("| a | b |\n|---|---|\n| 1 | 2 |\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1))")
    assert "<table>" in html and "<td>1</td>" in html
    assert "<script>" not in html
    assert "javascript:" not in html


def test_it_accepts_only_http_image_urls():
    assert http_url("https://example.org/a.png") == "https://example.org/a.png"
    assert http_url("javascript:alert(1)") == ""
    assert http_url("data:image/png;base64,AAAA") == ""
    assert http_url("/media/local.png") == ""
    assert http_url(None) == ""


def test_it_never_shows_a_physician_another_raters_labels_or_grader_decisions(admin, physician_a, physician_b):
    revision = make_case(narrative="Chest pain for two hours.")
    response = make_response(revision, model_name="secret-model-7b", text="Call an ambulance.")
    make_grader_decisions(response, ["met", "not_met", "met"])
    study = running_study(admin, raters=[physician_a, physician_b], tasks=["grader-reliability", "likert-medic"],
                          kind="response")
    first = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(first, "met")
    for key in labels:
        if key.startswith("likert-medic"):
            labels[key] = {"label": "4", "comment": "MARKER-COMMENT-A"}
    from annotation.rating.services.ratings import rating_submit

    rating_submit(assignment=first, rater=physician_a, labels=labels, seconds_spent=11)
    client = api_client_for(physician_b)
    bodies = [client.post(api_url("claim_next", study_pk=study.pk)).content]
    second_id = json.loads(bodies[0])["assignment"]["id"]
    bodies.append(client.get(api_url("assignment_detail", pk=second_id)).content)
    bodies.append(client.get(api_url("queue")).content)
    bodies.append(client.get(api_url("study_list")).content)
    bodies.append(client.put(api_url("draft", pk=second_id), {"draft": {}, "seconds_spent": 1}, format="json").content)
    text = b"".join(bodies).decode()
    assert "MARKER-COMMENT-A" not in text
    assert "secret-model-7b" not in text
    assert "not_met" not in text.replace('"value":"not_met"', "")
    assert "Call an ambulance." in text


def test_it_shows_a_pair_in_the_raters_own_order_without_model_names(admin, physician_a):
    revision = make_case()
    make_response(revision, model_name="model-left", text="RESPONSE-ONE")
    make_response(revision, model_name="model-right", text="RESPONSE-TWO")
    study = running_study(admin, raters=[physician_a], tasks=["pairwise-preference"], kind="pair")
    body = api_client_for(physician_a).post(api_url("claim_next", study_pk=study.pk)).json()
    shown = [r["text"] for r in body["item"]["responses"]]
    expected = ["RESPONSE-ONE", "RESPONSE-TWO"]
    assert shown == (expected if body["assignment"]["pair_order"] == "ab" else expected[::-1])
    assert "model-left" not in json.dumps(body)


@pytest.mark.parametrize(
    ("task", "sees_answer"), [("mcq-solvability", True), ("mcq-factual", True)]
)
def test_it_shows_the_answer_key_to_both_checks(admin, physician_a, task, sees_answer):
    # LiveClin Appendix G (issue 10): the examinee sees the scenario, stems, images without captions and
    # the answers (of the question judged and the steps before); factual validation sees the source too.
    make_question_set()
    study = running_study(admin, raters=[physician_a], tasks=[task], kind="question_set", dataset="LiveClin")
    body = api_client_for(physician_a).post(api_url("claim_next", study_pk=study.pk)).json()
    mcqs = body["item"]["question_set"]["mcqs"]
    assert [m["correct_answer"] for m in mcqs] == (["A", "A"] if sees_answer else [None, None])
