"""Inspection pages: the queue, the side-by-side screen, and accept / adjudicate / return."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation import selectors, services
from annotation.models import Assignment, FinalLabel, Inspection, Item
from tests.annotation.test_views_support import claim_and_submit, make_running_study
from tests.conftest import login


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1)


@pytest.fixture
def disputed(study, physician_a, physician_b) -> Item:
    """Both raters submitted and disagree on every field, so the item awaits inspection."""
    claim_and_submit(study, physician_a, pick="first", comment="A thinks so")
    claim_and_submit(study, physician_b, pick="last", comment="B disagrees")
    item = study.items.get()
    assert item.status == Item.Status.INSPECTION
    return item


def test_it_lists_pending_items_for_the_inspector(client, disputed, inspector):
    response = login(client, inspector).get(reverse("annotation:inspector_dashboard"))
    assert response.status_code == 200
    assert reverse("annotation:inspect", args=[disputed.pk]) in response.content.decode()


def test_it_refuses_the_inspection_queue_to_physicians_and_researchers(client, physician_a, researcher):
    assert login(client, physician_a).get(reverse("annotation:inspector_dashboard")).status_code == 403
    assert login(client, researcher).get(reverse("annotation:inspector_dashboard")).status_code == 403


def test_it_shows_every_raters_labels_side_by_side_with_differences(client, disputed, inspector):
    response = login(client, inspector).get(reverse("annotation:inspect", args=[disputed.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "physician_a" in page and "physician_b" in page
    assert "A thinks so" in page and "B disagrees" in page
    assert page.count('<tr class="diff"') == len(selectors.item_fields(disputed))
    assert "42 s" in page  # time spent per rater
    assert "Submitted" in page  # history


def test_it_gives_404_to_physicians_and_outsiders_on_the_inspection_screen(
    client, disputed, physician_a, outsider
):
    assert login(client, physician_a).get(reverse("annotation:inspect", args=[disputed.pk])).status_code == 404
    assert login(client, outsider).get(reverse("annotation:inspect", args=[disputed.pk])).status_code == 404
    response = client.post(reverse("annotation:inspect", args=[disputed.pk]), {"action": "accept"})
    assert response.status_code == 404


def test_it_gives_404_to_an_inspector_of_another_study(client, admin, disputed):
    from annotation.models import Rank, Role
    from tests.conftest import make_user

    other = make_user("other_inspector", role=Role.INSPECTOR, rank=Rank.CHIEF)
    assert login(client, other).get(reverse("annotation:inspect", args=[disputed.pk])).status_code == 404


def test_it_forbids_researchers_inspection_writes(client, disputed, researcher):
    for action in ("accept", "adjudicate", "return"):
        response = login(client, researcher).post(
            reverse("annotation:inspect", args=[disputed.pk]), {"action": action, "comment": "x", "reason": "x"}
        )
        assert response.status_code == 403
    assert not Inspection.objects.exists()


def test_it_refuses_to_accept_when_raters_disagree(client, disputed, inspector):
    response = login(client, inspector).post(
        reverse("annotation:inspect", args=[disputed.pk]), {"action": "accept"}
    )
    assert response.status_code == 400
    assert "disagree" in response.content.decode()
    disputed.refresh_from_db()
    assert disputed.status == Item.Status.INSPECTION


def test_it_accepts_when_all_raters_agree(client, admin, physician_a, physician_b, inspector):
    study = make_running_study(
        admin, [physician_a, physician_b], inspectors=[inspector], inspect_all=True, name="Inspect all"
    )
    claim_and_submit(study, physician_a)
    claim_and_submit(study, physician_b)
    item = study.items.get()
    response = login(client, inspector).post(
        reverse("annotation:inspect", args=[item.pk]), {"action": "accept", "comment": "fine"}
    )
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    assert FinalLabel.objects.filter(item=item, source=FinalLabel.Source.ACCEPTED).count() == len(
        selectors.item_fields(item)
    )


def test_it_adjudicates_with_a_reason_and_final_labels(client, disputed, inspector):
    fields = selectors.item_fields(disputed)
    data = {"action": "adjudicate", "reason": "Per guideline"}
    data.update({f"final:{f.id}": f.categories[0].value for f in fields})
    login(client, inspector)
    without_reason = client.post(reverse("annotation:inspect", args=[disputed.pk]), {**data, "reason": ""})
    assert without_reason.status_code == 400
    assert not FinalLabel.objects.exists()
    response = client.post(reverse("annotation:inspect", args=[disputed.pk]), data)
    assert response.status_code == 302
    disputed.refresh_from_db()
    assert disputed.status == Item.Status.RESOLVED
    finals = FinalLabel.objects.filter(item=disputed)
    assert finals.count() == len(fields)
    assert set(finals.values_list("reason", flat=True)) == {"Per guideline"}
    page = client.get(reverse("annotation:inspect", args=[disputed.pk])).content.decode()
    assert "Set by an inspector" in page
    assert 'id="adjudicate-button"' not in page


def test_it_returns_an_item_to_the_chosen_annotator(client, disputed, inspector, physician_b):
    theirs = Assignment.objects.get(item=disputed, rater=physician_b)
    login(client, inspector)
    no_comment = client.post(
        reverse("annotation:inspect", args=[disputed.pk]), {"action": "return", "assignment": theirs.pk}
    )
    assert no_comment.status_code == 400
    response = client.post(
        reverse("annotation:inspect", args=[disputed.pk]),
        {"action": "return", "assignment": theirs.pk, "comment": "Re-read the history"},
    )
    assert response.status_code == 302
    theirs.refresh_from_db()
    assert theirs.state == Assignment.State.RETURNED
    disputed.refresh_from_db()
    assert disputed.status == Item.Status.RETURNED
    queue = client.get(reverse("annotation:inspector_dashboard")).content.decode()
    assert "Returned for revision" in queue


def test_it_asks_which_annotator_when_the_choice_is_missing_or_garbled(client, disputed, inspector):
    login(client, inspector)
    for value in ("", "abc", "99999"):
        response = client.post(
            reverse("annotation:inspect", args=[disputed.pk]), {"action": "return", "assignment": value, "comment": "x"}
        )
        assert response.status_code == 400
        assert "Choose the annotator" in response.content.decode()
    disputed.refresh_from_db()
    assert disputed.status == Item.Status.INSPECTION


def test_it_refuses_to_return_to_an_assignment_of_another_item(client, admin, disputed, inspector, physician_a,
                                                                physician_b):
    other_study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], name="Other")
    foreign = claim_and_submit(other_study, physician_a)
    response = login(client, inspector).post(
        reverse("annotation:inspect", args=[disputed.pk]),
        {"action": "return", "assignment": foreign.pk, "comment": "x"},
    )
    assert response.status_code == 400
    foreign.refresh_from_db()
    assert foreign.state == Assignment.State.SUBMITTED


def _count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_it_keeps_the_inspection_pages_to_a_fixed_number_of_queries(
    client, admin, physician_a, physician_b, inspector, django_assert_num_queries
):
    small = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1,
                               inspect_all=True, name="Small")
    claim_and_submit(small, physician_a)
    claim_and_submit(small, physician_b)
    login(client, inspector)
    queue_small = _count(client, reverse("annotation:inspector_dashboard"))
    item_small = small.items.get()
    inspect_small = _count(client, reverse("annotation:inspect", args=[item_small.pk]))

    large = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=5,
                               inspect_all=True, name="Large")
    for _ in range(5):
        claim_and_submit(large, physician_a)
        claim_and_submit(large, physician_b)
    item_large = large.items.order_by("pk").last()
    services.inspection_accept(item=large.items.order_by("pk").first(), inspector=inspector)
    with django_assert_num_queries(queue_small):
        client.get(reverse("annotation:inspector_dashboard"))
    with django_assert_num_queries(inspect_small):
        client.get(reverse("annotation:inspect", args=[item_large.pk]))
