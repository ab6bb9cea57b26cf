"""What a physician can do when claiming: the dashboard, the next item, leases and their lapse,
eligibility, skipping, the pair order drawn for them, and what is left for them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse
from django.utils import timezone

from annotation.models import Assignment, Item, Rating, ReviewEvent
from annotation.rating.selectors import rater_queue
from annotation.rating.services.leases import lease_expire
from annotation.rating.services.queue import assignment_claim_next, assignment_skip
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from annotation.studies.services import study_close
from tests.annotation.builders import (
    claim_and_submit,
    labels_for,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login, make_user
from tests.factories import make_case, make_release, make_response

pytestmark = pytest.mark.django_db



def test_it_gives_each_item_at_most_raters_per_item_raters(admin, physician_a, physician_b, inspector):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b, inspector])
    first = assignment_claim_next(study=study, rater=physician_a)
    second = assignment_claim_next(study=study, rater=physician_b)
    assert first.item_id == second.item_id
    assert assignment_claim_next(study=study, rater=inspector) is None


def test_it_offers_an_item_another_rater_started_before_an_untouched_one(admin, physician_a, physician_b,
                                                                          inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b, inspector])
    skipped = assignment_claim_next(study=study, rater=physician_a)
    assignment_skip(assignment=skipped, rater=physician_a, reason="not my field")
    started = claim_and_submit(study, physician_a)
    assert started.item_id > skipped.item_id
    # The skipped item is untouched again (no slot held) and has the lower id: the started one comes first.
    assert assignment_claim_next(study=study, rater=physician_b).item_id == started.item_id
    assert Item.objects.get(pk=started.item_id).first_claimed_at is not None


def test_it_still_offers_a_started_item_that_lacks_its_first_claim_mark(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b])
    claim_and_submit(study, physician_a)
    # Labels written some other way (before the mark existed, or by a path that forgot it).
    Item.objects.filter(study=study).update(first_claimed_at=None)
    claimed = assignment_claim_next(study=study, rater=physician_b)
    assert claimed is not None and claimed.item.study_id == study.pk


def test_it_returns_the_raters_own_unfinished_item_first(admin, physician_a):
    make_cases(3)
    study = running_study(admin, raters=[physician_a])
    first = assignment_claim_next(study=study, rater=physician_a)
    again = assignment_claim_next(study=study, rater=physician_a)
    assert again.pk == first.pk
    assert Assignment.objects.filter(rater=physician_a).count() == 1


def test_it_frees_a_lapsed_lease_and_reuses_the_row_for_the_same_rater(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    assignment_save_draft(assignment=claim, rater=physician_a, draft={"narrative-quality|": {"label": "1"}},
                          seconds_spent=5)
    later = timezone.now() + timedelta(minutes=31)
    taken = assignment_claim_next(study=study, rater=physician_b, now=later)
    assert taken is not None and taken.item_id == claim.item_id
    claim.refresh_from_db()
    assert claim.state == Assignment.State.EXPIRED
    assert ReviewEvent.objects.filter(assignment=claim, kind=ReviewEvent.Kind.EXPIRED).exists()
    # The lapsed rater cannot submit into a slot someone else now holds.
    with pytest.raises(ValidationError, match="another rater took the slot"):
        rating_submit(assignment=claim, rater=physician_a, labels=labels_for(claim, "2"), seconds_spent=1, now=later)


def test_it_lets_the_same_rater_reclaim_a_lapsed_item_with_its_draft(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    assignment_save_draft(assignment=claim, rater=physician_a,
                          draft={"narrative-quality|": {"label": "1", "comment": "vague"}}, seconds_spent=5)
    later = timezone.now() + timedelta(hours=2)
    assert lease_expire(now=later) == 1
    again = assignment_claim_next(study=study, rater=physician_a, now=later)
    assert again.pk == claim.pk
    assert again.draft["narrative-quality|"]["comment"] == "vague"
    assert again.lease_expires_at > later


def test_it_revives_the_raters_expired_row_whether_or_not_its_item_carries_the_first_claim_mark(
        admin, physician_a, physician_b):
    make_cases(2)
    study = running_study(admin, raters=[physician_a, physician_b])
    claims = {}
    for marked in (True, False):
        claim = assignment_claim_next(study=study, rater=physician_a)
        assignment_save_draft(assignment=claim, rater=physician_a,
                              draft={"narrative-quality|": {"label": "1", "comment": "vague"}}, seconds_spent=5)
        later = timezone.now() + timedelta(hours=2)
        assert lease_expire(now=later) == 1
        if not marked:  # an item given out before the mark existed
            Item.objects.filter(pk=claim.item_id).update(first_claimed_at=None)
        again = assignment_claim_next(study=study, rater=physician_a, now=later)
        assert again.pk == claim.pk
        again.refresh_from_db()
        assert again.state == Assignment.State.DRAFT and again.lease_expires_at > later
        assert again.draft["narrative-quality|"]["comment"] == "vague"
        rating_submit(assignment=again, rater=physician_a, labels=labels_for(again, "2"), seconds_spent=9, now=later)
        claims[marked] = again.pk
    assert Assignment.objects.filter(pk__in=claims.values(), state=Assignment.State.SUBMITTED).count() == 2


def test_it_revives_a_lapsed_claim_expired_by_another_claim_meanwhile_as_a_live_one(admin, physician_a,
                                                                                       physician_b, monkeypatch):
    # The race PostgreSQL's concurrency test once met under load: the rater's lapsed claim is read,
    # another rater's claim expires it, then the rater's request locks the item. Reviving the stale
    # copy left the row expired with a fresh lease: a slot counting for nobody, and a refused submit.
    from annotation.models import Item

    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=2)
    claim = assignment_claim_next(study=study, rater=physician_a)
    later = timezone.now() + timedelta(hours=2)
    lock_item = Item.objects.select_for_update

    def expired_meanwhile(*args, **kwargs):
        Assignment.objects.filter(pk=claim.pk).update(state=Assignment.State.EXPIRED)
        monkeypatch.setattr(Item.objects, "select_for_update", lock_item)
        return lock_item(*args, **kwargs)

    monkeypatch.setattr(Item.objects, "select_for_update", expired_meanwhile)
    again = assignment_claim_next(study=study, rater=physician_a, now=later)
    assert again.pk == claim.pk
    assert Assignment.objects.get(pk=claim.pk).state == Assignment.State.CLAIMED
    other = assignment_claim_next(study=study, rater=physician_b, now=later)
    rating_submit(assignment=other, rater=physician_b, labels=labels_for(other, "2"), seconds_spent=5, now=later)
    rating_submit(assignment=again, rater=physician_a, labels=labels_for(again, "2"), seconds_spent=5, now=later)
    assert Assignment.objects.filter(item=claim.item, state=Assignment.State.SUBMITTED).count() == 2


def test_it_respects_specialty_and_language_eligibility(admin):
    release = make_release()
    make_case(release=release, language="zh")
    make_case(release=release, language="en")
    cardiologist = make_user("cardio", role="physician", specialties=["Cardiology"], languages=["en"])
    english_internist = make_user("internist", role="physician", specialties=["Internal Medicine"], languages=["en"])
    study = running_study(admin, raters=[cardiologist, english_internist],
                          required_specialties=["Internal Medicine"], required_languages=["en", "zh"])
    assert assignment_claim_next(study=study, rater=cardiologist) is None
    mine = assignment_claim_next(study=study, rater=english_internist)
    assert mine.item.revision.language == "en"
    rating_submit(assignment=mine, rater=english_internist, labels=labels_for(mine, "2"), seconds_spent=3)
    assert assignment_claim_next(study=study, rater=english_internist) is None


def test_it_refuses_claims_from_non_members_and_in_closed_studies(admin, physician_a, outsider):
    make_cases(2)
    study = running_study(admin, raters=[physician_a])
    with pytest.raises(PermissionDenied):
        assignment_claim_next(study=study, rater=outsider)
    study_close(study=study, actor=admin)
    assert assignment_claim_next(study=study, rater=physician_a) is None


def test_it_never_offers_a_skipped_item_again_and_frees_its_slot(admin, physician_a, physician_b):
    make_cases(1)
    study = running_study(admin, raters=[physician_a, physician_b], raters_per_item=1)
    claim = assignment_claim_next(study=study, rater=physician_a)
    with pytest.raises(ValidationError, match="reason"):
        assignment_skip(assignment=claim, rater=physician_a, reason=" ")
    assignment_skip(assignment=claim, rater=physician_a, reason="Outside my specialty")
    assert assignment_claim_next(study=study, rater=physician_a) is None
    assert assignment_claim_next(study=study, rater=physician_b).item_id == claim.item_id
    assert ReviewEvent.objects.get(kind=ReviewEvent.Kind.SKIPPED).reason == "Outside my specialty"


def test_it_sets_and_records_a_per_rater_pair_order(admin, physician_a, physician_b):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    study = running_study(admin, raters=[physician_a, physician_b], tasks=["pairwise-preference"], kind="pair")
    a = assignment_claim_next(study=study, rater=physician_a)
    assert a.pair_order in ("ab", "ba")
    assert ReviewEvent.objects.get(assignment=a, kind="claimed").data["pair_order"] == a.pair_order
    # A rater's "A" is whatever they saw first; it is stored against the item's own response A/B.
    rating_submit(assignment=a, rater=physician_a, labels={"pairwise-preference|": {"label": "A"}}, seconds_spent=9)
    stored = Rating.objects.get(assignment=a).label
    assert stored == ("A" if a.pair_order == "ab" else "B")


def test_it_keeps_a_lapsed_draft_writable_while_nobody_took_the_slot(admin, physician_a):
    make_cases(1)
    study = running_study(admin, raters=[physician_a], raters_per_item=1, lease_minutes=5)
    claim = assignment_claim_next(study=study, rater=physician_a)
    later = timezone.now() + timedelta(minutes=20)
    saved = assignment_save_draft(assignment=claim, rater=physician_a, draft={"narrative-quality|": {"label": "2"}},
                                  seconds_spent=600, now=later)
    assert saved.state == Assignment.State.DRAFT and saved.lease_expires_at == later + timedelta(minutes=5)
    done = rating_submit(assignment=saved, rater=physician_a, labels=labels_for(saved, "2"), seconds_spent=640,
                         now=later)
    assert done.state == Assignment.State.SUBMITTED


def test_it_counts_the_items_still_available_to_a_rater(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b, inspector])
    assert rater_queue(rater=physician_a).available == 3
    claim_and_submit(study, physician_a, "2")
    # physician_a rated one item; the other two are untouched.
    assert rater_queue(rater=physician_a).available == 2
    assignment_claim_next(study=study, rater=physician_b)
    # The item physician_a rated is now full for the inspector, who can still take the two others.
    assert rater_queue(rater=inspector).available == 2
    study_close(study=study, actor=admin)
    assert rater_queue(rater=inspector).available == 0


def test_it_expires_lapsed_leases_from_the_command_line(admin, physician_a):
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Assignment
    from annotation.rating.services.queue import assignment_claim_next
    from tests.annotation.builders import make_cases as cases

    cases(1)
    study = running_study(admin, raters=[physician_a])
    claim = assignment_claim_next(study=study, rater=physician_a)
    Assignment.objects.filter(pk=claim.pk).update(lease_expires_at=claim.lease_expires_at - timedelta(hours=1))
    out = StringIO()
    call_command("expire_leases", stdout=out)
    assert "1 lapsed" in out.getvalue()
    claim.refresh_from_db()
    assert claim.state == Assignment.State.EXPIRED


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(
        admin, [physician_a, physician_b], inspectors=[inspector], cases=2,
        guidelines="## Rating rules\n\n| Score | Meaning |\n|---|---|\n| 2 | Perfect |",
    )


def test_it_shows_my_studies_with_progress_and_next_button(client, study, physician_a):
    claim_and_submit(study, physician_a, seconds_spent=42)
    response = login(client, physician_a).get(reverse("annotation:physician_dashboard"))
    assert response.status_code == 200
    page = response.content.decode()
    assert study.name in page
    assert "<strong>1</strong> of 2 items done" in page
    assert reverse("annotation:next_item", args=[study.pk]) in page


def test_it_refuses_the_queue_to_a_researcher(client, researcher):
    assert login(client, researcher).get(reverse("annotation:physician_dashboard")).status_code == 403


def test_it_claims_the_next_item_and_opens_the_rating_screen(client, study, physician_a):
    response = login(client, physician_a).post(reverse("annotation:next_item", args=[study.pk]))
    assignment = Assignment.objects.get(rater=physician_a)
    assert response.status_code == 302
    assert response["Location"] == reverse("annotation:rate", args=[assignment.pk])


def test_it_says_nothing_is_left_when_every_item_is_rated(client, study, physician_a):
    claim_and_submit(study, physician_a, seconds_spent=42)
    claim_and_submit(study, physician_a, seconds_spent=42)
    response = login(client, physician_a).post(reverse("annotation:next_item", args=[study.pk]))
    assert response.status_code == 200
    assert "Nothing left to rate" in response.content.decode()


def test_it_skips_with_a_reason_and_refuses_without(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
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


def test_it_shows_an_outsider_an_empty_queue_without_other_studies(client, study, outsider):
    response = login(client, outsider).get(reverse("annotation:physician_dashboard"))
    assert response.status_code == 200
    page = response.content.decode()
    assert study.name not in page
    assert "not a rater in any study" in page


def test_it_sends_anonymous_visitors_to_sign_in_and_tells_scripts_401(client, study, physician_a):
    assignment = assignment_claim_next(study=study, rater=physician_a)
    page = client.get(reverse("annotation:rate", args=[assignment.pk]))
    assert page.status_code == 302 and page["Location"].startswith(reverse("login"))
    autosave = client.post(reverse("annotation:save_draft", args=[assignment.pk]), {}, HTTP_HX_REQUEST="true")
    assert autosave.status_code == 401
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.CLAIMED
