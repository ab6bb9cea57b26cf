"""Issue 20: what the inspection page stores is what the inspector meant. Accept, adjudicate and
return first show a summary of what will be stored (per field: the raters' labels -> the final
label, the reason) and store only once it is confirmed; a summary that no longer matches the item
is shown again, not stored; an inspector who rated the item sees no decision buttons."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotation.fields import item_fields
from annotation.models import Assignment, FinalLabel, Inspection, Item, ReviewEvent
from tests.annotation.builders import claim_and_submit, inspect_and_confirm, make_running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db


@pytest.fixture
def disputed(admin, physician_a, physician_b, inspector) -> Item:
    """narrative-quality (2 vs 0) and three criteria (agree vs disagree): every field differs."""
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1)
    claim_and_submit(study, physician_a, pick="first", comment="A thinks so")
    claim_and_submit(study, physician_b, pick="last", comment="B disagrees")
    item = study.items.get()
    assert item.status == Item.Status.INSPECTION
    return item


def _adjudication(item: Item, reason: str = "Guideline 4.2") -> dict[str, str]:
    data = {"action": "adjudicate", "reason": reason}
    data.update({f"final:{f.id}": f.categories[-1].value for f in item_fields(item)})
    return data


def test_an_adjudication_shows_what_will_be_stored_and_stores_nothing_yet(client, disputed, inspector):
    url = reverse("annotation:inspect", args=[disputed.pk])
    response = login(client, inspector).post(url, _adjudication(disputed))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'id="decision-summary"' in page and 'id="confirm-button"' in page
    summary = response.context["summary"]
    narrative = next(row for row in summary.rows if row.field_id == "narrative-quality|")
    assert [(rater, label) for rater, label in narrative.raters] == [("physician_a", "Perfect"), ("physician_b", "Poor")]
    assert narrative.final == "Poor" and narrative.reason == "Guideline 4.2"
    assert "Perfect" in page and "Poor" in page and "Guideline 4.2" in page
    disputed.refresh_from_db()
    assert disputed.status == Item.Status.INSPECTION
    assert not FinalLabel.objects.exists() and not Inspection.objects.exists()


def test_the_confirmed_adjudication_stores_exactly_the_summarised_labels(client, disputed, inspector):
    login(client, inspector)
    response = inspect_and_confirm(client, disputed, _adjudication(disputed))
    assert response.status_code == 302
    finals = {f"{fl.task.slug}|{fl.field_key}": fl.label for fl in FinalLabel.objects.filter(item=disputed)}
    assert finals == {f.id: f.categories[-1].value for f in item_fields(disputed)}
    assert set(FinalLabel.objects.values_list("reason", flat=True)) == {"Guideline 4.2"}


def test_a_summary_that_no_longer_matches_what_would_be_stored_is_shown_again(client, disputed, inspector):
    url = reverse("annotation:inspect", args=[disputed.pk])
    login(client, inspector)
    preview = client.post(url, _adjudication(disputed))
    digest = preview.context["summary"].digest
    # The confirm form comes back with another final label than the one summarised.
    tampered = {**_adjudication(disputed), "final:narrative-quality|": "2", "step": "confirm", "summary": digest}
    response = client.post(url, tampered)
    assert response.status_code == 409
    assert response.context["summary"].digest != digest
    assert not FinalLabel.objects.exists()


def test_going_back_from_the_summary_keeps_what_was_chosen(client, disputed, inspector):
    url = reverse("annotation:inspect", args=[disputed.pk])
    data = {**_adjudication(disputed, reason="Keep me"), "step": "edit"}
    response = login(client, inspector).post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Keep me" in page and 'id="adjudicate-form"' in page
    assert not FinalLabel.objects.exists()


def test_an_accept_is_summarised_then_stored(client, admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], inspect_all=True)
    claim_and_submit(study, physician_a)
    claim_and_submit(study, physician_b)
    item = study.items.get()
    url = reverse("annotation:inspect", args=[item.pk])
    preview = login(client, inspector).post(url, {"action": "accept", "comment": "All fine"})
    assert preview.status_code == 200 and not FinalLabel.objects.exists()
    rows = preview.context["summary"].rows
    assert len(rows) == len(item_fields(item)) and all(row.final for row in rows)
    assert inspect_and_confirm(client, item, {"action": "accept", "comment": "All fine"}).status_code == 302
    assert FinalLabel.objects.filter(item=item, source=FinalLabel.Source.ACCEPTED).count() == len(rows)


def test_a_return_is_summarised_with_the_annotator_and_the_fields_then_stored(client, disputed, inspector, physician_b):
    theirs = Assignment.objects.get(item=disputed, rater=physician_b)
    data = {"action": "return", "assignment": theirs.pk, "comment": "Re-read criterion 1",
            "fields": ["narrative-quality|"]}
    url = reverse("annotation:inspect", args=[disputed.pk])
    preview = login(client, inspector).post(url, data)
    assert preview.status_code == 200
    summary = preview.context["summary"]
    assert summary.returned_to == "physician_b"
    assert [row.field_id for row in summary.rows if row.marked] == ["narrative-quality|"]
    theirs.refresh_from_db()
    assert theirs.state == Assignment.State.SUBMITTED
    assert inspect_and_confirm(client, disputed, data).status_code == 302
    theirs.refresh_from_db()
    assert theirs.state == Assignment.State.RETURNED
    event = ReviewEvent.objects.get(kind=ReviewEvent.Kind.RETURNED)
    assert event.data["fields"] == ["narrative-quality|"]


def test_an_inspector_who_rated_the_item_sees_no_decision_buttons(client, admin, physician_a, inspector):
    study = make_running_study(admin, [physician_a, inspector], inspectors=[inspector], inspect_all=True)
    claim_and_submit(study, physician_a)
    claim_and_submit(study, inspector)
    item = Item.objects.get(study=study)
    page = login(client, inspector).get(reverse("annotation:inspect", args=[item.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    for button in ('id="accept-button"', 'id="adjudicate-button"', 'id="return-button"'):
        assert button not in text
    assert "You rated this item" in text
