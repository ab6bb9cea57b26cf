"""Issue 20: a LiveClin question set's inspection shows what the decision rests on (LiveClin Sec. 3.4,
Appendix G): every MCQ's stem, options and answer key, the source report and captions, each rater's
verdicts and explanations and, when the study shows the pre-screen or the Judge flagged the set, the
Judge's verdicts and explanations (marker strings searched in the whole page). A set can be rejected
as a whole with a reason; a returned set opens on the phase of the first marked field."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.fields import item_fields
from annotation.inspection.services import inspection_return
from annotation.models import Assignment, FinalLabel, Inspection, Item, ReviewEvent
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from liveclin.quality.loading import release_review
from liveclin.quality.rules import REJECTED, outcome
from tests.annotation.builders import inspect_and_confirm
from tests.conftest import login
from tests.liveclin.builders import import_liveclin, liveclin_study

pytestmark = pytest.mark.django_db


def judge(factual: bool = True, solvable: bool = True, n: int = 1) -> dict:
    return {"factual_validation": {"is_factually_correct": factual, "explanation": f"JUDGE-FACT-MARKER-{n}"},
            "logical_solvability": {"is_logically_solvable": solvable, "explanation": f"JUDGE-SOLV-MARKER-{n}"}}


def rate(study, rater, verdict: str = "yes", why: str = "") -> Assignment:
    assignment = assignment_claim_next(study=study, rater=rater)
    labels = {f.id: {"label": verdict, "comment": why} for f in item_fields(assignment.item)}
    return rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=30)


def inspected(admin, raters, inspector, *, judged: list[dict] | None, show_prescreen: bool) -> Item:
    import_liveclin(1, judge=None if judged is None else [{"pmc": "PMC-QC-1", "judge": judged}])
    study = liveclin_study(admin, raters, inspectors=[inspector], show_prescreen=show_prescreen)
    rate(study, raters[0], "yes")
    rate(study, raters[1], "no", why="RATER-EXPLANATION-MARKER: the dose is not in the report")
    item = Item.objects.get(study=study)
    assert item.status == Item.Status.INSPECTION
    return item


def page(client, inspector, item: Item) -> str:
    response = login(client, inspector).get(reverse("annotation:inspect", args=[item.pk]))
    assert response.status_code == 200
    return response.content.decode()


def test_the_page_holds_stems_options_answer_key_source_and_every_raters_explanation(
    client, admin, physician_a, physician_b, inspector
):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=None, show_prescreen=False)
    text = page(client, inspector, item)
    for marker in ("Set 1, question 1: which option?", "Set 1, question 2: which option?",
                   "Option A1", "Option B1", "Option A2", "Option B2",
                   "REPORT-MARKER-1", "CAPTION-MARKER-1", "RATER-EXPLANATION-MARKER"):
        assert marker in text, marker
    assert text.count('data-answer-key="B"') == 2  # each MCQ's answer key, marked


def test_the_judge_is_shown_when_the_study_shows_the_prescreen(client, admin, physician_a, physician_b, inspector):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=[judge(n=1), judge(n=2)],
                     show_prescreen=True)
    text = page(client, inspector, item)
    for marker in ("JUDGE-FACT-MARKER-1", "JUDGE-SOLV-MARKER-1", "JUDGE-FACT-MARKER-2", "JUDGE-SOLV-MARKER-2"):
        assert marker in text, marker


def test_the_judge_is_shown_for_a_flagged_set_even_without_the_prescreen(
    client, admin, physician_a, physician_b, inspector
):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=[judge(False, n=1), judge(n=2)],
                     show_prescreen=False)
    text = page(client, inspector, item)
    assert "JUDGE-FACT-MARKER-1" in text and "JUDGE-SOLV-MARKER-2" in text
    assert 'data-judge-verdict="no"' in text


def test_the_judge_stays_hidden_for_an_unflagged_set_without_the_prescreen(
    client, admin, physician_a, physician_b, inspector
):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=[judge(n=1), judge(n=2)],
                     show_prescreen=False)
    text = page(client, inspector, item)
    assert "JUDGE-FACT-MARKER" not in text and "JUDGE-SOLV-MARKER" not in text


def test_a_set_is_rejected_as_a_whole_with_a_reason_beside_its_per_field_labels(
    client, admin, physician_a, physician_b, inspector
):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=None, show_prescreen=False)
    assert 'id="reject-set-button"' in page(client, inspector, item)
    data = {"action": "reject_set", "set_reason": "Duplicate case: same report as PMC-QC-9"}
    data.update({f"final:{f.id}": "yes" for f in item_fields(item)})
    assert inspect_and_confirm(client, item, data).status_code == 302
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    assert Inspection.objects.get(item=item).action == "reject_set"
    assert set(FinalLabel.objects.filter(item=item).values_list("label", flat=True)) == {"yes"}
    assert ReviewEvent.objects.get(item=item, kind="set_rejected").reason == "Duplicate case: same report as PMC-QC-9"
    review = release_review(item.revision.release).sets[0]
    result = outcome(review)
    assert result.status == REJECTED
    assert any("Duplicate case" in reason for reason in result.reasons)


def test_a_set_rejection_needs_a_reason(client, admin, physician_a, physician_b, inspector):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=None, show_prescreen=False)
    data = {"action": "reject_set", "set_reason": " "}
    data.update({f"final:{f.id}": "yes" for f in item_fields(item)})
    response = login(client, inspector).post(reverse("annotation:inspect", args=[item.pk]), data)
    assert response.status_code == 400
    item.refresh_from_db()
    assert item.status == Item.Status.INSPECTION and not Inspection.objects.exists()


def test_a_returned_set_opens_on_the_phase_of_the_first_marked_field(client, admin, physician_a, physician_b,
                                                                     inspector):
    item = inspected(admin, [physician_a, physician_b], inspector, judged=None, show_prescreen=False)
    theirs = Assignment.objects.get(item=item, rater=physician_b)
    factual_q2 = next(f for f in item_fields(item) if f.task.slug == "mcq-factual" and f.mcq.order == 2)
    inspection_return(item=item, inspector=inspector, assignment=theirs, comment="Check question 2's facts",
                      fields=[factual_q2.id])
    response = login(client, physician_b).get(reverse("annotation:rate", args=[theirs.pk]))
    assert response.status_code == 200
    text = response.content.decode()
    assert 'data-phase="auditor"' in text
    assert f'data-field-id="{factual_q2.id}"' in text and "return-marked" in text


def test_the_api_rejects_a_set_for_its_inspectors_only(admin, physician_a, physician_b, inspector, researcher,
                                                       outsider):
    from tests.annotation.builders import api_client_for

    item = inspected(admin, [physician_a, physician_b], inspector, judged=None, show_prescreen=False)
    url = reverse("annotation_api:inspection_reject_set", args=[item.pk])
    body = {"labels": {f.id: "yes" for f in item_fields(item)}, "reason": "Wrong scenario for the report"}
    assert api_client_for(researcher).post(url, body, format="json").status_code == 403
    assert api_client_for(outsider).post(url, body, format="json").status_code == 404
    assert api_client_for(inspector).get(url).status_code == 405
    assert api_client_for(inspector).post(url, {**body, "reason": ""}, format="json").status_code == 400
    response = api_client_for(inspector).post(url, body, format="json")
    assert response.status_code == 200 and response.json()["action"] == "reject_set"
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
