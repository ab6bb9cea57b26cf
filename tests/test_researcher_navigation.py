"""Issue 24: researchers and admins find their pages from the top bar (Reports, Curations, Cost,
Events, People) as their role allows; the effort overview explains a missing hourly rate; a refused
form (CSRF) gets the 403 page with a reason and a way back."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import Study
from tests.annotation.builders import claim_and_submit, make_running_study
from tests.conftest import login

pytestmark = pytest.mark.django_db

NAV = {
    "reports": "agreement:report_index", "curations": "annotation:curation_list",
    "cost": "annotation:effort_overview", "people": "accounts:people",
}


def _nav(client, user) -> str:
    page = login(client, user).get(reverse("home"), follow=True).content.decode()
    return page[page.index("<nav>"):page.index("</nav>")]


def test_it_links_each_role_to_the_pages_it_may_open(client, admin, researcher, physician_a, inspector):
    admin_nav, researcher_nav = _nav(client, admin), _nav(client, researcher)
    for name in NAV.values():
        assert f'href="{reverse(name)}"' in admin_nav
    assert f'href="{reverse("agreement:report_index")}"' in researcher_nav
    assert f'href="{reverse("annotation:effort_overview")}"' in researcher_nav
    assert f'href="{reverse("annotation:effort_overview")}#events"' in researcher_nav
    assert f'href="{reverse("annotation:curation_list")}"' not in researcher_nav  # admins only: no dead link
    assert f'href="{reverse("accounts:people")}"' not in researcher_nav
    assert f'href="{reverse("annotation:effort_overview")}"' not in _nav(client, physician_a)
    assert f'href="{reverse("annotation:effort_overview")}"' in _nav(client, inspector)


def test_it_opens_every_linked_page_for_its_role(client, admin, researcher):
    for user, names in ((admin, NAV.values()), (researcher, ("agreement:report_index", "annotation:effort_overview"))):
        login(client, user)
        for name in names:
            assert client.get(reverse(name)).status_code == 200, name


def test_it_lists_effort_and_says_why_cost_is_missing(client, admin, researcher, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=1)
    claim_and_submit(study, physician_a, seconds_spent=3600)
    page = login(client, researcher).get(reverse("annotation:effort_overview")).content.decode()
    assert study.name in page and "No hourly rate: an admin sets it on the study page" in page
    assert reverse("annotation:study_events_export", args=[study.pk, "jsonl"]) in page
    Study.objects.filter(pk=study.pk).update(hourly_rate=Decimal("24.00"), currency="EUR")
    page = client.get(reverse("annotation:effort_overview")).content.decode()
    assert "24.00 EUR" in page and "No hourly rate" not in page


def test_it_shows_inspectors_only_the_studies_they_inspect(client, admin, inspector, physician_a, physician_b):
    theirs = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], name="Inspected")
    other = make_running_study(admin, [physician_a, physician_b], name="Someone else's")
    page = login(client, inspector).get(reverse("annotation:effort_overview")).content.decode()
    assert theirs.name in page and other.name not in page


def test_it_refuses_the_effort_overview_to_physicians_saying_why(client, physician_a):
    response = login(client, physician_a).get(reverse("annotation:effort_overview"))
    assert response.status_code == 403
    assert "Effort, cost and audit trails are for admins, researchers and a study&#x27;s inspectors." in (
        response.content.decode())
    assert client.post(reverse("annotation:effort_overview")).status_code == 405


def test_it_explains_a_refused_form_token_on_the_403_page(admin):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)
    response = client.post(reverse("annotation:study_new"), {"name": "x"}, HTTP_REFERER="http://testserver/review/")
    assert response.status_code == 403
    page = response.content.decode()
    assert "without a valid security token" in page and 'id="forbidden-back"' in page and "<nav>" in page
