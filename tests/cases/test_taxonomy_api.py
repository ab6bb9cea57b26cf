"""The taxonomy API the level pickers read: every role may read it, it filters by level, parent and
search, and it never carries an AI label."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from cases.models import Taxonomy, TaxonomyNode
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.services import taxonomy_load


@pytest.fixture
def taxonomy(db) -> Taxonomy:
    path = builtin_file("liveclin")
    taxonomy_load(data=path.read_bytes(), file_name=path.name)
    return Taxonomy.objects.get()


def nodes(api: APIClient, taxonomy: Taxonomy, **params):
    return api.get(reverse("cases_api:taxonomy_nodes", args=[taxonomy.pk]), params)


@pytest.fixture
def api(physician_a) -> APIClient:
    client = APIClient()
    client.force_authenticate(physician_a)
    return client


def test_it_lists_taxonomies_with_their_levels_to_a_physician(api: APIClient, taxonomy: Taxonomy) -> None:
    response = api.get(reverse("cases_api:taxonomy_list"))
    assert response.status_code == 200
    [listed] = response.json()
    assert (listed["key"], listed["version"], listed["counts"]) == ("liveclin", "2025", {"1": 16, "2": 72, "3": 1362})
    assert [level["name_zh"] for level in listed["levels"]] == ["ICD-10 章", "疾病簇", "ICD-10 编码"]


def test_it_offers_a_level_then_the_children_of_a_choice(api: APIClient, taxonomy: Taxonomy) -> None:
    chapters = nodes(api, taxonomy, level=1).json()
    assert [c["code"] for c in chapters][:3] == ["1", "2", "3"] and len(chapters) == 16
    neoplasms = next(c for c in chapters if c["code"] == "2")
    clusters = nodes(api, taxonomy, parent=neoplasms["id"]).json()
    assert len(clusters) == 14 and clusters[3]["code"] == "C40-C41"
    codes = nodes(api, taxonomy, parent=clusters[3]["id"]).json()
    assert [(c["code"], c["level"]) for c in codes] == [("C40", 3), ("C41", 3)]
    assert set(codes[0]) == {"id", "level", "code", "name", "name_zh", "parent", "code_range"}


@pytest.mark.parametrize(("params", "expected"), [
    ({"level": 2, "q": "bone"}, "C40-C41"),
    ({"level": 2, "q": "骨和关节"}, "C40-C41"),
    ({"level": 3, "q": "C41"}, "C41"),
])
def test_it_searches_codes_and_names_in_both_languages(api, taxonomy, params, expected) -> None:
    found = [n["code"] for n in nodes(api, taxonomy, **params).json()]
    assert expected in found


def test_it_caps_a_search_at_the_picker_limit(api: APIClient, taxonomy: Taxonomy) -> None:
    assert len(nodes(api, taxonomy, level=3).json()) == 100


def test_it_answers_400_to_a_bad_level_and_404_to_an_unknown_taxonomy(api: APIClient, taxonomy: Taxonomy) -> None:
    assert nodes(api, taxonomy, level="one").status_code == 400
    assert api.get(reverse("cases_api:taxonomy_nodes", args=[taxonomy.pk + 99])).status_code == 404


def test_it_answers_405_to_writes(api: APIClient, taxonomy: Taxonomy) -> None:
    assert api.post(reverse("cases_api:taxonomy_list"), {}).status_code == 405
    assert api.delete(reverse("cases_api:taxonomy_nodes", args=[taxonomy.pk])).status_code == 405


def test_it_refuses_anonymous_and_role_less_accounts(taxonomy: Taxonomy) -> None:
    client = APIClient()
    assert client.get(reverse("cases_api:taxonomy_list")).status_code in (401, 403)
    client.force_authenticate(get_user_model().objects.create_user("no-role", password="x-9-long-pass"))
    assert client.get(reverse("cases_api:taxonomy_list")).status_code == 403
    assert nodes(client, taxonomy, level=1).status_code == 403


@pytest.mark.parametrize("persona", ["inspector", "researcher", "admin"])
def test_it_serves_every_role(persona: str, request, taxonomy: Taxonomy) -> None:
    client = APIClient()
    client.force_authenticate(request.getfixturevalue(persona))
    assert nodes(client, taxonomy, level=1).status_code == 200


def test_it_reads_nodes_in_a_fixed_number_of_queries(api: APIClient, taxonomy: Taxonomy) -> None:
    with CaptureQueriesContext(connection) as few:
        nodes(api, taxonomy, level=1)
    with CaptureQueriesContext(connection) as many:
        nodes(api, taxonomy, level=3)
    assert len(few) == len(many) and TaxonomyNode.objects.filter(level=3).count() == 1362
