"""Physician pages: dashboard, next item, the rating screen, drafts and skips."""

import pytest
from django.urls import reverse

from annotation import selectors, services
from annotation.models import Assignment, Rating
from tests.annotation.test_views_support import (
    claim_and_submit,
    form_data,
    labels_for,
    make_running_study,
)
from tests.conftest import login


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(
        admin, [physician_a, physician_b], inspectors=[inspector], cases=2,
        guidelines="## Rating rules\n\n| Score | Meaning |\n|---|---|\n| 2 | Perfect |",
    )


def test_it_shows_my_studies_with_progress_and_next_button(client, study, physician_a):
    claim_and_submit(study, physician_a)
    response = login(client, physician_a).get(reverse("annotation:physician_dashboard"))
    assert response.status_code == 200
    page = response.content.decode()
    assert study.name in page
    assert "<strong>1</strong> of 2 items done" in page
    assert reverse("annotation:next_item", args=[study.pk]) in page


def test_it_refuses_the_queue_to_a_researcher(client, researcher):
    assert login(client, researcher).get(reverse("annotation:physician_dashboard")).status_code == 403


def test_it_rejects_wrong_methods(client, study, physician_a, inspector):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    assert client.post(reverse("annotation:physician_dashboard")).status_code == 405
    assert client.get(reverse("annotation:next_item", args=[study.pk])).status_code == 405
    assert client.put(reverse("annotation:rate", args=[assignment.pk])).status_code == 405
    assert client.get(reverse("annotation:save_draft", args=[assignment.pk])).status_code == 405
    assert client.get(reverse("annotation:skip", args=[assignment.pk])).status_code == 405
    login(client, inspector)
    assert client.post(reverse("annotation:inspector_dashboard")).status_code == 405
    assert client.delete(reverse("annotation:inspect", args=[assignment.item_id])).status_code == 405


def test_it_claims_the_next_item_and_opens_the_rating_screen(client, study, physician_a):
    response = login(client, physician_a).post(reverse("annotation:next_item", args=[study.pk]))
    assignment = Assignment.objects.get(rater=physician_a)
    assert response.status_code == 302
    assert response["Location"] == reverse("annotation:rate", args=[assignment.pk])


def test_it_says_nothing_is_left_when_every_item_is_rated(client, study, physician_a):
    claim_and_submit(study, physician_a)
    claim_and_submit(study, physician_a)
    response = login(client, physician_a).post(reverse("annotation:next_item", args=[study.pk]))
    assert response.status_code == 200
    assert "Nothing left to rate" in response.content.decode()


def test_it_gives_outsiders_404_for_next_rate_draft_and_skip(client, study, physician_a, outsider):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    login(client, outsider)
    assert client.post(reverse("annotation:next_item", args=[study.pk])).status_code == 404
    assert client.get(reverse("annotation:rate", args=[assignment.pk])).status_code == 404
    assert client.post(reverse("annotation:rate", args=[assignment.pk]), {}).status_code == 404
    assert client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}).status_code == 404
    assert client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": "x"}).status_code == 404


def test_it_forbids_researchers_every_rating_write(client, study, physician_a, researcher):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    login(client, researcher)
    assert client.post(reverse("annotation:next_item", args=[study.pk])).status_code == 403
    assert client.post(reverse("annotation:rate", args=[assignment.pk]), {}).status_code == 403
    assert client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}).status_code == 403
    assert client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": "x"}).status_code == 403
    assert not Rating.objects.exists()


def test_it_hides_another_raters_assignment(client, study, physician_a, physician_b):
    theirs = services.assignment_claim_next(study=study, rater=physician_b)
    login(client, physician_a)
    assert client.get(reverse("annotation:rate", args=[theirs.pk])).status_code == 404
    labels = labels_for(theirs)
    assert client.post(reverse("annotation:rate", args=[theirs.pk]), form_data(labels)).status_code == 404
    assert client.post(reverse("annotation:save_draft", args=[theirs.pk]), form_data(labels)).status_code == 404
    theirs.refresh_from_db()
    assert theirs.state == Assignment.State.CLAIMED
    assert not Rating.objects.exists()


def test_it_renders_the_rating_screen_with_fields_shortcuts_and_guidelines(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
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
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert(1)</script>" not in page
    assert "&lt;b&gt;rash&lt;/b&gt;" in page


def test_it_submits_labels_and_opens_the_next_item(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
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


def test_it_names_missing_fields_and_writes_nothing(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
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
    assert assignment.state == Assignment.State.CLAIMED


def test_it_saves_a_draft_and_shows_it_after_a_reload(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    fields = selectors.item_fields(assignment.item)
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
    assert f'name="{first.id}" value="1" data-shortcut="1" checked' in page
    assert "minor omission</textarea>" in page
    assert "Saved at" in page


def test_it_rejects_a_draft_label_off_the_scale(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    first = selectors.item_fields(assignment.item)[0]
    response = login(client, physician_a).post(
        reverse("annotation:save_draft", args=[assignment.pk]), {first.id: "7", "seconds_spent": "3"}
    )
    assert response.status_code == 400
    assert "not on the scale" in " ".join(response.json()["errors"])
    assignment.refresh_from_db()
    assert assignment.draft == {}


def test_it_skips_with_a_reason_and_refuses_without(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    login(client, physician_a)
    response = client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": ""})
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.CLAIMED
    response = client.post(reverse("annotation:skip", args=[assignment.pk]), {"reason": "outside my specialty"})
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SKIPPED
    assert assignment.skip_reason == "outside my specialty"
    assert response["Location"] == reverse("annotation:physician_dashboard")


def test_it_shows_submitted_work_read_only(client, study, physician_a):
    assignment = claim_and_submit(study, physician_a, comment="looks fine")
    page = login(client, physician_a).get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    assert "read-only" in page
    assert " disabled" in page and "checked" in page
    assert 'id="submit-rating"' not in page
    response = client.post(reverse("annotation:rate", args=[assignment.pk]), form_data(labels_for(assignment)))
    assert response.status_code == 400
    assert Rating.objects.filter(assignment=assignment).count() == len(labels_for(assignment))


def test_it_never_shows_a_physician_the_other_raters_labels(client, study, physician_a, physician_b):
    secret = "ZEBRA-COMMENT-OF-B"
    theirs = claim_and_submit(study, physician_b, pick="last", comment=secret)
    mine = services.assignment_claim_next(study=study, rater=physician_a)
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


def test_it_shows_a_returned_item_as_revision_requested_with_my_labels(client, study, physician_a, physician_b,
                                                                       inspector):
    mine = claim_and_submit(study, physician_a, pick="first")
    claim_and_submit(study, physician_b, pick="last")
    mine.item.refresh_from_db()
    assert mine.item.status == "inspection"
    services.inspection_return(item=mine.item, inspector=inspector, assignment=mine, comment="Check criterion 3")
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
    assignment = claim_and_submit(small, physician_a)
    login(client, physician_a)
    dashboard_small = measure(reverse("annotation:physician_dashboard"))
    rate_small = measure(reverse("annotation:rate", args=[assignment.pk]))

    large = make_running_study(admin, [physician_a, physician_b], cases=6, name="Large")
    for _ in range(5):
        claim_and_submit(large, physician_a)
    services.assignment_claim_next(study=large, rater=physician_a)
    big_assignment = Assignment.objects.filter(item__study=large, rater=physician_a).order_by("pk").first()

    with django_assert_num_queries(dashboard_small):
        client.get(reverse("annotation:physician_dashboard"))
    with django_assert_num_queries(rate_small):
        client.get(reverse("annotation:rate", args=[big_assignment.pk]))


def test_it_shows_an_outsider_an_empty_queue_without_other_studies(client, study, outsider):
    response = login(client, outsider).get(reverse("annotation:physician_dashboard"))
    assert response.status_code == 200
    page = response.content.decode()
    assert study.name not in page
    assert "not a rater in any study" in page


def test_it_sends_anonymous_visitors_to_sign_in_and_tells_scripts_401(client, study, physician_a):
    assignment = services.assignment_claim_next(study=study, rater=physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk]))
    assert page.status_code == 302 and page["Location"].startswith(reverse("login"))
    autosave = client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}, HTTP_HX_REQUEST="true")
    assert autosave.status_code == 401
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.CLAIMED
