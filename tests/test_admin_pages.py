"""The Django admin's lists, searches, filters and sorting open for a superuser on the database in use
(on PostgreSQL: with parameters bound by the server and statements prepared, as in production)."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib import admin
from django.urls import get_resolver, reverse

from tests.annotation.builders import claim_and_submit, make_running_study
from tests.conftest import login, make_user

pytestmark = pytest.mark.django_db


def _changelist_urls() -> list[tuple[str, bool]]:
    assert get_resolver().url_patterns  # loading the URLconf discovers the admin modules (SimpleAdminConfig)
    return sorted(
        (reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist"), bool(model_admin.search_fields))
        for model, model_admin in admin.site._registry.items()
    )


def test_it_opens_every_admin_list_searched_filtered_and_sorted(client, admin_user, physician_a):
    study = make_running_study(make_user("boss", role="admin"), [physician_a], cases=2, raters_per_item=1)
    claim_and_submit(study, physician_a)
    login(client, admin_user)
    pages = _changelist_urls()
    assert len(pages) > 20
    for url, searchable in pages:
        page = client.get(url)
        assert page.status_code == 200, url
        if searchable:
            assert client.get(url, {"q": "fever 发热 1"}).status_code == 200, f"{url}?q="
        assert client.get(url, {"o": "-1"}).status_code == 200, f"{url}?o=-1"
        sidebar = page.content.decode().partition('id="changelist-filter"')[2]
        for query in re.findall(r'href="(\?[^"]+)"', sidebar)[:4]:
            assert client.get(url + html.unescape(query)).status_code == 200, url + query
