"""The review API as a physician uses it: claim, save, submit, skip, the queue; other raters' endpoints 404."""

from __future__ import annotations

import pytest

from annotation.models import Rating, Study
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import (
    api_client_for,
    api_url,
    disagree,
    review_study,
    running_study,
)

pytestmark = pytest.mark.django_db

@pytest.fixture
def study(admin, physician_a, physician_b, inspector) -> Study:
    return review_study(admin, [physician_a, physician_b], [inspector])

def test_it_claims_saves_and_submits_through_the_api(study, physician_a):
    client = api_client_for(physician_a)
    claimed = client.post(api_url("claim_next", study_pk=study.pk))
    assert claimed.status_code == 200, claimed.content
    body = claimed.json()
    assignment_id = body["assignment"]["id"]
    field_ids = [f["id"] for f in body["fields"]]
    assert field_ids[0] == "narrative-quality|" and field_ids[1].startswith("criterion-validity|criterion:")
    assert body["fields"][0]["categories"][0]["label"] == "Perfect"
    assert body["item"]["narrative"].startswith("45-year-old")
    assert [c["points"] for c in body["item"]["criteria"]] == [8, 6, -5]

    draft = client.put(api_url("draft", pk=assignment_id),
                       {"draft": {"narrative-quality|": {"label": "1", "comment": "no temperature"}},
                        "seconds_spent": 12}, format="json")
    assert draft.status_code == 200, draft.content
    assert draft.json()["assignment"]["state"] == "draft"
    patched = client.patch(api_url("draft", pk=assignment_id),
                           {"draft": {field_ids[1]: {"label": "agree"}}, "seconds_spent": 15}, format="json")
    assert patched.status_code == 200
    detail = client.get(api_url("assignment_detail", pk=assignment_id)).json()
    assert detail["assignment"]["draft"]["narrative-quality|"]["comment"] == "no temperature"
    assert detail["assignment"]["draft"][field_ids[1]]["label"] == "agree"

    labels = {fid: {"label": "agree"} for fid in field_ids[1:]} | {"narrative-quality|": {"label": "1"}}
    submitted = client.post(api_url("submit", pk=assignment_id), {"labels": labels, "seconds_spent": 30},
                            format="json")
    assert submitted.status_code == 200, submitted.content
    assert submitted.json()["assignment"]["state"] == "submitted"
    assert Rating.objects.filter(assignment_id=assignment_id).count() == len(field_ids)


def test_it_answers_400_naming_the_field_for_a_label_off_the_scale(study, physician_a):
    client = api_client_for(physician_a)
    assignment_id = client.post(api_url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    response = client.post(api_url("submit", pk=assignment_id),
                           {"labels": {"narrative-quality|": {"label": "7"}}, "seconds_spent": 3}, format="json")
    assert response.status_code == 400
    assert "narrative-quality|" in response.json()
    assert not Rating.objects.exists()


def test_it_skips_with_a_reason(study, physician_a):
    client = api_client_for(physician_a)
    assignment_id = client.post(api_url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    assert client.post(api_url("skip", pk=assignment_id), {}, format="json").status_code == 400
    response = client.post(api_url("skip", pk=assignment_id), {"reason": "Not my field"}, format="json")
    assert response.status_code == 200 and response.json()["assignment"]["state"] == "skipped"


def test_it_says_when_nothing_is_left(admin, physician_a):
    study = running_study(admin, raters=[physician_a])
    body = api_client_for(physician_a).post(api_url("claim_next", study_pk=study.pk)).json()
    assert body["assignment"] is None and "Nothing left" in body["detail"]


def test_it_lists_my_queue_with_the_inspectors_revision_request(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    api_client_for(inspector).post(api_url("inspection_return", pk=item.pk),
                               {"assignment": b.pk, "comment": "Check the history again"}, format="json")
    body = api_client_for(physician_b).get(api_url("queue")).json()
    assert [x["id"] for x in body["returned"]] == [b.pk]
    assert body["returned"][0]["revision_request"] == "Check the history again"
    assert body["counts"]["returned"] == 1
    assert api_client_for(physician_b).get(api_url("queue") + f"?study={study.pk}").status_code == 200


def test_it_hides_rater_endpoints_from_other_physicians_and_outsiders(study, physician_a, physician_b, outsider):
    mine = assignment_claim_next(study=study, rater=physician_a)
    for user in (physician_b, outsider):
        client = api_client_for(user)
        assert client.get(api_url("assignment_detail", pk=mine.pk)).status_code == 404
        assert client.put(api_url("draft", pk=mine.pk), {"draft": {}, "seconds_spent": 1},
                          format="json").status_code == 404
        assert client.post(api_url("submit", pk=mine.pk), {"labels": {}, "seconds_spent": 1},
                           format="json").status_code == 404
        assert client.post(api_url("skip", pk=mine.pk), {"reason": "x"}, format="json").status_code == 404
    assert api_client_for(outsider).post(api_url("claim_next", study_pk=study.pk)).status_code == 404
    assert api_client_for(outsider).get(api_url("queue") + f"?study={study.pk}").status_code == 404


def _locked(*args, **kwargs):
    from django.db import OperationalError

    raise OperationalError("database is locked")


def test_it_answers_a_busy_database_on_submit_with_503_and_stores_nothing(study, physician_a, monkeypatch):
    # Issue 21: the API, like the page, answers "busy, try again" and never a 500; the locked error
    # comes after the ratings are written, so the service's transaction must have undone them.
    client = api_client_for(physician_a)
    body = client.post(api_url("claim_next", study_pk=study.pk)).json()
    assignment_id, field_ids = body["assignment"]["id"], [f["id"] for f in body["fields"]]
    labels = {fid: {"label": "agree"} for fid in field_ids[1:]} | {"narrative-quality|": {"label": "1"}}
    monkeypatch.setattr("annotation.rating.services.ratings.apply_policy", _locked)
    response = client.post(api_url("submit", pk=assignment_id), {"labels": labels, "seconds_spent": 30},
                           format="json")
    assert response.status_code == 503, response.content
    assert response["Retry-After"] == "1"
    assert response["Content-Type"] == "application/json"
    assert "busy" in response.json()["detail"] and "try again" in response.json()["detail"]
    assert not Rating.objects.filter(assignment_id=assignment_id).exists()
    assert Rating.objects.count() == 0
    from annotation.models import Assignment

    assert Assignment.objects.get(pk=assignment_id).state == Assignment.State.CLAIMED


def test_it_answers_a_busy_database_on_a_draft_save_with_503(study, physician_a, monkeypatch):
    client = api_client_for(physician_a)
    assignment_id = client.post(api_url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    monkeypatch.setattr("annotation.rating.api.assignment_save_draft", _locked)
    response = client.put(api_url("draft", pk=assignment_id),
                          {"draft": {"narrative-quality|": {"label": "1"}}, "seconds_spent": 3}, format="json")
    assert response.status_code == 503 and response["Retry-After"] == "1"


def test_it_still_answers_500_for_a_database_error_that_is_not_a_busy_one(study, physician_a, monkeypatch):
    from django.db import OperationalError

    def broken(*args, **kwargs):
        raise OperationalError("no such table: annotation_rating")

    client = api_client_for(physician_a)
    assignment_id = client.post(api_url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    monkeypatch.setattr("annotation.rating.api.assignment_save_draft", broken)
    with pytest.raises(OperationalError):
        client.put(api_url("draft", pk=assignment_id),
                   {"draft": {"narrative-quality|": {"label": "1"}}, "seconds_spent": 3}, format="json")
