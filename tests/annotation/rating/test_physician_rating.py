"""What a physician can do when rating: the rating screen, drafts, submission, revisions, and never
another rater's work."""

from __future__ import annotations

import re

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from annotation.fields import item_fields
from annotation.inspection.selectors import question_set_flagged
from annotation.inspection.services import inspection_return
from annotation.models import Assignment, Rating, ReviewEvent
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from cases.models import MCQ, QuestionSet
from tests.annotation.builders import (
    claim_and_submit,
    form_data,
    item_of,
    labels_for,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login
from tests.factories import make_case

pytestmark = pytest.mark.django_db



def test_it_validates_draft_labels_against_the_scale_naming_the_field(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(ValidationError) as exc:
        assignment_save_draft(assignment=claim, rater=physician_a, draft={"criterion-validity|criterion:999999": {}},
                              seconds_spent=1)
    assert "criterion:999999" in str(exc.value)
    field_id = item_fields(claim.item)[0].id
    with pytest.raises(ValidationError) as exc:
        assignment_save_draft(assignment=claim, rater=physician_a, draft={field_id: {"label": "maybe"}},
                              seconds_spent=1)
    assert field_id in str(exc.value) and "maybe" in str(exc.value)
    claim.refresh_from_db()
    assert claim.draft == {} and claim.state == Assignment.State.CLAIMED


def test_it_logs_one_drafted_event_per_round_but_keeps_every_save(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    ids = [f.id for f in item_fields(claim.item)]
    assignment_save_draft(assignment=claim, rater=physician_a, draft={ids[0]: {"label": "agree"}}, seconds_spent=3)
    saved = assignment_save_draft(assignment=claim, rater=physician_a,
                                  draft={ids[1]: {"label": "disagree", "comment": "irrelevant"}}, seconds_spent=9)
    assert saved.state == Assignment.State.DRAFT
    assert saved.draft[ids[0]]["label"] == "agree" and saved.draft[ids[1]]["comment"] == "irrelevant"
    assert saved.seconds_spent == 9 and saved.draft_saved_at is not None
    assert ReviewEvent.objects.filter(kind=ReviewEvent.Kind.DRAFTED).count() == 1


def test_it_requires_every_field_and_writes_nothing_on_error(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], tasks=["criterion-validity"])
    claim = assignment_claim_next(study=study, rater=physician_a)
    first = item_fields(claim.item)[0].id
    with pytest.raises(ValidationError) as exc:
        rating_submit(assignment=claim, rater=physician_a, labels={first: {"label": "agree"}}, seconds_spent=4)
    assert "a label is required" in str(exc.value)
    assert not Rating.objects.exists()
    claim.refresh_from_db()
    assert claim.state == Assignment.State.CLAIMED


def test_it_requires_an_explanation_for_a_failed_mcq_check(admin, physician_a):
    revision = make_case()
    qs = QuestionSet.objects.create(revision=revision, scenario="A 60-year-old ...")
    MCQ.objects.create(question_set=qs, order=1, question="Next step?", options={"A": "CT", "B": "MRI"},
                       correct_answer="A")
    study = running_study(admin, raters=[physician_a], tasks=["mcq-factual", "mcq-solvability"],
                          kind="question_set", raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    fields = item_fields(claim.item)
    assert [f.task.slug for f in fields] == ["mcq-factual", "mcq-solvability"]
    labels = {fields[0].id: {"label": "yes"}, fields[1].id: {"label": "no"}}
    with pytest.raises(ValidationError, match="explain why"):
        rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    labels[fields[1].id]["comment"] = "The stem gives away nothing about imaging; answer not deducible."
    rating_submit(assignment=claim, rater=physician_a, labels=labels, seconds_spent=5)
    assert question_set_flagged(item_of(claim))


def test_it_never_updates_a_submitted_rating(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a])
    done = claim_and_submit(study, physician_a, "2")
    with pytest.raises(ValidationError, match="already submitted"):
        rating_submit(assignment=done, rater=physician_a, labels=labels_for(done, "0"), seconds_spent=1)
    with pytest.raises(ValidationError, match="already submitted"):
        assignment_save_draft(assignment=done, rater=physician_a, draft=labels_for(done, "0"), seconds_spent=1)
    assert list(Rating.objects.values_list("label", flat=True)) == ["2"]


def test_it_refuses_another_raters_assignment(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(PermissionDenied):
        rating_submit(assignment=claim, rater=physician_b, labels=labels_for(claim, "2"), seconds_spent=1)


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(
        admin, [physician_a, physician_b], inspectors=[inspector], cases=2,
        guidelines="## Rating rules\n\n| Score | Meaning |\n|---|---|\n| 2 | Perfect |",
    )


def test_it_rejects_wrong_methods(client, study, physician_a, inspector):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    assert client.post(reverse("annotation:physician_dashboard")).status_code == 405
    assert client.get(reverse("annotation:next_item", args=[study.pk])).status_code == 405
    assert client.put(reverse("annotation:rate", args=[assignment.pk])).status_code == 405
    assert client.get(reverse("annotation:save_draft", args=[assignment.pk])).status_code == 405
    assert client.get(reverse("annotation:skip", args=[assignment.pk])).status_code == 405
    login(client, inspector)
    assert client.post(reverse("annotation:inspector_dashboard")).status_code == 405
    assert client.delete(reverse("annotation:inspect", args=[assignment.item_id])).status_code == 405


def test_it_gives_outsiders_404_for_next_rate_draft_and_skip(client, study, physician_a, outsider):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    login(client, outsider)
    assert client.post(reverse("annotation:next_item", args=[study.pk])).status_code == 404
    assert client.get(reverse("annotation:rate", args=[assignment.pk])).status_code == 404
    assert client.post(reverse("annotation:rate", args=[assignment.pk]), {}).status_code == 404
    assert client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}).status_code == 404
    assert client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": "x"}).status_code == 404


def test_it_forbids_researchers_every_rating_write(client, study, physician_a, researcher):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    login(client, researcher)
    assert client.post(reverse("annotation:next_item", args=[study.pk])).status_code == 403
    assert client.post(reverse("annotation:rate", args=[assignment.pk]), {}).status_code == 403
    assert client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}).status_code == 403
    assert client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": "x"}).status_code == 403
    assert not Rating.objects.exists()


def test_it_hides_another_raters_assignment(client, study, physician_a, physician_b):
    theirs = assignment_claim_next(study=study, rater=physician_b)
    login(client, physician_a)
    assert client.get(reverse("annotation:rate", args=[theirs.pk])).status_code == 404
    labels = labels_for(theirs)
    assert client.post(reverse("annotation:rate", args=[theirs.pk]), form_data(labels)).status_code == 404
    assert client.post(reverse("annotation:save_draft", args=[theirs.pk]), form_data(labels)).status_code == 404
    theirs.refresh_from_db()
    assert theirs.state == Assignment.State.CLAIMED
    assert not Rating.objects.exists()


def test_it_renders_the_rating_screen_with_fields_shortcuts_and_guidelines(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    response = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    revision = assignment.item.revision
    assert revision.narrative in page and revision.core_request in page
    # Criterion validity rates criteria, not the advice: the reference advice stays hidden.
    assert revision.doctor_advice not in page
    for criterion in revision.criteria.all():
        assert criterion.text in page
    assert 'class="badge penalty"' in page and "-5 pts" in page and "+8 pts" in page
    assert 'data-shortcut="y"' in page and 'data-shortcut="2"' in page
    assert "<table>" in page and "<td>Perfect</td>" in page  # guidelines Markdown rendered as a table
    assert "0 of 2 done" in page.replace("<strong>", "").replace("</strong>", "")
    assert "static/js/rating.js" in page


def test_it_escapes_html_in_case_text(client, admin, physician_a, physician_b):
    study = make_running_study(
        admin, [physician_a, physician_b], narrative="Fever <script>alert(1)</script> and <b>rash</b>",
        name="Escaping",
    )
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;b&gt;rash&lt;/b&gt;" in page


def test_it_submits_labels_and_opens_the_next_item(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(assignment, comment="clear history")
    response = login(client, physician_a).post(
        reverse("annotation:rate", args=[assignment.pk]), form_data(labels, seconds=95)
    )
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SUBMITTED
    assert assignment.seconds_spent == 95
    assert Rating.objects.filter(assignment=assignment).count() == len(labels)
    assert set(Rating.objects.filter(assignment=assignment).values_list("comment", flat=True)) == {"clear history"}
    following = Assignment.objects.exclude(pk=assignment.pk).get(rater=physician_a)
    assert response["Location"] == reverse("annotation:rate", args=[following.pk])


def test_it_names_missing_fields_writes_no_rating_and_keeps_the_labels_as_a_draft(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(assignment)
    missing_id = next(iter(labels))
    labels[missing_id]["label"] = ""
    response = login(client, physician_a).post(reverse("annotation:rate", args=[assignment.pk]), form_data(labels))
    page = response.content.decode()
    assert response.status_code == 400
    assert "a label is required" in page
    assert "has-error" in page
    assert not Rating.objects.exists()
    assignment.refresh_from_db()
    # Issue 11: the page's submit saves the draft first, so a failed submit loses no label.
    assert assignment.state == Assignment.State.DRAFT
    assert {fid for fid, entry in assignment.draft.items() if entry["label"]} == set(labels) - {missing_id}


def test_it_saves_a_draft_and_shows_it_after_a_reload(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    fields = item_fields(assignment.item)
    first = fields[0]
    login(client, physician_a)
    response = client.post(
        reverse("annotation:save_draft", args=[assignment.pk]),
        {first.id: "1", f"comment:{first.id}": "minor omission", "seconds_spent": "12"},
    )
    assert response.status_code == 200
    assert response.json()["ok"] is True
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.DRAFT
    assert assignment.draft[first.id] == {"label": "1", "comment": "minor omission"}
    page = client.get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    # The saved label's radio is the checked one (attributes between value and checked may vary).
    assert re.search(rf'name="{re.escape(first.id)}" value="1" data-shortcut="1"[^>]*\bchecked\b', page)
    assert "minor omission</textarea>" in page
    assert "Saved at" in page


def test_it_rejects_a_draft_label_off_the_scale(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    first = item_fields(assignment.item)[0]
    response = login(client, physician_a).post(
        reverse("annotation:save_draft", args=[assignment.pk]), {first.id: "7", "seconds_spent": "3"}
    )
    assert response.status_code == 400
    assert "not on the scale" in " ".join(response.json()["errors"])
    assignment.refresh_from_db()
    assert assignment.draft == {}


def test_it_shows_submitted_work_read_only(client, study, physician_a):
    assignment = claim_and_submit(study, physician_a, comment="looks fine", seconds_spent=42)
    # Issue 11: a submitted item is editable until inspection starts or the study's edit window closes.
    study.edit_window_minutes = 0
    study.save(update_fields=["edit_window_minutes"])
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "read-only" in page
    assert " disabled" in page and "checked" in page
    assert 'id="submit-rating"' not in page
    response = client.post(reverse("annotation:rate", args=[assignment.pk]), form_data(labels_for(assignment)))
    assert response.status_code == 409  # a conflict: the edit window has closed (issue 21)
    assert Rating.objects.filter(assignment=assignment).count() == len(labels_for(assignment))


def test_it_shows_a_returned_item_as_revision_requested_with_my_labels(client, study, physician_a, physician_b,
                                                                       inspector):
    mine = claim_and_submit(study, physician_a, pick="first", seconds_spent=42)
    claim_and_submit(study, physician_b, pick="last", seconds_spent=42)
    mine.item.refresh_from_db()
    assert mine.item.status == "inspection"
    inspection_return(item=mine.item, inspector=inspector, assignment=mine, comment="Check criterion 3")
    login(client, physician_a)
    dashboard = client.get(reverse("annotation:physician_dashboard")).content.decode()
    assert "revision requested" in dashboard.lower()
    assert reverse("annotation:rate", args=[mine.pk]) in dashboard
    page = client.get(reverse("annotation:rate", args=[mine.pk])).content.decode()
    assert "Revision requested" in page and "Check criterion 3" in page
    assert page.count(" checked") == len(labels_for(mine))
    response = client.post(reverse("annotation:rate", args=[mine.pk]), form_data(labels_for(mine, pick="last")))
    assert response.status_code == 302
    mine.refresh_from_db()
    assert mine.state == Assignment.State.REVISED
    assert Rating.objects.filter(assignment=mine, round=1).count() == len(labels_for(mine))
    assert Rating.objects.filter(assignment=mine, round=2).count() == len(labels_for(mine))


def test_it_keeps_physician_pages_to_a_fixed_number_of_queries(
    client, admin, physician_a, physician_b, django_assert_num_queries
):
    def measure(url: str) -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    small = make_running_study(admin, [physician_a, physician_b], cases=1, name="Small")
    assignment = claim_and_submit(small, physician_a, seconds_spent=42)
    login(client, physician_a)
    dashboard_small = measure(reverse("annotation:physician_dashboard"))
    rate_small = measure(reverse("annotation:rate", args=[assignment.pk]))

    large = make_running_study(admin, [physician_a, physician_b], cases=6, name="Large")
    for _ in range(5):
        claim_and_submit(large, physician_a, seconds_spent=42)
    assignment_claim_next(study=large, rater=physician_a)
    big_assignment = Assignment.objects.filter(item__study=large, rater=physician_a).order_by("pk").first()

    with django_assert_num_queries(dashboard_small):
        client.get(reverse("annotation:physician_dashboard"))
    with django_assert_num_queries(rate_small):
        client.get(reverse("annotation:rate", args=[big_assignment.pk]))
