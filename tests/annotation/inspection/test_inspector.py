"""What happens when an item's ratings are in (consensus or inspection) and what an inspector can do:
the queue, the side-by-side screen, accept, adjudicate, return until consensus."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from annotation.fields import item_fields
from annotation.inspection.selectors import inspection_view, question_set_flagged
from annotation.inspection.services import inspection_accept, inspection_adjudicate, inspection_return
from annotation.models import Assignment, FinalLabel, Inspection, Item, Rating, ReviewEvent
from annotation.rating.selectors import rater_queue
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from cases.models import MCQ, QuestionSet
from tests.annotation.builders import (
    claim_and_submit,
    count_queries,
    inspect_and_confirm,
    item_of,
    labels_for,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login, make_user
from tests.factories import make_case, make_response

pytestmark = pytest.mark.django_db



def test_it_resolves_agreeing_items_by_consensus_with_final_labels(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    assert item_of(a).status == Item.Status.OPEN
    claim_and_submit(study, physician_b, "2")
    item = item_of(a)
    assert item.status == Item.Status.RESOLVED
    final = FinalLabel.objects.get(item=item)
    assert final.label == "2" and final.source == FinalLabel.Source.CONSENSUS and final.decided_by is None
    assert ReviewEvent.objects.filter(item=item, kind=ReviewEvent.Kind.RESOLVED).exists()


def test_it_sends_disagreements_to_inspection(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    item = item_of(a)
    assert item.status == Item.Status.INSPECTION
    event = ReviewEvent.objects.get(item=item, kind=ReviewEvent.Kind.SENT_TO_INSPECTION)
    assert event.data["why"] == ["disagreement"] and event.data["differing_fields"] == ["narrative-quality|"]
    assert not FinalLabel.objects.exists()


def test_it_sends_every_item_to_inspection_with_inspect_all(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspect_all=True)
    a = claim_and_submit(study, physician_a, "1")
    claim_and_submit(study, physician_b, "1")
    assert item_of(a).status == Item.Status.INSPECTION


def test_it_runs_the_return_and_revise_loop_until_accepted(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a = claim_and_submit(study, physician_a, "2", comment="clear history")
    b = claim_and_submit(study, physician_b, "0")
    item = item_of(a)
    with pytest.raises(ValidationError, match="adjudicate"):
        inspection_accept(item=item, inspector=inspector)
    with pytest.raises(ValidationError, match="comment"):
        inspection_return(item=item, inspector=inspector, assignment=b, comment="")
    inspection_return(item=item, inspector=inspector, assignment=b, comment="Re-read the history: it is complete.")
    b.refresh_from_db()
    assert b.state == Assignment.State.RETURNED and b.round == 2
    assert b.draft == {"narrative-quality|": {"label": "0", "comment": ""}}
    assert item_of(a).status == Item.Status.RETURNED
    queue = rater_queue(rater=physician_b, study=study)
    assert [x.pk for x in queue.returned] == [b.pk]
    # The returned item comes first when the physician asks for the next item.
    assert assignment_claim_next(study=study, rater=physician_b).pk == b.pk
    assignment_save_draft(assignment=b, rater=physician_b, draft={"narrative-quality|": {"label": "2"}},
                          seconds_spent=4)
    b.refresh_from_db()
    assert b.state == Assignment.State.RETURNED
    rating_submit(assignment=b, rater=physician_b, labels=labels_for(b, "2"), seconds_spent=12)
    b.refresh_from_db()
    assert b.state == Assignment.State.REVISED
    assert list(Rating.objects.filter(assignment=b).values_list("round", "label")) == [(1, "0"), (2, "2")]
    item = item_of(a)
    assert item.status == Item.Status.INSPECTION
    view = inspection_view(item=item)
    field = view.fields[0]
    assert not field.differs and field.first_round_differs
    inspection_accept(item=item, inspector=inspector, comment="Agreed after revision")
    item = item_of(a)
    assert item.status == Item.Status.RESOLVED
    final = FinalLabel.objects.get(item=item)
    assert (final.label, final.source, final.decided_by) == ("2", FinalLabel.Source.ACCEPTED, inspector)
    kinds = list(ReviewEvent.objects.filter(item=item).values_list("kind", flat=True))
    for kind in ("claimed", "submitted", "sent_to_inspection", "returned", "drafted", "revised", "accepted"):
        assert kind in kinds


def test_it_adjudicates_with_a_reason_and_a_label_for_every_field(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                          tasks=["narrative-quality", "advice-quality"])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "1")
    item = item_of(a)
    with pytest.raises(ValidationError, match="reason"):
        inspection_adjudicate(item=item, inspector=inspector, labels={}, reason="")
    with pytest.raises(ValidationError, match="advice-quality"):
        inspection_adjudicate(item=item, inspector=inspector, labels={"narrative-quality|": "1"}, reason="x")
    inspection = inspection_adjudicate(item=item, inspector=inspector,
                                       labels={"narrative-quality|": "1", "advice-quality|": "2"},
                                       reason="Temperature missing; advice follows guidelines")
    assert inspection.action == Inspection.Action.ADJUDICATE
    finals = dict(FinalLabel.objects.filter(item=item).values_list("task__slug", "label"))
    assert finals == {"narrative-quality": "1", "advice-quality": "2"}
    assert item_of(a).status == Item.Status.RESOLVED
    # First-round ratings stay as the raters gave them.
    assert sorted(Rating.objects.filter(task__slug="narrative-quality").values_list("label", flat=True)) == ["1", "2"]


def test_it_lets_only_the_studys_inspectors_act(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    a = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    with pytest.raises(PermissionDenied):
        inspection_adjudicate(item=item_of(a), inspector=inspector, labels={"narrative-quality|": "1"}, reason="x")
    with pytest.raises(PermissionDenied):
        inspection_accept(item=item_of(a), inspector=physician_a)


def test_it_lists_the_inspectors_queue_by_status(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a1 = claim_and_submit(study, physician_a, "2")
    claim_and_submit(study, physician_b, "0")
    a2 = claim_and_submit(study, physician_a, "2")
    b2 = claim_and_submit(study, physician_b, "1")
    a3 = claim_and_submit(study, physician_a, "1")
    claim_and_submit(study, physician_b, "0")
    inspection_return(item=item_of(a2), inspector=inspector, assignment=b2, comment="Look again")
    inspection_adjudicate(item=item_of(a3), inspector=inspector, labels={"narrative-quality|": "1"}, reason="ok")
    from annotation.inspection.selectors import inspector_queue

    queue = inspector_queue(inspector=inspector)
    assert [i.pk for i in queue.pending] == [a1.item_id]
    assert [i.pk for i in queue.returned] == [a2.item_id]
    assert [i.pk for i in queue.resolved] == [a3.item_id]
    outsider_queue = inspector_queue(inspector=make_user("elsewhere", role="inspector"))
    assert outsider_queue.pending == [] and outsider_queue.studies == []


def test_it_does_not_flag_a_question_set_whose_checks_all_pass(admin, physician_a):
    revision = make_case()
    qs = QuestionSet.objects.create(revision=revision, scenario="Scenario")
    MCQ.objects.create(question_set=qs, order=1, question="Q1", options={"A": "x", "B": "y"}, correct_answer="B")
    study = running_study(admin, raters=[physician_a], tasks=["mcq-factual"], kind="question_set", raters_per_item=1)
    done = claim_and_submit(study, physician_a, "yes")
    item = item_of(done)
    assert item.status == Item.Status.RESOLVED and not question_set_flagged(item)


def test_it_compares_pairwise_labels_in_canonical_terms_whatever_order_each_rater_saw(
    admin, physician_a, physician_b, inspector
):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                          tasks=["pairwise-preference"], kind="pair", inspect_all=True)
    a = assignment_claim_next(study=study, rater=physician_a)
    b = assignment_claim_next(study=study, rater=physician_b)
    Assignment.objects.filter(pk=a.pk).update(pair_order="ab")
    Assignment.objects.filter(pk=b.pk).update(pair_order="ba")
    a.refresh_from_db()
    b.refresh_from_db()
    # Both prefer item.response: physician_a saw it first ("A"), physician_b saw it second ("B").
    rating_submit(assignment=a, rater=physician_a, labels={"pairwise-preference|": {"label": "A"}}, seconds_spent=5)
    rating_submit(assignment=b, rater=physician_b, labels={"pairwise-preference|": {"label": "B"}}, seconds_spent=5)
    view = inspection_view(item=item_of(a))
    assert not view.fields[0].differs
    assert [c.label for c in view.fields[0].cells] == ["A", "A"]
    inspection_return(item=item_of(a), inspector=inspector, assignment=b, comment="Sure?")
    b.refresh_from_db()
    # The returned draft is in the order physician_b saw.
    assert b.draft["pairwise-preference|"]["label"] == "B"


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1)


@pytest.fixture
def disputed(study, physician_a, physician_b) -> Item:
    """Both raters submitted and disagree on every field, so the item awaits inspection."""
    claim_and_submit(study, physician_a, pick="first", comment="A thinks so", seconds_spent=42)
    claim_and_submit(study, physician_b, pick="last", comment="B disagrees", seconds_spent=42)
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
    assert page.count('<tr class="diff"') == len(item_fields(disputed))
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
    from accounts.models import Rank, Role
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
    claim_and_submit(study, physician_a, seconds_spent=42)
    claim_and_submit(study, physician_b, seconds_spent=42)
    item = study.items.get()
    response = inspect_and_confirm(login(client, inspector), item, {"action": "accept", "comment": "fine"})
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    assert FinalLabel.objects.filter(item=item, source=FinalLabel.Source.ACCEPTED).count() == len(
        item_fields(item)
    )


def test_it_adjudicates_with_a_reason_and_final_labels(client, disputed, inspector):
    fields = item_fields(disputed)
    data = {"action": "adjudicate", "reason": "Per guideline"}
    data.update({f"final:{f.id}": f.categories[0].value for f in fields})
    login(client, inspector)
    without_reason = client.post(reverse("annotation:inspect", args=[disputed.pk]), {**data, "reason": ""})
    assert without_reason.status_code == 400
    assert not FinalLabel.objects.exists()
    response = inspect_and_confirm(client, disputed, data)
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
    response = inspect_and_confirm(
        client, disputed, {"action": "return", "assignment": theirs.pk, "comment": "Re-read the history"},
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
    foreign = claim_and_submit(other_study, physician_a, seconds_spent=42)
    response = login(client, inspector).post(
        reverse("annotation:inspect", args=[disputed.pk]),
        {"action": "return", "assignment": foreign.pk, "comment": "x"},
    )
    assert response.status_code == 400
    foreign.refresh_from_db()
    assert foreign.state == Assignment.State.SUBMITTED


def test_it_keeps_the_inspection_pages_to_a_fixed_number_of_queries(
    client, admin, physician_a, physician_b, inspector, django_assert_num_queries
):
    small = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1,
                               inspect_all=True, name="Small")
    claim_and_submit(small, physician_a, seconds_spent=42)
    claim_and_submit(small, physician_b, seconds_spent=42)
    login(client, inspector)
    queue_small = count_queries(client, reverse("annotation:inspector_dashboard"))
    item_small = small.items.get()
    inspect_small = count_queries(client, reverse("annotation:inspect", args=[item_small.pk]))

    large = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=5,
                               inspect_all=True, name="Large")
    for _ in range(5):
        claim_and_submit(large, physician_a, seconds_spent=42)
        claim_and_submit(large, physician_b, seconds_spent=42)
    item_large = large.items.order_by("pk").last()
    inspection_accept(item=large.items.order_by("pk").first(), inspector=inspector)
    with django_assert_num_queries(queue_small):
        client.get(reverse("annotation:inspector_dashboard"))
    with django_assert_num_queries(inspect_small):
        client.get(reverse("annotation:inspect", args=[item_large.pk]))
