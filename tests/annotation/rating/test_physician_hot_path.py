"""What a physician's every step costs the database (issue 26): claim, draft, submit through the API
with a token, and submit-and-next on the page, each a fixed number of queries however far the rater
is into the study."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.tokens import token_create
from annotation.models import Assignment
from tests.annotation.builders import (
    api_url,
    claim_and_submit,
    form_data,
    labels_for,
    make_running_study,
)
from tests.conftest import login

pytestmark = pytest.mark.django_db

# With the verified token cached (the second request of a token onwards). The claim was 16 until
# the rater's membership lock also told whether they are in calibration and whether the study has
# expert groups (two queries fewer); the first claim of an item then marks it given out (one more,
# which spares the next claims from counting the slots of every open item).
CLAIM_QUERIES = 15
DRAFT_QUERIES = 10
SUBMIT_QUERIES = 13
# Another rater's claim of that item: found by the first look (started items) and not marked again.
SECOND_CLAIM_QUERIES = CLAIM_QUERIES - 2
# A server process also keeps the study's tasks and scales (STUDY_TASKS_CACHE_SECONDS): two queries
# fewer on each step once one request has read them.
TASKS_QUERIES = 2
# The page: session, user and profile; the submit; the claim of the next item; its page (was 47
# before issue 27: the labels were saved as a draft in a transaction of their own first; 40 since
# the undo bar names its item by title with the case loaded in the same query, issue 21; 38 since
# the page's case and dataset come with its assignment; 36 since the claim reads calibration and expert
# groups with the rater's membership lock; 37 with the next item's first claim marked on it).
SUBMIT_AND_NEXT_QUERIES = 37


def _verified_token_client(user) -> APIClient:
    """An API client with the user's token, verified once (so it is in the process's token cache)."""
    _, key = token_create(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    api.get(api_url("queue"))
    return api


def _step_queries(api: APIClient, study) -> tuple[int, int, int]:
    """(claim, draft, submit) queries of one item through the API."""
    with CaptureQueriesContext(connection) as claim:
        body = api.post(api_url("claim_next", study_pk=study.pk)).json()
    labels = {f["id"]: {"label": f["categories"][0]["value"], "comment": ""} for f in body["fields"]}
    assignment = body["assignment"]["id"]
    with CaptureQueriesContext(connection) as draft:
        response = api.put(api_url("draft", pk=assignment), {"draft": dict(list(labels.items())[:2]),
                                                           "seconds_spent": 5}, format="json")
        assert response.status_code == 200, response.content
    with CaptureQueriesContext(connection) as submit:
        response = api.post(api_url("submit", pk=assignment), {"labels": labels, "seconds_spent": 9}, format="json")
        assert response.status_code == 200, response.content
    return len(claim.captured_queries), len(draft.captured_queries), len(submit.captured_queries)


def test_it_claims_drafts_and_submits_in_a_fixed_number_of_queries(token_cache, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=12)
    api = _verified_token_client(physician_a)
    first = _step_queries(api, study)
    for _ in range(6):
        claim_and_submit(study, physician_a)
    later = _step_queries(api, study)
    assert first == later == (CLAIM_QUERIES, DRAFT_QUERIES, SUBMIT_QUERIES)


def test_it_claims_an_item_another_rater_started_without_marking_it_again(token_cache, admin, physician_a,
                                                                          physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=12)
    first = claim_and_submit(study, physician_a)
    api = _verified_token_client(physician_b)
    with CaptureQueriesContext(connection) as claim:
        body = api.post(api_url("claim_next", study_pk=study.pk)).json()
    assert body["assignment"]["item"] == first.item_id
    assert len(claim.captured_queries) == SECOND_CLAIM_QUERIES


def test_it_spends_no_query_on_the_studys_tasks_within_the_process_window(token_cache, tasks_cache, admin,
                                                                          physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=12)
    api = _verified_token_client(physician_a)
    _step_queries(api, study)  # the tasks read once
    assert _step_queries(api, study) == (
        CLAIM_QUERIES - TASKS_QUERIES, DRAFT_QUERIES - TASKS_QUERIES, SUBMIT_QUERIES - TASKS_QUERIES)


def test_it_submits_and_shows_the_next_item_in_a_fixed_number_of_queries(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=12)
    login(client, physician_a)

    def submit_and_next() -> int:
        from annotation.rating.services.queue import assignment_claim_next

        assignment = assignment_claim_next(study=study, rater=physician_a)
        data = form_data(labels_for(assignment))
        with CaptureQueriesContext(connection) as ctx:
            response = client.post(reverse("annotation:submit_and_next", args=[assignment.pk]), data,
                                   HTTP_HX_REQUEST="true")
        assert response.status_code == 200, response.content[:300]
        assert Assignment.objects.get(pk=assignment.pk).state == Assignment.State.SUBMITTED
        return len(ctx.captured_queries)

    first = submit_and_next()
    for _ in range(6):
        claim_and_submit(study, physician_a)
    later = submit_and_next()
    assert first == later == SUBMIT_AND_NEXT_QUERIES


def test_it_reads_the_raters_latest_work_from_an_index_however_much_they_have_done(postgres_only, admin,
                                                                                     physician_a, physician_b):
    # The page's list of done items (the newest 15) and the undo bar's last submission: one index in
    # their order lets them read the rater's newest entries, where a sort takes all of the rater's
    # work joined to every case revision, and grew with the rater's history (2.9 ms at 1,000 items,
    # docs/performance.md). A test database is too small for the planner to prefer any index, and
    # what it prefers depends on the tests before this one, so scans without an order and sorts are
    # priced out: what is checked is that the index serves the order (without it, a sort remains).
    from annotation.rating.selectors import rater_queue_on_screen
    from annotation.rating.services.editing import last_editable_submission

    study = make_running_study(admin, [physician_a, physician_b], cases=20)
    for _ in range(20):
        claim_and_submit(study, physician_a)
    with CaptureQueriesContext(connection) as page:
        queue = rater_queue_on_screen(rater=physician_a, study=study)
        last = last_editable_submission(study=study, rater=physician_a)
    assert len(queue.done) == 15
    assert last == Assignment.objects.filter(rater=physician_a, state=Assignment.State.SUBMITTED).latest(
        "submitted_at", "pk")  # the newest submission, as when it was ordered by its time alone
    plans = {}
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the statistics autovacuum keeps on a live database
        off = ("enable_seqscan", "enable_bitmapscan", "enable_sort")
        for setting in off:
            cursor.execute(f"SET {setting} = off")
        try:
            for query in page.captured_queries:
                cursor.execute(f"EXPLAIN {query['sql']}")
                plans[query["sql"]] = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            for setting in off:
                cursor.execute(f"RESET {setting}")
    done = [plan for sql, plan in plans.items() if "COALESCE" in sql and sql.endswith("LIMIT 15")]
    latest = [plan for sql, plan in plans.items() if "COALESCE" in sql and sql.endswith("LIMIT 1")]
    assert len(done) == len(latest) == 1
    for plan in (done[0], latest[0]):
        assert "assignment_rater_latest_idx" in plan and "Sort" not in plan, plan
