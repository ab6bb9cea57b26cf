"""Issue 21 and issue 22 (finding 2): a rater changes round 1 only while the item is still "open".

Once the item is in an inspector's queue, returned or decided, the page is read-only with the
reason, the edit API answers 409 with it and the service refuses under the item lock. A submitted
item opens read-only until the rater presses Edit (`?edit=1`); a revisit never says "Saved" for
labels the server does not hold.
"""

from __future__ import annotations

import random
import threading
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.urls import reverse

from annotation.inspection.selectors import inspection_view
from annotation.models import Assignment, Item, Rating, ReviewEvent
from annotation.rating.services.editing import assignment_save_edit_draft, edit_blocker, rating_edit
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
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
from tests.conftest import login, make_user

GOOD = {"narrative-quality": "2", "criterion-validity": "agree"}
POOR = {"narrative-quality": "0", "criterion-validity": "agree"}


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=2)


def _fresh(assignment: Assignment) -> Assignment:
    return Assignment.objects.select_related("item", "item__study").get(pk=assignment.pk)


def _stored(assignment: Assignment) -> dict[str, str]:
    return {f"{r.task.slug}|{r.field_key}": r.label for r in Rating.objects.filter(assignment=assignment)}


def test_it_refuses_an_edit_once_the_item_is_in_an_inspectors_queue(study, physician_a, physician_b):
    item, a, _b = disagree(study, physician_a, physician_b)
    a = _fresh(a)
    assert item.status == Item.Status.INSPECTION
    before = _stored(a)
    assert "inspector's queue" in edit_blocker(a)
    with pytest.raises(ConflictError, match="inspector's queue"):
        rating_edit(assignment=a, rater=physician_a, labels=labels_for(a, POOR))
    with pytest.raises(ConflictError, match="inspector's queue"):
        assignment_save_edit_draft(assignment=a, rater=physician_a, draft=labels_for(a, POOR))
    assert _stored(a) == before
    assert not ReviewEvent.objects.filter(kind=ReviewEvent.Kind.EDITED).exists()


def test_it_answers_409_with_the_reason_on_the_edit_api(study, physician_a, physician_b):
    _item, a, _b = disagree(study, physician_a, physician_b)
    a = _fresh(a)
    before = _stored(a)
    response = api_client_for(physician_a).post(
        api_url("edit", pk=a.pk), {"labels": labels_for(a, POOR), "seconds_spent": 5}, format="json")
    assert response.status_code == 409
    assert "inspector's queue" in response.json()["detail"]
    assert _stored(a) == before


def test_it_keeps_edits_as_review_events_while_the_item_is_open(study, physician_a):
    done = claim_and_submit(study, physician_a, GOOD)
    assert done.item.status == Item.Status.OPEN
    response = api_client_for(physician_a).post(
        api_url("edit", pk=done.pk), {"labels": labels_for(done, POOR), "seconds_spent": 5}, format="json")
    assert response.status_code == 200
    event = ReviewEvent.objects.get(kind=ReviewEvent.Kind.EDITED)
    assert event.data["changes"] == {"narrative-quality|": {"from": "2", "to": "0"}}


def test_it_shows_the_page_read_only_with_the_reason_once_inspection_opens(client, study, physician_a,
                                                                          physician_b):
    _item, a, _b = disagree(study, physician_a, physician_b)
    a = _fresh(a)
    login(client, physician_a)
    for url in (reverse("annotation:rate", args=[a.pk]), reverse("annotation:rate", args=[a.pk]) + "?edit=1"):
        page = client.get(url)
        html = page.content.decode()
        assert page.status_code == 200 and not page.context["editable"] and not page.context["can_edit"]
        assert "inspector&#x27;s queue" in html or "inspector's queue" in html
        assert 'id="edit-button"' not in html and "Save changes" not in html
        assert 'type="radio"' in html and html.count(" disabled>") >= html.count('type="radio"')


def test_it_refuses_a_page_edit_posted_after_the_item_left_open(client, study, physician_a, physician_b):
    done = claim_and_submit(study, physician_a, GOOD)
    login(client, physician_a)
    editing = client.get(reverse("annotation:rate", args=[done.pk]) + "?edit=1")
    assert editing.context["editing"]
    # Meanwhile the second rater disagrees: the item goes to the inspector's queue.
    b = assignment_claim_next(study=study, rater=physician_b)
    assert b.item_id == done.item_id
    rating_submit(assignment=b, rater=physician_b, labels=labels_for(b, POOR), seconds_spent=5)
    response = client.post(reverse("annotation:rate", args=[done.pk]), form_data(labels_for(done, POOR)))
    assert response.status_code == 409
    html = response.content.decode()
    assert "Not saved" in html and "inspector" in html
    assert _stored(done)["narrative-quality|"] == "2"
    shown = {row.id: row.label for g in response.context["groups"] for row in g.rows}
    assert shown["narrative-quality|"] == "2"  # the stored label, not the refused one


def test_it_opens_a_submitted_item_read_only_until_edit(client, study, physician_a):
    done = claim_and_submit(study, physician_a, GOOD)
    login(client, physician_a)
    url = reverse("annotation:rate", args=[done.pk])
    page = client.get(url)
    html = page.content.decode()
    assert not page.context["editable"] and page.context["can_edit"]
    assert 'id="edit-button"' in html and "Save changes" not in html
    assert html.count(" disabled>") >= html.count('type="radio"')
    edit = client.get(url + "?edit=1")
    assert edit.context["editable"] and edit.context["editing"] and "Save changes" in edit.content.decode()


def test_it_never_says_saved_on_a_revisit_for_an_unapplied_edit(client, study, physician_a):
    done = claim_and_submit(study, physician_a, GOOD)
    login(client, physician_a)
    kept = client.post(reverse("annotation:save_draft", args=[done.pk]), {"narrative-quality|": "0"})
    assert kept.status_code == 200 and "not applied" in kept.json()["notice"]
    page = client.get(reverse("annotation:rate", args=[done.pk]))
    html = page.content.decode()
    shown = {row.id: row.label for g in page.context["groups"] for row in g.rows}
    assert shown["narrative-quality|"] == "2" == _stored(done)["narrative-quality|"]
    assert "Saved at" not in html and "did not save the changes" in html
    edit = client.get(reverse("annotation:rate", args=[done.pk]) + "?edit=1")
    shown = {row.id: row.label for g in edit.context["groups"] for row in g.rows}
    assert shown["narrative-quality|"] == "0"
    assert "Saved at" not in edit.content.decode() and "not applied" in edit.content.decode()


# --- the race, on PostgreSQL -------------------------------------------------------------------------


ROUNDS = 8


def _race_once(study, rater_a, rater_b, outcomes: dict[str, int]) -> None:
    a = assignment_claim_next(study=study, rater=rater_a)
    b = assignment_claim_next(study=study, rater=rater_b)
    assert a.item_id == b.item_id
    a = rating_submit(assignment=a, rater=rater_a, labels=labels_for(a, GOOD), seconds_spent=5)
    seen: dict[str, str] = {}
    errors: list[BaseException] = []
    barrier = threading.Barrier(2)
    inspected = threading.Event()

    def edit() -> None:
        try:
            barrier.wait()
            # Anywhere from before B's submit to after the inspector's read.
            inspected.wait(timeout=random.random() / 10)
            rating_edit(assignment=a, rater=rater_a, labels=labels_for(a, POOR))
            outcomes["edited"] += 1
        except ConflictError:
            outcomes["refused"] += 1
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    def submit_and_inspect() -> None:
        try:
            barrier.wait()
            rating_submit(assignment=b, rater=rater_b, seconds_spent=5,
                          labels=labels_for(b, {**POOR, "narrative-quality": "1"}))
            item = Item.objects.get(pk=b.item_id)
            assert item.status == Item.Status.INSPECTION
            for field in inspection_view(item=item).fields:
                cell = next(c for c in field.cells if c.assignment.pk == a.pk)
                seen[field.field.id] = cell.first.label
            inspected.set()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=edit), threading.Thread(target=submit_and_inspect)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert errors == []
    assert _stored(a) == seen, "round 1 changed after the inspector read it"


@pytest.mark.django_db(transaction=True)
def test_it_never_changes_round_one_under_a_concurrent_inspector(postgres_only, admin):
    """Rater A edits while rater B's submit sends the item to the inspector, who then reads round 1:
    whatever the order, the labels the inspector read are the labels stored afterwards."""
    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    make_cases(ROUNDS)
    rater_a, rater_b = make_user("race_a", role="physician"), make_user("race_b", role="physician")
    study = running_study(admin, raters=[rater_a, rater_b], raters_per_item=2)
    outcomes = {"edited": 0, "refused": 0}
    for _ in range(ROUNDS):
        _race_once(study, rater_a, rater_b, outcomes)
    assert outcomes["edited"] + outcomes["refused"] == ROUNDS


def test_it_refuses_an_inspector_who_also_rates_rewriting_round_one(admin, physician_b):
    """Issue 22, finding 2: a user who is both inspector and rater of a study, whose disagreeing
    submit sent the item to inspection, cannot make round 1 agree through the edit API."""
    both = make_user("rater_inspector", role="inspector")
    study = make_running_study(admin, [both, physician_b], inspectors=[both], cases=1)
    item, mine, theirs = disagree(study, both, physician_b)
    theirs_labels = {f"{r.task.slug}|{r.field_key}": {"label": r.label, "comment": ""}
                     for r in Rating.objects.filter(assignment=theirs).select_related("task")}
    before = _stored(mine)
    response = api_client_for(both).post(api_url("edit", pk=mine.pk), {"labels": theirs_labels, "seconds_spent": 1},
                                         format="json")
    assert response.status_code == 409, response.content
    assert _stored(mine) == before != _stored(theirs)
    assert Item.objects.get(pk=item.pk).status == Item.Status.INSPECTION


def test_it_answers_a_busy_database_on_an_edit_with_503_and_keeps_the_stored_labels(study, physician_a,
                                                                                  monkeypatch):
    # Issue 21: the locked error comes after the ratings were changed; the edit's transaction undoes them.
    from django.db import OperationalError

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    done = claim_and_submit(study, physician_a, GOOD)
    before = _stored(done)
    monkeypatch.setattr(ReviewEvent.objects, "record", locked)
    response = api_client_for(physician_a).post(
        api_url("edit", pk=done.pk), {"labels": labels_for(done, POOR), "seconds_spent": 5}, format="json")
    assert response.status_code == 503 and response["Retry-After"] == "1", response.content
    assert "busy" in response.json()["detail"]
    assert _stored(done) == before and before["narrative-quality|"] == "2"
