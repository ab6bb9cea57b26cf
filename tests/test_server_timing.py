"""The Server-Timing header (medreview/server_timing.py): off unless configured; when on, the whole
request, the view, the database with its query count and the spans the code marks."""

import os
import re
import subprocess
import sys
import time

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import HttpResponse
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext, modify_settings

from medreview import server_timing
from tests.conftest import login

ON = modify_settings(MIDDLEWARE={
    "prepend": "medreview.server_timing.ServerTimingMiddleware",
    "append": "medreview.server_timing.ServerTimingViewMiddleware",
})


def _metrics(header: str) -> dict[str, dict[str, str]]:
    """{'db': {'dur': '1.2', 'desc': '3 queries'}, ...}"""
    metrics = {}
    for part in header.split(","):
        name, *params = [p.strip() for p in part.split(";")]
        metrics[name] = {k: v.strip('"') for k, v in (p.split("=", 1) for p in params)}
    return metrics


def _queries(metric: dict[str, str]) -> int:
    match = re.match(r"(\d+) queries", metric["desc"])
    assert match, metric
    return int(match.group(1))


@pytest.mark.django_db
def test_it_sends_no_header_unless_configured(client, physician_a):
    login(client, physician_a)
    response = client.get("/review/")
    assert response.status_code == 200
    assert "Server-Timing" not in response


def test_it_puts_the_middleware_around_the_stack_when_the_setting_is_on():
    code = ("import django; django.setup(); from django.conf import settings; "
            "print(settings.MIDDLEWARE[0]); print(settings.MIDDLEWARE[-1]); print(len(settings.MIDDLEWARE))")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    on = subprocess.run([sys.executable, "-c", code], env={**env, "SERVER_TIMING": "1"},
                        capture_output=True, text=True, check=True).stdout.split()
    off = subprocess.run([sys.executable, "-c", code], env={**env, "SERVER_TIMING": "0"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert on[:2] == ["medreview.server_timing.ServerTimingMiddleware",
                      "medreview.server_timing.ServerTimingViewMiddleware"]
    assert int(on[2]) == int(off[2]) + 2
    assert "server_timing" not in " ".join(off)


@pytest.mark.django_db
@ON
def test_it_reports_total_view_and_every_query_of_a_page(client, physician_a):
    login(client, physician_a)
    with CaptureQueriesContext(connection) as captured:
        response = client.get("/review/")
    assert response.status_code == 200
    metrics = _metrics(response["Server-Timing"])
    assert list(metrics) == ["total", "db", "view", "cpu"]
    assert _queries(metrics["db"]) == len(captured) > 0
    total, view, db, cpu = (float(metrics[name]["dur"]) for name in ("total", "view", "db", "cpu"))
    assert 0 < view <= total and 0 < db <= total  # the middleware's own queries are in db, not in view
    assert 0 < cpu <= total + 0.1  # the thread's own processor time, never more than the time it took


@pytest.mark.django_db
def test_it_adds_up_spans_of_a_name_and_counts_their_queries():
    def view(request):
        for _ in range(2):
            with server_timing.span("claim"):
                get_user_model().objects.count()
        with server_timing.span("render"), server_timing.span("render"):  # re-entered: counted once
            time.sleep(0.02)
            get_user_model().objects.exists()
        get_user_model().objects.exists()  # in no span: only in db
        return HttpResponse("ok")

    response = server_timing.ServerTimingMiddleware(view)(RequestFactory().get("/"))
    metrics = _metrics(response["Server-Timing"])
    assert metrics["claim"]["desc"] == "2 queries in 2 calls"
    assert metrics["render"]["desc"] == "1 queries"
    assert _queries(metrics["db"]) == 4
    assert 20 <= float(metrics["render"]["dur"]) < float(metrics["total"]["dur"])


def test_it_times_nothing_outside_a_timed_request():
    with server_timing.span("claim"):
        pass  # no request, no header: nothing to record and nothing raised
    response = server_timing.ServerTimingViewMiddleware(lambda request: HttpResponse("ok"))(RequestFactory().get("/"))
    assert "Server-Timing" not in response


@pytest.mark.django_db
def test_it_keeps_the_header_on_an_error_page():
    def failing(request):
        get_user_model().objects.exists()
        return HttpResponse("no", status=500)

    response = server_timing.ServerTimingMiddleware(failing)(RequestFactory().get("/"))
    assert response.status_code == 500
    assert _queries(_metrics(response["Server-Timing"])["db"]) == 1
