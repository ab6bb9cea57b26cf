"""The review API as an inspector uses it: the queue, side-by-side detail, accept, adjudicate, return."""

from __future__ import annotations

import json

import pytest

from annotation.models import Study
from tests.annotation.builders import (
    api_client_for,
    api_url,
    claim_and_submit,
    disagree,
    review_study,
)

pytestmark = pytest.mark.django_db

@pytest.fixture
def study(admin, physician_a, physician_b, inspector) -> Study:
    return review_study(admin, [physician_a, physician_b], [inspector])

def test_it_runs_inspection_through_the_api(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    client = api_client_for(inspector)
    queue = client.get(api_url("inspection_queue")).json()
    assert [i["id"] for i in queue["pending"]] == [item.pk]
    detail = client.get(api_url("inspection_detail", pk=item.pk)).json()
    narrative = detail["comparisons"][0]
    assert narrative["differs"] is True
    assert {c["rater"]: c["latest_label"] for c in narrative["cells"]} == {"physician_a": "2", "physician_b": "0"}
    assert any(e["kind"] == "sent_to_inspection" for e in detail["events"])
    refused = client.post(api_url("inspection_accept", pk=item.pk), {}, format="json")
    assert refused.status_code == 400 and "adjudicate" in json.dumps(refused.json())
    labels = {c["field"]["id"]: "agree" for c in detail["comparisons"][1:]} | {"narrative-quality|": "1"}
    done = client.post(api_url("inspection_adjudicate", pk=item.pk), {"labels": labels, "reason": "Minor omissions"},
                       format="json")
    assert done.status_code == 200, done.content
    assert done.json()["item_status"] == "resolved"


def test_it_accepts_after_a_revision(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    client = api_client_for(inspector)
    returned = client.post(api_url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "Re-read"},
                           format="json")
    assert returned.status_code == 200 and returned.json()["item_status"] == "returned"
    rater = api_client_for(physician_b)
    draft = rater.get(api_url("assignment_detail", pk=b.pk)).json()["assignment"]["draft"]
    assert draft["narrative-quality|"]["label"] == "0"
    labels = {fid: {"label": v["label"], "comment": v["comment"]} for fid, v in draft.items()}
    labels["narrative-quality|"]["label"] = "2"
    assert rater.post(api_url("submit", pk=b.pk), {"labels": labels, "seconds_spent": 5},
                      format="json").status_code == 200
    accepted = client.post(api_url("inspection_accept", pk=item.pk), {"comment": "Consensus"}, format="json")
    assert accepted.status_code == 200 and accepted.json()["item_status"] == "resolved"


def test_it_rejects_returning_an_assignment_of_another_item(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    other = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    response = api_client_for(inspector).post(api_url("inspection_return", pk=item.pk),
                                          {"assignment": other.pk, "comment": "x"}, format="json")
    assert response.status_code == 400


def test_it_hides_inspection_from_raters_and_other_studies_inspectors(study, physician_a, physician_b, outsider):
    item, a, b = disagree(study, physician_a, physician_b)
    from tests.conftest import make_user

    foreign_inspector = make_user("other_inspector", role="inspector")
    for user in (physician_a, outsider, foreign_inspector):
        client = api_client_for(user)
        assert client.get(api_url("inspection_detail", pk=item.pk)).status_code == 404
        assert client.post(api_url("inspection_accept", pk=item.pk), {}, format="json").status_code == 404
        assert client.post(api_url("inspection_adjudicate", pk=item.pk), {"labels": {}, "reason": "x"},
                           format="json").status_code == 404
        assert client.post(api_url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "x"},
                           format="json").status_code == 404
    assert api_client_for(foreign_inspector).get(api_url("inspection_queue")).json()["pending"] == []
