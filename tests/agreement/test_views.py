"""Researcher pages: access, content, exports through the browser URLs, bounded queries."""

from __future__ import annotations

import io
import json
import re
from html import unescape as html_unescape

import pytest
from django.core.cache import cache
from django.urls import reverse

from tests.agreement.builders import reliability_study
from tests.conftest import login


@pytest.fixture
def study_data(physician_a, physician_b, inspector):
    return reliability_study([physician_a, physician_b, inspector], n_cases=3, n_runs=2, invalid_every=9)


def test_it_lists_studies_for_a_researcher(client, researcher, study_data):
    response = login(client, researcher).get(reverse("agreement:report_index"))
    assert response.status_code == 200
    assert study_data.study.name in response.content.decode()


def test_it_refuses_reports_to_physicians_and_inspectors(client, physician_a, inspector, outsider, study_data):
    for user in (physician_a, inspector, outsider):
        client.force_login(user)
        assert client.get(reverse("agreement:report_index")).status_code == 403
        assert client.get(reverse("agreement:report", args=[study_data.study.pk])).status_code == 403
        assert client.get(reverse("agreement:study_export", args=[study_data.study.pk, "json"])).status_code == 403
        assert client.get(reverse("agreement:study_labels", args=[study_data.study.pk])).status_code == 403


def test_it_redirects_anonymous_visitors_to_sign_in(client, study_data):
    response = client.get(reverse("agreement:report", args=[study_data.study.pk]))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_it_answers_404_for_an_unknown_study(client, researcher):
    login(client, researcher)
    assert client.get(reverse("agreement:report", args=[999999])).status_code == 404
    assert client.get(reverse("agreement:study_export", args=[999999, "csv"])).status_code == 404
    assert client.get(reverse("agreement:release_report", args=[999999])).status_code == 404


def test_it_rejects_writes_with_405(client, researcher, study_data):
    login(client, researcher)
    for url in (
        reverse("agreement:report_index"),
        reverse("agreement:report", args=[study_data.study.pk]),
        reverse("agreement:study_export", args=[study_data.study.pk, "csv"]),
        reverse("agreement:study_labels", args=[study_data.study.pk]),
    ):
        assert client.post(url).status_code == 405


def test_it_shows_tables_charts_and_pseudonyms_only(client, researcher, admin, study_data):
    for user in (researcher, admin):
        response = login(client, user).get(reverse("agreement:report", args=[study_data.study.pk]))
        assert response.status_code == 200
        html = response.content.decode()
        for heading in ("Data quality", "Grader reliability", "Each grader against each physician",
                        "Ranking stability", "Labels used", "First-round ratings only"):
            assert heading in html
        assert "R-physician_a" in html and "R-inspector" in html
        # Usernames never appear in report content (the sign-out bar shows only the viewer's own name).
        body = html.split("<main>", 1)[1]
        for username in ("physician_a", "physician_b", "inspector"):
            assert username not in body.replace(f"R-{username}", "")
        chart_urls = re.findall(r'<img src="([^"]+\.png[^"]*)"', body)
        assert len(chart_urls) >= 3  # forest plot, scatter, confusion
        for url in chart_urls:
            chart = client.get(html_unescape(url))
            assert chart.status_code == 200 and chart["Content-Type"] == "image/png"
            assert chart.content.startswith(b"\x89PNG")


def test_it_serves_charts_to_readers_only(client, researcher, physician_a, study_data):
    url = reverse("agreement:study_chart", args=[study_data.study.pk, "forest"])
    assert login(client, physician_a).get(url).status_code == 403
    login(client, researcher)
    assert client.get(url).status_code == 200
    assert client.get(reverse("agreement:study_chart", args=[study_data.study.pk, "nonsense-9"])).status_code == 404
    assert client.get(reverse("agreement:study_chart", args=[424242, "forest"])).status_code == 404
    assert client.post(url).status_code == 405


def test_it_applies_filters_and_breakdowns(client, researcher, study_data):
    login(client, researcher)
    url = reverse("agreement:report", args=[study_data.study.pk])
    response = client.get(url, {"stratify_by": "model", "task": "grader-reliability"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "by model" in html
    strata_charts = re.findall(r'<img src="([^"]+/chart/strata-[^"]+)"', html)
    assert len(strata_charts) == 2  # AC1 and Macro-F1 per stratum
    for chart_url in strata_charts:
        chart = client.get(html_unescape(chart_url))
        assert chart.status_code == 200 and chart.content.startswith(b"\x89PNG")
    filtered = client.get(url, {"model": "model-x"})
    assert filtered.status_code == 200
    bad = client.get(url, {"month": "June"})
    assert bad.status_code == 400
    assert "YYYY-MM" in bad.content.decode()


def test_it_exports_every_format_from_the_page_urls(client, researcher, study_data):
    login(client, researcher)
    for fmt in ("csv", "xlsx", "json", "tex"):
        response = client.get(reverse("agreement:study_export", args=[study_data.study.pk, fmt]))
        assert response.status_code == 200, fmt
        assert "attachment" in response["Content-Disposition"]
    data = json.loads(client.get(reverse("agreement:study_export", args=[study_data.study.pk, "json"])).content)
    assert data["selection"]["study_id"] == study_data.study.pk
    assert client.get(reverse("agreement:study_export", args=[study_data.study.pk, "pdf"])).status_code == 400


def test_it_streams_raw_labels_with_pseudonyms(client, researcher, study_data):
    import pandas as pd

    response = login(client, researcher).get(reverse("agreement:study_labels", args=[study_data.study.pk]))
    assert response.status_code == 200
    frame = pd.read_csv(io.BytesIO(b"".join(response.streaming_content)))
    assert set(frame["rater"]) == {"R-physician_a", "R-physician_b", "R-inspector"}
    assert len(frame) == sum(len(v) for v in study_data.human.values())


def _page_queries(client, url: str, params: dict | None = None) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    cache.clear()
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url, params or {}).status_code == 200
    return len(ctx.captured_queries)


@pytest.mark.parametrize("params", [{}, {"stratify_by": "specialty"}, {"stratify_by": "model"}])
def test_it_renders_the_report_in_a_bounded_number_of_queries(
    client, researcher, physician_a, physician_b, inspector, django_assert_max_num_queries, params
):
    login(client, researcher)
    small = reliability_study([physician_a, physician_b], n_cases=1, models=("m1",))
    large = reliability_study([physician_a, physician_b, inspector], n_cases=6, models=("m1", "m2", "m3", "m4"),
                              n_runs=3)
    small_count = _page_queries(client, reverse("agreement:report", args=[small.study.pk]), params)
    large_count = _page_queries(client, reverse("agreement:report", args=[large.study.pk]), params)
    assert small_count == large_count
    # A cached page skips the label queries entirely.
    with django_assert_max_num_queries(small_count - 5):
        client.get(reverse("agreement:report", args=[large.study.pk]), params)


def test_it_reports_on_a_release(client, researcher, study_data):
    from annotation.models import Item

    release = Item.objects.filter(study=study_data.study).first().revision.release
    login(client, researcher)
    page = client.get(reverse("agreement:release_report", args=[release.pk]))
    assert page.status_code == 200 and "Grader reliability" in page.content.decode()
    data = json.loads(client.get(reverse("agreement:release_export", args=[release.pk, "json"])).content)
    assert data["selection"]["release_id"] == release.pk and data["selection"]["study_id"] is None
    labels = client.get(reverse("agreement:release_labels", args=[release.pk]))
    assert labels.status_code == 200
    index = client.get(reverse("agreement:report_index")).content.decode()
    assert reverse("agreement:release_report", args=[release.pk]) in index
