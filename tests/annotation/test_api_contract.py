"""The review API's contract for everyone: study list and creation, progress, researchers read-only, 405s,
authentication and tokens, the OpenAPI schema, bounded queries, hot bodies equal to their serializers."""

from __future__ import annotations

import json

import pytest
from rest_framework.test import APIClient

from accounts.tokens import token_create
from annotation.models import Study
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import (
    api_client_for,
    api_url,
    claim_and_submit,
    disagree,
    make_cases,
    review_study,
    running_study,
)

pytestmark = pytest.mark.django_db

@pytest.fixture
def study(admin, physician_a, physician_b, inspector) -> Study:
    return review_study(admin, [physician_a, physician_b], [inspector])

def test_it_lists_studies_for_members_and_creates_them_for_admins(study, admin, physician_a, outsider, researcher):
    mine = api_client_for(physician_a).get(api_url("study_list")).json()
    assert [s["id"] for s in mine] == [study.pk] and mine[0]["my_roles"] == ["rater"]
    assert api_client_for(outsider).get(api_url("study_list")).json() == []
    assert len(api_client_for(researcher).get(api_url("study_list")).json()) == 1
    payload = {"name": "API study", "task_slugs": ["narrative-quality"], "kind": "case", "sample_n": 2,
               "raters": ["physician_a"], "start": True}
    created = api_client_for(admin).post(api_url("study_list"), payload, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["items"] == 2 and created.json()["status"] == "running"
    assert api_client_for(researcher).post(api_url("study_list"), payload, format="json").status_code == 403
    assert api_client_for(physician_a).post(api_url("study_list"), payload, format="json").status_code == 403
    bad = api_client_for(admin).post(api_url("study_list"), {**payload, "task_slugs": ["nope"]}, format="json")
    assert bad.status_code == 400 and "task_slugs" in bad.json()


def test_it_shows_progress_to_admins_inspectors_and_researchers_under_pseudonyms(
    study, admin, inspector, researcher, physician_a, outsider
):
    claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    as_admin = api_client_for(admin).get(api_url("study_progress", study_pk=study.pk))
    assert as_admin.status_code == 200
    assert {r["rater"] for r in as_admin.json()["per_rater"]} == {"physician_a", "physician_b"}
    assert api_client_for(inspector).get(api_url("study_progress", study_pk=study.pk)).status_code == 200
    as_researcher = api_client_for(researcher).get(api_url("study_progress", study_pk=study.pk)).json()
    assert {r["rater"] for r in as_researcher["per_rater"]} == {"R-physician_a", "R-physician_b"}
    assert api_client_for(outsider).get(api_url("study_progress", study_pk=study.pk)).status_code == 404
    assert api_client_for(physician_a).get(api_url("study_progress", study_pk=study.pk)).status_code == 404


def test_it_forbids_researchers_every_write(study, researcher, physician_a, physician_b):
    item, a, b = disagree(study, physician_a, physician_b)
    client = api_client_for(researcher)
    assert client.post(api_url("claim_next", study_pk=study.pk)).status_code == 403
    assert client.put(api_url("draft", pk=a.pk), {"draft": {}, "seconds_spent": 1}, format="json").status_code == 403
    assert client.post(api_url("submit", pk=a.pk), {"labels": {}, "seconds_spent": 1}, format="json").status_code == 403
    assert client.post(api_url("skip", pk=a.pk), {"reason": "x"}, format="json").status_code == 403
    assert client.post(api_url("inspection_accept", pk=item.pk), {}, format="json").status_code == 403
    assert client.post(api_url("inspection_adjudicate", pk=item.pk), {"labels": {}, "reason": "x"},
                       format="json").status_code == 403
    assert client.post(api_url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "x"},
                       format="json").status_code == 403
    assert client.get(api_url("queue")).status_code == 403
    assert client.get(api_url("inspection_queue")).status_code == 403


@pytest.mark.parametrize(
    ("name", "method", "kind"),
    [
        ("study_list", "delete", None), ("claim_next", "get", "study"), ("study_progress", "post", "study"),
        ("queue", "post", None), ("assignment_detail", "post", "assignment"), ("draft", "post", "assignment"),
        ("submit", "get", "assignment"), ("skip", "get", "assignment"), ("inspection_queue", "post", None),
        ("inspection_detail", "post", "item"), ("inspection_accept", "get", "item"),
        ("inspection_adjudicate", "get", "item"), ("inspection_return", "get", "item"),
    ],
)
def test_it_answers_405_to_wrong_methods(study, admin, name, method, kind):
    kwargs = {"study": {"study_pk": study.pk}, "assignment": {"pk": 1}, "item": {"pk": 1}}.get(kind, {})
    assert getattr(api_client_for(admin), method)(api_url(name, **kwargs)).status_code == 405


def test_it_requires_authentication_and_accepts_tokens(study, physician_a):
    assert APIClient().get(api_url("queue")).status_code in (401, 403)
    assert APIClient().post(api_url("claim_next", study_pk=study.pk)).status_code in (401, 403)
    _, key = token_create(user=physician_a)  # hashed, expiring (django-rest-knox)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    response = client.post(api_url("claim_next", study_pk=study.pk))
    assert response.status_code == 200 and response.json()["assignment"]["item"]
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert forged.get(api_url("queue")).status_code == 401
    physician_a.is_active = False
    physician_a.save()
    assert client.get(api_url("queue")).status_code == 401


def test_it_documents_every_review_endpoint_in_the_schema(admin):
    client = APIClient()
    client.force_login(admin)
    response = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    text = response.content.decode()
    for path in (
        "/api/review/studies/", "/api/review/studies/{study_pk}/next/", "/api/review/studies/{study_pk}/progress/",
        "/api/review/queue/", "/api/review/assignments/{id}/draft/", "/api/review/assignments/{id}/submit/",
        "/api/review/assignments/{id}/skip/", "/api/review/inspection/", "/api/review/inspection/items/{id}/",
        "/api/review/inspection/items/{id}/accept/", "/api/review/inspection/items/{id}/adjudicate/",
        "/api/review/inspection/items/{id}/return/",
    ):
        assert path in text, path


def test_it_answers_queue_progress_and_inspection_lists_in_a_bounded_number_of_queries(
    admin, physician_a, physician_b, inspector
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    make_cases(2)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])

    def counts() -> list[int]:
        out = []
        for user, name, kwargs in (
            (physician_a, "queue", {}), (admin, "study_progress", {"study_pk": study.pk}),
            (inspector, "inspection_queue", {}), (physician_a, "study_list", {}),
        ):
            client = api_client_for(user)
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(api_url(name, **kwargs)).status_code == 200
            out.append(len(ctx.captured_queries))
        return out

    disagree(study, physician_a, physician_b)
    small = counts()
    from annotation.studies.services import ItemSelection, study_add_items

    make_cases(6)
    study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin)
    for _ in range(3):
        disagree(study, physician_a, physician_b)
    claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    assignment_claim_next(study=study, rater=physician_a)
    assert counts() == small


def test_it_keeps_the_hot_response_bodies_identical_to_their_documented_serializers(study, physician_a):
    """Claim, draft and submit skip the output serializers for speed; the schema must stay true."""
    from rest_framework.renderers import JSONRenderer

    from annotation.rating.serializers import AssignmentEnvelopeSerializer, ClaimSerializer

    def through(serializer_class, body: dict) -> dict:
        return json.loads(JSONRenderer().render(serializer_class(body).data))

    client = api_client_for(physician_a)
    claimed = client.post(api_url("claim_next", study_pk=study.pk)).json()
    assert through(ClaimSerializer, claimed) == claimed
    a_id = claimed["assignment"]["id"]
    labels = {f["id"]: {"label": f["categories"][0]["value"], "comment": ""} for f in claimed["fields"]}
    saved = client.put(api_url("draft", pk=a_id), {"draft": labels, "seconds_spent": 3}, format="json").json()
    assert through(AssignmentEnvelopeSerializer, saved) == saved
    done = client.post(api_url("submit", pk=a_id), {"labels": labels, "seconds_spent": 4}, format="json").json()
    assert through(AssignmentEnvelopeSerializer, done) == done
    empty = api_client_for(physician_a)
    for _ in range(5):
        body = empty.post(api_url("claim_next", study_pk=study.pk)).json()
        if body["assignment"] is None:
            break
        ids = {f["id"]: {"label": f["categories"][0]["value"]} for f in body["fields"]}
        empty.post(api_url("submit", pk=body["assignment"]["id"]), {"labels": ids, "seconds_spent": 1}, format="json")
    assert body["assignment"] is None and through(ClaimSerializer, body) == body
