"""Issue 9, finding 5: a grader config may read its key only from a variable with the configured
prefix and call only an allowed host; checked on save (service, form, API) and again by the worker,
so naming SECRET_KEY never sends Django's secret anywhere."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from graders import services
from graders.endpoints.policy import check_grader_target
from graders.models import GraderConfig, GraderKind, JobStatus
from tests.conftest import login
from tests.graders.conftest import make_config
from tests.graders.test_jobs import build_release, start_job

pytestmark = pytest.mark.django_db
PREFIX = "MEDREVIEW_GRADER_KEY_"


@pytest.fixture(autouse=True)
def policy(settings):
    settings.GRADER_KEY_ENV_PREFIX = PREFIX
    settings.GRADER_ALLOWED_HOSTS = ["127.0.0.1", "grader.example.org:8443"]


@pytest.mark.parametrize(("url", "ok"), [
    ("http://127.0.0.1:8765/v1", True),
    ("https://grader.example.org:8443/v1", True),
    ("https://grader.example.org/v1", False),  # the allowed entry names a port
    ("https://attacker.example/v1", False),
    ("http://127.0.0.1.attacker.example/v1", False),
    ("ftp://127.0.0.1/v1", False),
    ("http://[::1/v1", False),
])
def test_only_allowed_hosts_are_accepted(url: str, ok: bool) -> None:
    if ok:
        check_grader_target(base_url=url, api_key_env=PREFIX + "OPENAI")
    else:
        with pytest.raises(ValidationError) as caught:
            check_grader_target(base_url=url, api_key_env=PREFIX + "OPENAI")
        assert "base_url" in caught.value.message_dict


@pytest.mark.parametrize("name", ["SECRET_KEY", "DATABASE_URL", "OPENAI_API_KEY", PREFIX, "X" + PREFIX + "A"])
def test_only_prefixed_key_variables_are_accepted(name: str) -> None:
    with pytest.raises(ValidationError) as caught:
        check_grader_target(base_url="http://127.0.0.1/v1", api_key_env=name)
    assert "api_key_env" in caught.value.message_dict


def save(**data: object) -> GraderConfig:
    template = services.prompt_template_default(kind=GraderKind.RUBRIC_GRADER)
    values = {"name": "g", "kind": GraderKind.RUBRIC_GRADER, "base_url": "http://127.0.0.1:9/v1", "model": "m",
              "api_key_env": PREFIX + "OPENAI", **data}
    return services.grader_config_save(config=None, data=values, prompt_text=template.text,
                                       prompt_version=template.version, user=None)


def test_the_service_refuses_secret_key_and_a_foreign_host() -> None:
    with pytest.raises(ValidationError) as caught:
        save(api_key_env="SECRET_KEY", base_url="https://attacker.example/v1")
    assert {"api_key_env", "base_url"} <= set(caught.value.message_dict)
    assert not GraderConfig.objects.exists()
    assert save().pk


def test_the_api_refuses_them_with_400(admin) -> None:
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("graders_api:config_list"), {
        "name": "evil", "kind": GraderKind.LLM_JUDGE, "base_url": "https://attacker.example/v1",
        "model": "x", "api_key_env": "SECRET_KEY"}, format="json")
    assert response.status_code == 400
    assert {"api_key_env", "base_url"} <= set(response.json())


def test_the_form_refuses_them(client, admin) -> None:
    login(client, admin)
    response = client.post(reverse("graders:config_create"), {
        "name": "evil", "kind": GraderKind.RUBRIC_GRADER, "base_url": "https://attacker.example/v1",
        "model": "x", "api_key_env": "SECRET_KEY", "temperature": "0", "max_tokens": "100", "concurrency": "1",
        "timeout_seconds": "5", "max_attempts": "1", "backoff_base_seconds": "0", "structured_output": "on"})
    assert response.status_code == 200  # the form again, with its errors
    assert not GraderConfig.objects.exists()
    assert "GRADER_ALLOWED_HOSTS" in response.content.decode()


def test_the_worker_refuses_a_row_that_escaped_the_checks(
    fake_server, monkeypatch, settings, django_capture_on_commit_callbacks
) -> None:
    # A row saved before the policy existed (or before settings were tightened) names SECRET_KEY.
    monkeypatch.setenv("SECRET_KEY", settings.SECRET_KEY)
    config = make_config(fake_server.base_url, api_key_env="SECRET_KEY")
    job = start_job(config, build_release(cases=1), django_capture_on_commit_callbacks)
    assert job.status == JobStatus.FAILED
    assert "MEDREVIEW_GRADER_KEY_" in job.error
    assert fake_server.requests == []  # nothing was sent, least of all the secret
