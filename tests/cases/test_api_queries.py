"""The cases API lists make the same number of queries whatever the number of datasets and releases."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import make_case, make_release


def _queries(api: APIClient, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert api.get(url).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.django_db
def test_it_lists_datasets_and_releases_in_a_fixed_number_of_queries(
    researcher, admin, django_assert_num_queries
) -> None:
    api = APIClient()
    api.force_authenticate(researcher)
    url = reverse("cases_api:dataset_list")
    make_case(release=make_release(dataset_name="A", label="1"))
    one = _queries(api, url)

    for name in ("A", "B", "C", "D"):
        for label in ("2", "3"):
            release = make_release(dataset_name=name, label=label)
            release.imported_by = admin  # the serializer names the importer: a join, not a query each
            release.save(update_fields=["imported_by"])
            make_case(release=release)
            make_case(release=release)
    with django_assert_num_queries(one):
        body = api.get(url).json()
    assert [len(d["releases"]) for d in body] == [3, 2, 2, 2]
    assert body[0]["releases"][0]["imported_by"] == "admin"
