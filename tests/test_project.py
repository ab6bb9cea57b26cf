"""Project-wide guarantees: authentication everywhere, settings from the environment."""

import subprocess
import sys

import pytest
from django.urls import reverse


@pytest.mark.django_db
def test_it_redirects_anonymous_visitors_to_sign_in(client):
    response = client.get("/review/")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.django_db
def test_it_answers_the_api_anonymously_with_401_or_403(client):
    response = client.get("/api/schema/")
    assert response.status_code in (401, 403)


@pytest.mark.django_db
def test_it_serves_the_sign_in_page(client):
    response = client.get(reverse("login"))
    assert response.status_code == 200
    assert b"Sign in" in response.content


@pytest.mark.django_db
def test_it_answers_the_health_check(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_it_refuses_to_start_in_production_without_a_secret_key():
    env = {"PATH": "/usr/bin:/bin", "DEBUG": "0", "DJANGO_SETTINGS_MODULE": "medreview.settings"}
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"], env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "SECRET_KEY is not set" in result.stderr


@pytest.mark.django_db
def test_it_generates_the_openapi_schema_without_warnings(tmp_path):
    from django.core.management import call_command

    out = tmp_path / "schema.yml"
    call_command("spectacular", "--fail-on-warn", "--file", str(out))
    schema = out.read_text()
    for path in ("/api/review/", "/api/reports/", "/api/graders/", "/api/cases/"):
        assert path in schema
