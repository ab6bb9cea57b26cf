"""Issue 9, finding 1 (reflected XSS) and part of finding 7 (impossible months): an export or chart
request with bad input answers 400 in plain text, never HTML that echoes the input, and no month
makes a 500 on the report page, its exports, charts or the API."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.agreement.builders import reliability_study
from tests.conftest import login

PAYLOAD = "<svg onload=alert(document.domain)>"


@pytest.fixture
def study_data(physician_a, physician_b):
    return reliability_study([physician_a, physician_b], n_cases=2)


def export_urls(study_data) -> list[str]:
    from cases.models import Release

    return [reverse("agreement:study_export", args=[study_data.study.pk, "json"]),
            reverse("agreement:release_export", args=[Release.objects.first().pk, "json"])]


def assert_not_html(response) -> None:
    assert response.status_code == 400
    content_type = response["Content-Type"]
    assert content_type.startswith(("text/plain", "application/json")), content_type
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("param", ["model", "stratify_by", "task", "grader", "month", "difficulty"])
def test_a_bad_filter_is_answered_in_plain_text(client, researcher, study_data, param: str) -> None:
    login(client, researcher)
    for url in export_urls(study_data):
        response = client.get(url, {param: PAYLOAD})
        assert_not_html(response)


def test_an_unknown_format_is_answered_in_plain_text(client, researcher, study_data) -> None:
    login(client, researcher)
    response = client.get(reverse("agreement:study_export", args=[study_data.study.pk, PAYLOAD]))
    assert_not_html(response)


def test_a_bad_chart_filter_is_answered_in_plain_text(client, researcher, study_data) -> None:
    login(client, researcher)
    response = client.get(reverse("agreement:study_chart", args=[study_data.study.pk, "ac1"]), {"model": PAYLOAD})
    assert_not_html(response)


@pytest.mark.parametrize("month", ["2025-13", "0000-00", "9999-12", "2025-00", "0001-01"])
def test_no_month_makes_a_server_error(client, researcher, study_data, month: str) -> None:
    login(client, researcher)
    study = study_data.study.pk
    page = client.get(reverse("agreement:report", args=[study]), {"month": month})
    assert page.status_code in (200, 400)
    export = client.get(reverse("agreement:study_export", args=[study, "json"]), {"month": month})
    assert export.status_code in (200, 400)
    api = client.get(reverse("agreement_api:study_report", args=[study]), {"month": month})
    assert api.status_code in (200, 400)
