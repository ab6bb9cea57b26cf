"""Every page and API route of the label tasks, consolidations and the pipeline table refuses an
anonymous caller; the table fails when a route is added without a row here."""

import pytest
from django.test import Client
from django.urls import get_resolver, reverse

# (route, method, takes a pk)
ROUTES = [
    ("labelling:task_list", "get", False), ("labelling:task_next", "post", True),
    ("labelling:task_inspection", "get", True), ("labelling:task_report", "get", True),
    ("labelling:unit", "get", True), ("labelling:unit_withdraw", "post", True), ("labelling:unit_inspect", "get", True),
    ("labelling_api:task_next", "post", True), ("labelling_api:task_report", "get", True),
    ("labelling_api:unit", "get", True), ("labelling_api:unit_answer", "post", True),
    ("labelling_api:unit_decide", "post", True),
    ("consolidation:list", "get", False), ("consolidation:detail", "get", True), ("consolidation:review", "post", True),
    ("consolidation:revise", "post", True), ("consolidation:approve", "post", True),
    ("consolidation:report", "get", True),
    ("consolidation_api:detail", "get", True), ("consolidation_api:review", "post", True),
    ("consolidation_api:report", "get", True),
]


def _names(namespace: str) -> set[str]:
    resolver = get_resolver().namespace_dict[namespace][1]
    return {f"{namespace}:{name}" for name in resolver.reverse_dict if isinstance(name, str)}


def test_it_lists_every_route() -> None:
    assert {r for r, _, _ in ROUTES} == set().union(*map(_names, ["labelling", "labelling_api", "consolidation",
                                                                  "consolidation_api"]))


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "method", "pk"), ROUTES)
def test_it_refuses_anonymous_callers(name: str, method: str, pk: bool) -> None:
    url = reverse(name, args=[1] if pk else [])
    response = getattr(Client(), method)(url)
    if name.split(":")[0].endswith("_api"):
        assert response.status_code in (401, 403)
    else:
        assert response.status_code in (302, 404) and (response.status_code == 404 or "/accounts/login/" in response["Location"])
