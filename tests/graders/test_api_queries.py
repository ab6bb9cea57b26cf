"""The graders API answers in a fixed number of queries: lists do not grow with the number of
configs or jobs, details do not grow with the size of the job."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from graders import services
from graders.models import GraderConfig, GradingJob
from tests.graders.conftest import make_config
from tests.graders.test_jobs import build_release


def _queries(api: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert api.get(url).status_code == 200
    return len(ctx.captured_queries)


def _start(config: GraderConfig, user: object, *, cases: int = 1) -> GradingJob:
    return services.grading_job_create(
        config=config, selection={"release": build_release(cases=cases).pk}, created_by=user
    )


@pytest.fixture
def api(admin) -> APIClient:
    client = APIClient()
    client.force_authenticate(admin)
    return client


def test_it_lists_configs_in_a_fixed_number_of_queries(api, rubric_config, fake_server, django_assert_num_queries):
    url = reverse("graders_api:config_list")
    one = _queries(api, url)
    for i in range(4):
        make_config(fake_server.base_url, name=f"Grader {i}")
    with django_assert_num_queries(one):
        assert len(api.get(url).json()) == 5


def test_it_lists_jobs_in_a_fixed_number_of_queries(
    api, admin, researcher, rubric_config, fake_server, django_assert_num_queries
):
    url = reverse("graders_api:job_list")
    _start(rubric_config, admin)
    one = _queries(api, url)
    for i in range(3):
        config = make_config(fake_server.base_url, name=f"Grader {i}")
        _start(config, researcher)
        _start(config, None)
    with django_assert_num_queries(one):
        body = api.get(url).json()
    assert len(body) == 7
    assert {job["created_by"] for job in body} == {"admin", "researcher", None}
    assert len({job["config_name"] for job in body}) == 4


def test_it_shows_one_config_or_job_in_a_fixed_number_of_queries(
    api, admin, rubric_config, fake_server, django_assert_num_queries
):
    small = _start(rubric_config, admin, cases=1)
    config_queries = _queries(api, reverse("graders_api:config_detail", args=[rubric_config.pk]))
    job_queries = _queries(api, reverse("graders_api:job_detail", args=[small.pk]))

    other = make_config(fake_server.base_url, name="Another grader")
    large = _start(other, admin, cases=6)
    assert large.total > small.total
    with django_assert_num_queries(config_queries):
        api.get(reverse("graders_api:config_detail", args=[other.pk]))
    with django_assert_num_queries(job_queries):
        api.get(reverse("graders_api:job_detail", args=[large.pk]))
