"""The API key is read from the environment and must never show up in logs, pages, API answers or rows."""

import logging

from django.urls import reverse
from rest_framework.test import APIClient

from devtools.fake_openai import FakeBehaviour
from graders.models import GraderDecision
from tests.conftest import login
from tests.graders.conftest import API_KEY
from tests.graders.test_jobs import build_release, start_job


def test_it_never_lets_the_api_key_reach_logs_pages_api_or_the_database(
    client, admin, rubric_config, fake_server, caplog, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setenv("OPENAI_LOG", "debug")  # the openai and httpx clients at their chattiest
    caplog.set_level(logging.DEBUG)
    for name in ("openai", "httpx", "httpcore", "httpx2", "httpcore2", "graders", "django_tasks"):
        caplog.set_level(logging.DEBUG, logger=name)  # restored after the test
    # 429s and 500s make the client log retries and errors, not only successes.
    fake_server.behaviour = FakeBehaviour(fail_429_times=1, mode="malformed")
    job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)
    assert job.done == 6
    fake_server.behaviour = FakeBehaviour(fail_500_times=-1)
    failed_job = start_job(rubric_config, build_release(cases=1), django_capture_on_commit_callbacks)
    assert failed_job.failed == 6

    logged = "\n".join(f"{r.getMessage()} {r.args!r}" for r in caplog.records)
    assert "chat/completions" in logged  # the debug logging really was on
    assert API_KEY not in logged
    assert API_KEY not in caplog.text

    login(client, admin)
    pages = [
        reverse("graders:job_list"), reverse("graders:job_detail", args=[job.pk]),
        reverse("graders:job_detail", args=[failed_job.pk]), reverse("graders:config_list"),
        reverse("graders:config_edit", args=[rubric_config.pk]), reverse("graders:job_create"),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200
        assert API_KEY not in response.content.decode()

    api = APIClient()
    api.force_authenticate(admin)
    for url in (
        reverse("graders_api:config_list"), reverse("graders_api:config_detail", args=[rubric_config.pk]),
        reverse("graders_api:job_list"), reverse("graders_api:job_detail", args=[job.pk]),
    ):
        assert API_KEY not in api.get(url).content.decode()

    for row in GraderDecision.objects.values("raw_output", "error", "reasoning"):
        assert API_KEY not in str(row)
    # The server did receive it: the key is used, only never shown.
    assert all("response_format" in r.body for r in fake_server.requests)


def test_it_scrubs_a_key_echoed_back_in_an_error(monkeypatch):
    from graders.endpoints import client as grader_client

    assert grader_client._scrub(f"Incorrect API key provided: {API_KEY}.", API_KEY) == "Incorrect API key provided: ***."
