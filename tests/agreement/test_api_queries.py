"""The report API answers in a fixed number of queries, whatever the data size.

An uncached report costs: session, user, profile (role) and study (4), the label fingerprint (2: the
study's events and the grader outputs in one query, its members in another), and the report's reads (15: ratings with their lookups, grader decisions, judge scores, pairwise
judgements, runs, scales, raters, later rounds, the study's task kinds and its expert groups). A
cached one stops after the fingerprint.
"""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.agreement.builders import reliability_study
from tests.conftest import login

REPORT_QUERIES = 21
CACHED_QUERIES = 6


@pytest.fixture
def studies(physician_a, physician_b, inspector):
    small = reliability_study([physician_a, physician_b], n_cases=1, models=("m1",))
    large = reliability_study([physician_a, physician_b, inspector], n_cases=5, models=("m1", "m2", "m3"), n_runs=2)
    return small, large


@pytest.mark.parametrize(("name", "args"), [("study_report", ()), ("study_export", ("json",)),
                                            ("study_export", ("csv",)), ("study_export", ("tex",))])
def test_it_serves_a_report_in_a_fixed_number_of_queries(
    client, researcher, studies, django_assert_num_queries, name, args
):
    login(client, researcher)
    for data in studies:
        url = reverse(f"agreement_api:{name}", args=[data.study.pk, *args])
        cache.clear()
        with django_assert_num_queries(REPORT_QUERIES):
            assert client.get(url, {"stratify_by": "model"}).status_code == 200
        with django_assert_num_queries(CACHED_QUERIES):
            assert client.get(url, {"stratify_by": "model"}).status_code == 200


def test_pairwise_position_bias_costs_one_query_whatever_the_number_of_runs(
    client, researcher, physician_a, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from graders.models import GraderRun, PairwiseJudgement
    from tests.agreement.builders import make_study, response_item, with_pairwise_task
    from tests.factories import make_case, make_response

    study = with_pairwise_task(make_study())  # position bias is a pairwise table
    login(client, researcher)
    url = reverse("agreement_api:study_report", args=[study.pk])
    counts = []
    for n_runs in (1, 3):
        for r in range(n_runs):
            judge = GraderRun.objects.create(name=f"Judge {n_runs}.{r}", kind="pairwise-judge", grader_model="g")
            revision = make_case(narrative=f"pair {n_runs} {r}")
            first, second = make_response(revision, model_name="m1"), make_response(revision, model_name="m2")
            response_item(study, first)
            for order, verdict in (("ab", "A"), ("ba", "B")):
                PairwiseJudgement.objects.create(run=judge, response_a=first, response_b=second, order=order,
                                                 verdict=verdict)
        cache.clear()
        with CaptureQueriesContext(connection) as ctx:
            response = client.get(url)
        counts.append(len(ctx.captured_queries))
        rows = response.json()["tables"]["position_bias"]["rows"]
        assert len(rows) == GraderRun.objects.filter(kind="pairwise-judge").count()
        assert all(row["n_flips"] == 1 for row in rows)
    # One read of the judges' whole runs, not one per run.
    assert counts[0] == counts[1]
    cache.clear()
    with django_assert_num_queries(counts[0]):
        client.get(url)
