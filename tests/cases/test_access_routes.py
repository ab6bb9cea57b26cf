"""Every page and API route of the cases app checks access: a table of routes and the answer each
persona gets, and a test that fails when a route is added without a row here."""

from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import get_resolver, reverse
from rest_framework.test import APIClient

from cases import services
from cases.models import ImportJob, Taxonomy
from tests.cases.test_api import FIXTURES
from tests.conftest import login
from tests.factories import make_case


@dataclass(frozen=True)
class Route:
    name: str
    method: str
    obj: str | None  # which object the route takes: "release", "case", "job", "taxonomy" or None
    outsider: int  # a physician: no benchmark data, no imports
    researcher: int  # read-only on benchmark data, no imports


ROUTES = [
    Route("cases:release_list", "get", None, 403, 200),
    Route("cases:release_detail", "get", "release", 404, 200),
    Route("cases:case_detail", "get", "case", 404, 200),
    Route("cases:import_upload", "get", None, 403, 403),
    Route("cases:import_job", "get", "job", 404, 404),
    Route("cases:import_job_progress", "get", "job", 404, 404),
    Route("cases:import_confirm", "post", "job", 404, 403),
    Route("cases_api:dataset_list", "get", None, 403, 200),
    Route("cases_api:import", "post", None, 403, 403),
    # Taxonomies are reference data every role labels with (a physician's level pickers).
    Route("cases_api:taxonomy_list", "get", None, 200, 200),
    Route("cases_api:taxonomy_nodes", "get", "taxonomy", 200, 200),
]


def _route_names(namespace: str) -> set[str]:
    resolver = get_resolver().namespace_dict[namespace][1]
    return {f"{namespace}:{name}" for name in resolver.reverse_dict if isinstance(name, str)}


def test_the_table_lists_every_cases_route() -> None:
    assert {r.name for r in ROUTES} == _route_names("cases") | _route_names("cases_api")


@pytest.fixture
def objects(admin) -> dict[str, int]:
    revision = make_case()
    job = services.import_job_create(
        user=admin, fmt="livemedbench", data=(FIXTURES / "livemedbench_cases.json").read_bytes(),
        file_name="cases.json", dataset_name="LiveMedBench", release_label="v1",
    )
    taxonomy = Taxonomy.objects.create(key="small", version="1", name="Small", sha256="0" * 64)
    return {"release": revision.release_id, "case": revision.case_id, "job": job.pk, "taxonomy": taxonomy.pk}


def _call(client: Client, route: Route, pk: int | None) -> int:
    url = reverse(route.name, args=[pk] if pk is not None else [])
    return getattr(client, route.method)(url).status_code


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_it_answers_outsiders_and_the_read_only_role_as_the_table_says(
    client: Client, route: Route, objects, outsider, researcher
) -> None:
    pk = objects[route.obj] if route.obj else None
    assert _call(login(client, outsider), route, pk) == route.outsider
    assert _call(login(client, researcher), route, pk) == route.researcher
    assert ImportJob.objects.get().status == ImportJob.Status.VALIDATED  # nobody confirmed it


@pytest.mark.django_db
@pytest.mark.parametrize("route", [r for r in ROUTES if r.obj], ids=lambda r: r.name)
def test_it_answers_404_for_an_object_that_does_not_exist(client: Client, route: Route, admin) -> None:
    assert _call(login(client, admin), route, 424242) == 404


@pytest.mark.django_db
@pytest.mark.parametrize("route", [r for r in ROUTES if r.name.startswith("cases_api:")], ids=lambda r: r.name)
def test_it_answers_anonymous_api_callers_401_or_403(route: Route) -> None:
    assert _call(APIClient(), route, 1 if route.obj else None) in (401, 403)
