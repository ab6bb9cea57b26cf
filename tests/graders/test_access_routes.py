"""Every grader page and API route checks access: a table of routes and the answer each persona
gets, and a test that fails when a route is added without a row here.

Physicians (and inspectors) get 403 everywhere: raters must never see grader output before
inspection. Researchers start and steer jobs but only read configs (the read-only role there).
"""

from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

from graders import services
from graders.models import GraderConfig, GradingJob, JobStatus
from tests.conftest import login
from tests.graders.test_jobs import build_release


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    obj: str | None  # "config", "job" or None
    outsider: int
    researcher: int


ROUTES = [
    Route("graders:job_list", "get", None, 403, 200),
    Route("graders:job_create", "get", None, 403, 200),
    Route("graders:job_detail", "get", "job", 403, 200),
    Route("graders:job_progress", "get", "job", 403, 200),
    Route("graders:job_cancel", "post", "job", 403, 302),
    Route("graders:job_resume", "post", "job", 403, 302),
    Route("graders:job_retry_failed", "post", "job", 403, 302),
    Route("graders:config_list", "get", None, 403, 403),
    Route("graders:config_create", "get", None, 403, 403),
    Route("graders:config_create", "post", None, 403, 403),
    Route("graders:config_edit", "get", "config", 403, 403),
    Route("graders:config_edit", "post", "config", 403, 403),
    Route("graders_api:config_list", "get", None, 403, 200),
    Route("graders_api:config_list", "post", None, 403, 403),
    Route("graders_api:config_detail", "get", "config", 403, 403),
    Route("graders_api:config_detail", "patch", "config", 403, 403),
    Route("graders_api:config_detail", "delete", "config", 403, 403),
    Route("graders_api:job_list", "get", None, 403, 200),
    Route("graders_api:job_list", "post", None, 403, 400),  # allowed; the empty body is refused
    Route("graders_api:job_detail", "get", "job", 403, 200),
    Route("graders_api:job_cancel", "post", "job", 403, 200),
    Route("graders_api:job_resume", "post", "job", 403, 409),  # allowed; a queued job cannot resume
]


def _route_names(namespace: str) -> set[str]:
    resolver = get_resolver().namespace_dict[namespace][1]
    return {f"{namespace}:{name}" for name in resolver.reverse_dict if isinstance(name, str)}


def test_the_table_lists_every_grader_route() -> None:
    assert {r.name for r in ROUTES} == _route_names("graders") | _route_names("graders_api")


@pytest.fixture
def objects(rubric_config: GraderConfig) -> dict[str, int]:
    job = services.grading_job_create(config=rubric_config, selection={"release": build_release().pk}, created_by=None)
    return {"config": rubric_config.pk, "job": job.pk}


def _call(client: Client, route: Route, pk: int | None) -> int:
    url = reverse(route.name, args=[pk] if pk is not None else [])
    return getattr(client, route.method)(url, content_type="application/json").status_code


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: f"{r.method} {r.name}")
def test_it_answers_physicians_and_the_read_only_role_as_the_table_says(
    client: Client, route: Route, objects, outsider, inspector, researcher
) -> None:
    pk = objects[route.obj] if route.obj else None
    assert _call(login(client, outsider), route, pk) == route.outsider
    assert _call(login(client, inspector), route, pk) == route.outsider
    assert _call(login(client, researcher), route, pk) == route.researcher
    assert GraderConfig.objects.count() == 1  # nobody but an admin created or deleted a grader
    if route.researcher == 403:
        assert GradingJob.objects.get().status == JobStatus.QUEUED


@pytest.mark.parametrize("route", [r for r in ROUTES if r.obj], ids=lambda r: f"{r.method} {r.name}")
def test_it_answers_404_for_an_object_that_does_not_exist(client: Client, route: Route, admin, objects) -> None:
    assert _call(login(client, admin), route, 424242) == 404
