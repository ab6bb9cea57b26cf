"""The review API: every endpoint's success, wrong method, outsider 404, researcher 403 on writes,
blinding (no other rater's labels, no grader decisions, no model names), token auth, the schema."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from annotation.models import Assignment, Item, Rating, Study
from annotation.services import assignment_claim_next
from tests.annotation.test_services_fixtures import claim_and_submit, labels_for, make_cases, running_study
from tests.factories import make_case, make_grader_decisions, make_question_set, make_response

pytestmark = pytest.mark.django_db


def client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def study(admin, physician_a, physician_b, inspector) -> Study:
    make_cases(3)
    return running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector],
                         tasks=["narrative-quality", "criterion-validity"])


def url(name: str, **kwargs) -> str:
    return reverse(f"annotation_api:{name}", kwargs=kwargs)


def disagree(study, physician_a, physician_b) -> tuple[Item, Assignment, Assignment]:
    a = assignment_claim_next(study=study, rater=physician_a)
    b = assignment_claim_next(study=study, rater=physician_b)
    assert a.item_id == b.item_id
    from annotation.services import rating_submit

    def full(assignment, narrative, criterion):
        labels = labels_for(assignment, criterion)
        labels["narrative-quality|"] = {"label": narrative, "comment": f"note by {assignment.rater.username}"}
        return labels

    rating_submit(assignment=a, rater=physician_a, labels=full(a, "2", "agree"), seconds_spent=20)
    rating_submit(assignment=b, rater=physician_b, labels=full(b, "0", "agree"), seconds_spent=40)
    return Item.objects.get(pk=a.item_id), a, b


# --- rater flow ----------------------------------------------------------------------------------


def test_it_claims_saves_and_submits_through_the_api(study, physician_a):
    client = client_for(physician_a)
    claimed = client.post(url("claim_next", study_pk=study.pk))
    assert claimed.status_code == 200, claimed.content
    body = claimed.json()
    assignment_id = body["assignment"]["id"]
    field_ids = [f["id"] for f in body["fields"]]
    assert field_ids[0] == "narrative-quality|" and field_ids[1].startswith("criterion-validity|criterion:")
    assert body["fields"][0]["categories"][0]["label"] == "Perfect"
    assert body["item"]["narrative"].startswith("45-year-old")
    assert [c["points"] for c in body["item"]["criteria"]] == [8, 6, -5]

    draft = client.put(url("draft", pk=assignment_id),
                       {"draft": {"narrative-quality|": {"label": "1", "comment": "no temperature"}},
                        "seconds_spent": 12}, format="json")
    assert draft.status_code == 200, draft.content
    assert draft.json()["assignment"]["state"] == "draft"
    patched = client.patch(url("draft", pk=assignment_id),
                           {"draft": {field_ids[1]: {"label": "agree"}}, "seconds_spent": 15}, format="json")
    assert patched.status_code == 200
    detail = client.get(url("assignment_detail", pk=assignment_id)).json()
    assert detail["assignment"]["draft"]["narrative-quality|"]["comment"] == "no temperature"
    assert detail["assignment"]["draft"][field_ids[1]]["label"] == "agree"

    labels = {fid: {"label": "agree"} for fid in field_ids[1:]} | {"narrative-quality|": {"label": "1"}}
    submitted = client.post(url("submit", pk=assignment_id), {"labels": labels, "seconds_spent": 30},
                            format="json")
    assert submitted.status_code == 200, submitted.content
    assert submitted.json()["assignment"]["state"] == "submitted"
    assert Rating.objects.filter(assignment_id=assignment_id).count() == len(field_ids)


def test_it_answers_400_naming_the_field_for_a_label_off_the_scale(study, physician_a):
    client = client_for(physician_a)
    assignment_id = client.post(url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    response = client.post(url("submit", pk=assignment_id),
                           {"labels": {"narrative-quality|": {"label": "7"}}, "seconds_spent": 3}, format="json")
    assert response.status_code == 400
    assert "narrative-quality|" in response.json()
    assert not Rating.objects.exists()


def test_it_skips_with_a_reason(study, physician_a):
    client = client_for(physician_a)
    assignment_id = client.post(url("claim_next", study_pk=study.pk)).json()["assignment"]["id"]
    assert client.post(url("skip", pk=assignment_id), {}, format="json").status_code == 400
    response = client.post(url("skip", pk=assignment_id), {"reason": "Not my field"}, format="json")
    assert response.status_code == 200 and response.json()["assignment"]["state"] == "skipped"


def test_it_says_when_nothing_is_left(admin, physician_a):
    study = running_study(admin, raters=[physician_a])
    body = client_for(physician_a).post(url("claim_next", study_pk=study.pk)).json()
    assert body["assignment"] is None and "Nothing left" in body["detail"]


def test_it_lists_my_queue_with_the_inspectors_revision_request(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    client_for(inspector).post(url("inspection_return", pk=item.pk),
                               {"assignment": b.pk, "comment": "Check the history again"}, format="json")
    body = client_for(physician_b).get(url("queue")).json()
    assert [x["id"] for x in body["returned"]] == [b.pk]
    assert body["returned"][0]["revision_request"] == "Check the history again"
    assert body["counts"]["returned"] == 1
    assert client_for(physician_b).get(url("queue") + f"?study={study.pk}").status_code == 200


def test_it_lists_studies_for_members_and_creates_them_for_admins(study, admin, physician_a, outsider, researcher):
    mine = client_for(physician_a).get(url("study_list")).json()
    assert [s["id"] for s in mine] == [study.pk] and mine[0]["my_roles"] == ["rater"]
    assert client_for(outsider).get(url("study_list")).json() == []
    assert len(client_for(researcher).get(url("study_list")).json()) == 1
    payload = {"name": "API study", "task_slugs": ["narrative-quality"], "kind": "case", "sample_n": 2,
               "raters": ["physician_a"], "start": True}
    created = client_for(admin).post(url("study_list"), payload, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["items"] == 2 and created.json()["status"] == "running"
    assert client_for(researcher).post(url("study_list"), payload, format="json").status_code == 403
    assert client_for(physician_a).post(url("study_list"), payload, format="json").status_code == 403
    bad = client_for(admin).post(url("study_list"), {**payload, "task_slugs": ["nope"]}, format="json")
    assert bad.status_code == 400 and "task_slugs" in bad.json()


def test_it_shows_progress_to_admins_inspectors_and_researchers_under_pseudonyms(
    study, admin, inspector, researcher, physician_a, outsider
):
    claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    as_admin = client_for(admin).get(url("study_progress", study_pk=study.pk))
    assert as_admin.status_code == 200
    assert {r["rater"] for r in as_admin.json()["per_rater"]} == {"physician_a", "physician_b"}
    assert client_for(inspector).get(url("study_progress", study_pk=study.pk)).status_code == 200
    as_researcher = client_for(researcher).get(url("study_progress", study_pk=study.pk)).json()
    assert {r["rater"] for r in as_researcher["per_rater"]} == {"R-physician_a", "R-physician_b"}
    assert client_for(outsider).get(url("study_progress", study_pk=study.pk)).status_code == 404
    assert client_for(physician_a).get(url("study_progress", study_pk=study.pk)).status_code == 404


# --- inspector flow ------------------------------------------------------------------------------


def test_it_runs_inspection_through_the_api(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    client = client_for(inspector)
    queue = client.get(url("inspection_queue")).json()
    assert [i["id"] for i in queue["pending"]] == [item.pk]
    detail = client.get(url("inspection_detail", pk=item.pk)).json()
    narrative = detail["comparisons"][0]
    assert narrative["differs"] is True
    assert {c["rater"]: c["latest_label"] for c in narrative["cells"]} == {"physician_a": "2", "physician_b": "0"}
    assert any(e["kind"] == "sent_to_inspection" for e in detail["events"])
    refused = client.post(url("inspection_accept", pk=item.pk), {}, format="json")
    assert refused.status_code == 400 and "adjudicate" in json.dumps(refused.json())
    labels = {c["field"]["id"]: "agree" for c in detail["comparisons"][1:]} | {"narrative-quality|": "1"}
    done = client.post(url("inspection_adjudicate", pk=item.pk), {"labels": labels, "reason": "Minor omissions"},
                       format="json")
    assert done.status_code == 200, done.content
    assert done.json()["item_status"] == "resolved"


def test_it_accepts_after_a_revision(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    client = client_for(inspector)
    returned = client.post(url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "Re-read"},
                           format="json")
    assert returned.status_code == 200 and returned.json()["item_status"] == "returned"
    rater = client_for(physician_b)
    draft = rater.get(url("assignment_detail", pk=b.pk)).json()["assignment"]["draft"]
    assert draft["narrative-quality|"]["label"] == "0"
    labels = {fid: {"label": v["label"], "comment": v["comment"]} for fid, v in draft.items()}
    labels["narrative-quality|"]["label"] = "2"
    assert rater.post(url("submit", pk=b.pk), {"labels": labels, "seconds_spent": 5},
                      format="json").status_code == 200
    accepted = client.post(url("inspection_accept", pk=item.pk), {"comment": "Consensus"}, format="json")
    assert accepted.status_code == 200 and accepted.json()["item_status"] == "resolved"


def test_it_rejects_returning_an_assignment_of_another_item(study, physician_a, physician_b, inspector):
    item, a, b = disagree(study, physician_a, physician_b)
    other = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    response = client_for(inspector).post(url("inspection_return", pk=item.pk),
                                          {"assignment": other.pk, "comment": "x"}, format="json")
    assert response.status_code == 400


# --- access: 404 for outsiders, 403 for researchers, 405 for wrong methods ---------------------


def test_it_hides_rater_endpoints_from_other_physicians_and_outsiders(study, physician_a, physician_b, outsider):
    mine = assignment_claim_next(study=study, rater=physician_a)
    for user in (physician_b, outsider):
        client = client_for(user)
        assert client.get(url("assignment_detail", pk=mine.pk)).status_code == 404
        assert client.put(url("draft", pk=mine.pk), {"draft": {}, "seconds_spent": 1},
                          format="json").status_code == 404
        assert client.post(url("submit", pk=mine.pk), {"labels": {}, "seconds_spent": 1},
                           format="json").status_code == 404
        assert client.post(url("skip", pk=mine.pk), {"reason": "x"}, format="json").status_code == 404
    assert client_for(outsider).post(url("claim_next", study_pk=study.pk)).status_code == 404
    assert client_for(outsider).get(url("queue") + f"?study={study.pk}").status_code == 404


def test_it_hides_inspection_from_raters_and_other_studies_inspectors(study, physician_a, physician_b, outsider):
    item, a, b = disagree(study, physician_a, physician_b)
    from tests.conftest import make_user

    foreign_inspector = make_user("other_inspector", role="inspector")
    for user in (physician_a, outsider, foreign_inspector):
        client = client_for(user)
        assert client.get(url("inspection_detail", pk=item.pk)).status_code == 404
        assert client.post(url("inspection_accept", pk=item.pk), {}, format="json").status_code == 404
        assert client.post(url("inspection_adjudicate", pk=item.pk), {"labels": {}, "reason": "x"},
                           format="json").status_code == 404
        assert client.post(url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "x"},
                           format="json").status_code == 404
    assert client_for(foreign_inspector).get(url("inspection_queue")).json()["pending"] == []


def test_it_forbids_researchers_every_write(study, researcher, physician_a, physician_b):
    item, a, b = disagree(study, physician_a, physician_b)
    client = client_for(researcher)
    assert client.post(url("claim_next", study_pk=study.pk)).status_code == 403
    assert client.put(url("draft", pk=a.pk), {"draft": {}, "seconds_spent": 1}, format="json").status_code == 403
    assert client.post(url("submit", pk=a.pk), {"labels": {}, "seconds_spent": 1}, format="json").status_code == 403
    assert client.post(url("skip", pk=a.pk), {"reason": "x"}, format="json").status_code == 403
    assert client.post(url("inspection_accept", pk=item.pk), {}, format="json").status_code == 403
    assert client.post(url("inspection_adjudicate", pk=item.pk), {"labels": {}, "reason": "x"},
                       format="json").status_code == 403
    assert client.post(url("inspection_return", pk=item.pk), {"assignment": b.pk, "comment": "x"},
                       format="json").status_code == 403
    assert client.get(url("queue")).status_code == 403
    assert client.get(url("inspection_queue")).status_code == 403


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
    assert getattr(client_for(admin), method)(url(name, **kwargs)).status_code == 405


def test_it_requires_authentication_and_accepts_tokens(study, physician_a):
    assert APIClient().get(url("queue")).status_code in (401, 403)
    assert APIClient().post(url("claim_next", study_pk=study.pk)).status_code in (401, 403)
    token = Token.objects.create(user=physician_a)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(url("claim_next", study_pk=study.pk))
    assert response.status_code == 200 and response.json()["assignment"]["item"]
    forged = APIClient()
    forged.credentials(HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert forged.get(url("queue")).status_code == 401
    physician_a.is_active = False
    physician_a.save()
    assert client.get(url("queue")).status_code == 401


# --- blinding ------------------------------------------------------------------------------------


def test_it_never_shows_a_physician_another_raters_labels_or_grader_decisions(admin, physician_a, physician_b):
    revision = make_case(narrative="Chest pain for two hours.")
    response = make_response(revision, model_name="secret-model-7b", text="Call an ambulance.")
    make_grader_decisions(response, ["met", "not_met", "met"])
    study = running_study(admin, raters=[physician_a, physician_b], tasks=["grader-reliability", "likert-medic"],
                          kind="response")
    first = assignment_claim_next(study=study, rater=physician_a)
    labels = labels_for(first, "met")
    for key in labels:
        if key.startswith("likert-medic"):
            labels[key] = {"label": "4", "comment": "MARKER-COMMENT-A"}
    from annotation.services import rating_submit

    rating_submit(assignment=first, rater=physician_a, labels=labels, seconds_spent=11)
    client = client_for(physician_b)
    bodies = [client.post(url("claim_next", study_pk=study.pk)).content]
    second_id = json.loads(bodies[0])["assignment"]["id"]
    bodies.append(client.get(url("assignment_detail", pk=second_id)).content)
    bodies.append(client.get(url("queue")).content)
    bodies.append(client.get(url("study_list")).content)
    bodies.append(client.put(url("draft", pk=second_id), {"draft": {}, "seconds_spent": 1}, format="json").content)
    text = b"".join(bodies).decode()
    assert "MARKER-COMMENT-A" not in text
    assert "secret-model-7b" not in text
    assert "not_met" not in text.replace('"value":"not_met"', "")
    assert "Call an ambulance." in text


def test_it_shows_a_pair_in_the_raters_own_order_without_model_names(admin, physician_a):
    revision = make_case()
    make_response(revision, model_name="model-left", text="RESPONSE-ONE")
    make_response(revision, model_name="model-right", text="RESPONSE-TWO")
    study = running_study(admin, raters=[physician_a], tasks=["pairwise-preference"], kind="pair")
    body = client_for(physician_a).post(url("claim_next", study_pk=study.pk)).json()
    shown = [r["text"] for r in body["item"]["responses"]]
    expected = ["RESPONSE-ONE", "RESPONSE-TWO"]
    assert shown == (expected if body["assignment"]["pair_order"] == "ab" else expected[::-1])
    assert "model-left" not in json.dumps(body)


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
            client = client_for(user)
            with CaptureQueriesContext(connection) as ctx:
                assert client.get(url(name, **kwargs)).status_code == 200
            out.append(len(ctx.captured_queries))
        return out

    disagree(study, physician_a, physician_b)
    small = counts()
    from annotation.services import ItemSelection, study_add_items

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

    from annotation.serializers import AssignmentEnvelopeSerializer, ClaimSerializer

    def through(serializer_class, body: dict) -> dict:
        return json.loads(JSONRenderer().render(serializer_class(body).data))

    client = client_for(physician_a)
    claimed = client.post(url("claim_next", study_pk=study.pk)).json()
    assert through(ClaimSerializer, claimed) == claimed
    a_id = claimed["assignment"]["id"]
    labels = {f["id"]: {"label": f["categories"][0]["value"], "comment": ""} for f in claimed["fields"]}
    saved = client.put(url("draft", pk=a_id), {"draft": labels, "seconds_spent": 3}, format="json").json()
    assert through(AssignmentEnvelopeSerializer, saved) == saved
    done = client.post(url("submit", pk=a_id), {"labels": labels, "seconds_spent": 4}, format="json").json()
    assert through(AssignmentEnvelopeSerializer, done) == done
    empty = client_for(physician_a)
    for _ in range(5):
        body = empty.post(url("claim_next", study_pk=study.pk)).json()
        if body["assignment"] is None:
            break
        ids = {f["id"]: {"label": f["categories"][0]["value"]} for f in body["fields"]}
        empty.post(url("submit", pk=body["assignment"]["id"]), {"labels": ids, "seconds_spent": 1}, format="json")
    assert body["assignment"] is None and through(ClaimSerializer, body) == body


@pytest.mark.parametrize(
    ("task", "sees_answer"), [("mcq-solvability", False), ("mcq-factual", True)]
)
def test_it_shows_the_answer_key_only_to_factual_validation(admin, physician_a, task, sees_answer):
    # LiveClin: solvability is judged on what an examinee sees; factual validation sees the source.
    make_question_set()
    study = running_study(admin, raters=[physician_a], tasks=[task], kind="question_set", dataset="LiveClin")
    body = client_for(physician_a).post(url("claim_next", study_pk=study.pk)).json()
    mcqs = body["item"]["question_set"]["mcqs"]
    assert [m["correct_answer"] for m in mcqs] == (["A", "A"] if sees_answer else [None, None])
