"""Issue 11: a physician never loses a label and can correct a submitted item until inspection starts.

Submit saves the draft first; errors name the field in the rater's words; the draft survives an
expired lease; edit after submit (each change an EDITED event, the first-round label is the last
before inspection, blocked once an inspector acts or the edit window closes); undo of the last
submit; the "next after submit" setting; stopping for the day releases an empty claim.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from annotation.fields import item_fields
from annotation.inspection.selectors import inspection_view
from annotation.inspection.services import inspection_return
from annotation.models import Assignment, Item, Rating, ReviewEvent
from annotation.rating.screen import AFTER_SUBMIT_COOKIE
from annotation.rating.services.editing import (
    assignment_release,
    edit_blocker,
    last_editable_submission,
    rating_edit,
)
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from cases.models import MCQ, QuestionSet
from medreview.errors import ConflictError
from tests.annotation.builders import (
    api_client_for,
    api_url,
    claim_and_submit,
    disagree,
    form_data,
    labels_for,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login
from tests.factories import make_case


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3)


# --- errors in the rater's words ------------------------------------------------------------------


def _question_set_study(admin, physician_a):
    revision = make_case()
    qs = QuestionSet.objects.create(revision=revision, scenario="A 60-year-old ...")
    for order in (1, 2):
        MCQ.objects.create(question_set=qs, order=order, question=f"Step {order}?", options={"A": "CT", "B": "MRI"},
                           correct_answer="A")
    return running_study(admin, raters=[physician_a], tasks=["mcq-factual", "mcq-solvability"],
                         kind="question_set", raters_per_item=1)


def test_it_names_the_field_in_the_raters_words(admin, physician_a):
    study = _question_set_study(admin, physician_a)
    claim = assignment_claim_next(study=study, rater=physician_a)
    fields = item_fields(claim.item)
    labels = {f.id: {"label": "yes", "comment": ""} for f in fields}
    second_factual = next(f for f in fields if f.task.slug == "mcq-factual" and f.mcq.order == 2)
    labels[second_factual.id] = {"label": "no", "comment": ""}
    with pytest.raises(ValidationError) as exc:
        rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    assert exc.value.message_dict == {
        second_factual.id: ["Question 2, factual check: explain why you answered No."]
    }
    del labels[second_factual.id]
    with pytest.raises(ValidationError) as exc:
        rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    assert exc.value.message_dict[second_factual.id] == [
        "Question 2, factual check: a label is required; choose Yes or No."
    ]


def test_a_failed_page_submit_keeps_every_label_and_lists_the_field_to_fix(client, admin, physician_a):
    study = _question_set_study(admin, physician_a)
    claim = assignment_claim_next(study=study, rater=physician_a)
    fields = item_fields(claim.item)
    labels = {f.id: {"label": "yes", "comment": ""} for f in fields}
    solvability_1 = next(f for f in fields if f.task.slug == "mcq-solvability" and f.mcq.order == 1)
    labels[solvability_1.id] = {"label": "no", "comment": ""}
    response = login(client, physician_a).post(reverse("annotation:rate", args=[claim.pk]), form_data(labels))
    assert response.status_code == 400
    errors = response.context["field_error_list"]
    assert [(e["field_id"], e["message"]) for e in errors] == [
        (solvability_1.id, "Question 1, solvability check: explain why you answered No.")
    ]
    shown = {row.id: row for g in response.context["groups"] for row in g.rows}
    assert errors[0]["index"] == shown[solvability_1.id].index
    claim.refresh_from_db()
    assert {fid: entry["label"] for fid, entry in claim.draft.items()} == {
        fid: entry["label"] for fid, entry in labels.items()
    }
    assert not Rating.objects.exists()
    # A reload shows every label the rater had entered.
    page = client.get(reverse("annotation:rate", args=[claim.pk]))
    shown = {row.id: row.label for g in page.context["groups"] for row in g.rows}
    assert shown and shown == {fid: labels[fid]["label"] for fid in shown}


def test_the_draft_survives_a_lapsed_lease_whose_slot_another_rater_took(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    later = timezone.now() + timedelta(minutes=31)
    taken = assignment_claim_next(study=study, rater=physician_b, now=later)
    assert taken.item_id == claim.item_id
    saved = assignment_save_draft(assignment=claim, rater=physician_a,
                                           draft={"narrative-quality|": {"label": "1", "comment": "vague"}},
                                           seconds_spent=50, now=later)
    assert saved.state == Assignment.State.EXPIRED
    claim.refresh_from_db()
    assert claim.draft["narrative-quality|"] == {"label": "1", "comment": "vague"}


# --- edit after submit ----------------------------------------------------------------------------


def test_a_rater_edits_a_submitted_item_before_inspection(study, physician_a):
    done = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    assert edit_blocker(done) == ""
    labels = labels_for(done, {"narrative-quality": "1", "criterion-validity": "agree"})
    rating_edit(assignment=done, rater=physician_a, labels=labels, seconds_spent=60)
    narrative = Rating.objects.get(assignment=done, field_key="")
    assert (narrative.round, narrative.label) == (1, "1")
    assert Rating.objects.filter(assignment=done).count() == len(labels)
    event = ReviewEvent.objects.get(kind=ReviewEvent.Kind.EDITED)
    assert event.data["changes"] == {"narrative-quality|": {"from": "2", "to": "1"}}
    # Nothing changed: no new event.
    rating_edit(assignment=done, rater=physician_a, labels=labels, seconds_spent=60)
    assert ReviewEvent.objects.filter(kind=ReviewEvent.Kind.EDITED).count() == 1


def test_the_inspection_shows_only_the_edited_labels_as_first_round(study, physician_a, physician_b, inspector):
    # Edited while the item is still open (issue 21: no edits once it has left "open").
    a = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    labels = labels_for(a, {"narrative-quality": "0", "criterion-validity": "agree"}, "on reflection, poor")
    rating_edit(assignment=a, rater=physician_a, labels=labels)
    b = assignment_claim_next(study=study, rater=physician_b)
    rating_submit(assignment=b, rater=physician_b, seconds_spent=5,
                  labels=labels_for(b, {"narrative-quality": "1", "criterion-validity": "agree"}))
    item = Item.objects.get(pk=a.item_id)
    assert item.status == Item.Status.INSPECTION
    view = inspection_view(item=item)
    narrative = next(c for c in view.fields if c.field.id == "narrative-quality|")
    mine = next(cell for cell in narrative.cells if cell.assignment.pk == a.pk)
    assert mine.first.label == "0" and mine.latest.label == "0" and not mine.changed
    assert {cell.first.label for cell in narrative.cells} == {"0", "1"}  # the pre-edit "2" is nowhere


def test_editing_ends_when_an_inspector_acts(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    inspection_return(item=item, inspector=inspector, assignment=b, comment="Look again")
    a.refresh_from_db()
    assert "inspector" in edit_blocker(a)
    with pytest.raises(ConflictError, match="inspector"):
        rating_edit(assignment=a, rater=physician_a,
                    labels=labels_for(a, {"narrative-quality": "1", "criterion-validity": "agree"}))


def test_editing_ends_when_the_study_edit_window_closes(study, physician_a):
    done = claim_and_submit(study, physician_a)
    study.edit_window_minutes = 10
    study.save(update_fields=["edit_window_minutes"])
    done.refresh_from_db()
    assert edit_blocker(done) == ""
    assert "edit window" in edit_blocker(done, now=timezone.now() + timedelta(minutes=11))
    with pytest.raises(ConflictError, match="edit window"):
        rating_edit(assignment=done, rater=physician_a, labels=labels_for(done, pick="last"),
                    now=timezone.now() + timedelta(minutes=11))


def test_another_raters_edit_is_refused(study, physician_a, physician_b):
    done = claim_and_submit(study, physician_a)
    with pytest.raises(Exception, match="another rater"):
        rating_edit(assignment=done, rater=physician_b, labels=labels_for(done))


def test_the_page_edits_a_submitted_item_and_undo_reopens_it(client, study, physician_a):
    login(client, physician_a)
    first = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(first, {"narrative-quality": "2", "criterion-validity": "agree"})
    response = client.post(reverse("annotation:rate", args=[first.pk]), form_data(labels))
    following = Assignment.objects.exclude(pk=first.pk).get(rater=physician_a)
    assert response["Location"] == reverse("annotation:rate", args=[following.pk])
    page = client.get(response["Location"])
    assert page.context["undo"].pk == first.pk
    # u: the new claim (no draft) is given back and the last submission opens for changes.
    response = client.post(reverse("annotation:undo_submit", args=[following.pk]))
    assert response["Location"] == reverse("annotation:rate", args=[first.pk]) + "?edit=1"
    following.refresh_from_db()
    assert following.state == Assignment.State.EXPIRED
    assert ReviewEvent.objects.filter(assignment=following, kind=ReviewEvent.Kind.RELEASED).exists()
    page = client.get(response["Location"])
    assert page.context["editing"] and page.context["editable"]
    labels["narrative-quality|"]["label"] = "1"
    client.post(reverse("annotation:rate", args=[first.pk]), form_data(labels))
    assert Rating.objects.get(assignment=first, field_key="").label == "1"
    assert last_editable_submission(study=study, rater=physician_a).pk == first.pk


# --- after submit, stopping for the day ---------------------------------------------------------


def test_the_after_submit_setting_sends_the_rater_back_to_the_queue(client, study, physician_a):
    login(client, physician_a)
    client.post(reverse("annotation:after_submit_setting"), {"after_submit": "queue"})
    assert client.cookies[AFTER_SUBMIT_COOKIE].value == "queue"
    claim = assignment_claim_next(study=study, rater=physician_a)
    response = client.post(reverse("annotation:rate", args=[claim.pk]), form_data(labels_for(claim)))
    assert response["Location"] == reverse("annotation:physician_dashboard")
    assert Assignment.objects.filter(rater=physician_a).count() == 1  # no next item claimed


def test_stopping_for_the_day_releases_a_claim_without_a_draft_only(client, study, physician_a):
    claim = assignment_claim_next(study=study, rater=physician_a)
    assert assignment_release(assignment=claim, rater=physician_a) is True
    claim.refresh_from_db()
    assert claim.state == Assignment.State.EXPIRED
    again = assignment_claim_next(study=study, rater=physician_a)
    assignment_save_draft(assignment=again, rater=physician_a,
                                   draft={"narrative-quality|": {"label": "1"}}, seconds_spent=3)
    response = login(client, physician_a).post(reverse("annotation:release", args=[again.pk]))
    assert response.status_code == 302
    again.refresh_from_db()
    assert again.state == Assignment.State.DRAFT and again.draft


# --- API --------------------------------------------------------------------------------------------


def test_the_api_edits_releases_and_refuses_an_edit_after_inspection(study, admin, physician_a, physician_b,
                                                                     inspector):
    api = api_client_for(physician_a)
    a = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    labels = labels_for(a, {"narrative-quality": "1", "criterion-validity": "agree"})
    response = api.post(api_url("edit", pk=a.pk), {"labels": labels, "seconds_spent": 5}, format="json")
    assert response.status_code == 200 and response.json()["assignment"]["state"] == "submitted"
    assert Rating.objects.get(assignment=a, field_key="").label == "1"
    b = assignment_claim_next(study=study, rater=physician_b)
    rating_submit(assignment=b, rater=physician_b, seconds_spent=5,
                  labels=labels_for(b, {"narrative-quality": "0", "criterion-validity": "agree"}))
    item = Item.objects.get(pk=a.item_id)
    inspection_return(item=item, inspector=inspector, assignment=b, comment="Again")
    response = api.post(api_url("edit", pk=a.pk), {"labels": labels, "seconds_spent": 5}, format="json")
    assert response.status_code == 409 and "inspector" in response.json()["detail"]
    claim = assignment_claim_next(study=study, rater=physician_a)
    response = api.post(api_url("release", pk=claim.pk))
    assert response.status_code == 200 and response.json()["released"] is True
    assert api_client_for(physician_b).post(api_url("release", pk=claim.pk)).status_code == 404
    admitted = api_client_for(admin).post(api_url("calibration_admit", study_pk=study.pk),
                                          {"rater": physician_a.pk}, format="json")
    assert admitted.status_code == 200 and admitted.json()["admitted_at"]
    assert api.post(api_url("calibration_admit", study_pk=study.pk), {"rater": physician_a.pk},
                    format="json").status_code == 404


def test_an_edit_in_progress_survives_a_reload_and_changes_nothing_until_saved(client, study, physician_a):
    done = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    login(client, physician_a)
    response = client.post(reverse("annotation:save_draft", args=[done.pk]),
                           {"narrative-quality|": "0", "seconds_spent": "3"})
    assert response.status_code == 200 and "Save changes" in response.json()["notice"]
    assert Rating.objects.get(assignment=done, field_key="").label == "2"
    page = client.get(reverse("annotation:rate", args=[done.pk]) + "?edit=1")  # Edit (issue 21)
    shown = {row.id: row.label for g in page.context["groups"] for row in g.rows}
    assert shown["narrative-quality|"] == "0"
    labels = labels_for(done, {"narrative-quality": "0", "criterion-validity": "agree"})
    client.post(reverse("annotation:rate", args=[done.pk]), form_data(labels))
    done.refresh_from_db()
    assert Rating.objects.get(assignment=done, field_key="").label == "0" and done.draft == {}
