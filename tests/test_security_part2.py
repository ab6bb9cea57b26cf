"""Issue 22, finding 7 (and the `load_demo` point): the anonymous throttle answers 429 before
authentication errors pile up; `check --deploy` is clean with the settings docs/deployment.md gives;
images in imported Markdown come only from hosts an admin allows (CSP img-src); the OpenAPI schema
documents 401, 403, 404 and 429; `load_demo` works with the production grader-host default."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from medreview.settings.env import image_sources
from tests.conftest import make_user

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.django_db


# --- the anonymous throttle ---------------------------------------------------------------------------


@pytest.fixture
def documented_anon_rate(settings):
    settings.API_THROTTLE_RATES = {"user": "100000/minute", "anon": "60/minute"}  # docs/deployment.md
    cache.clear()
    yield
    cache.clear()


@pytest.mark.parametrize("credentials", [
    {"HTTP_AUTHORIZATION": "Token 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
    {"HTTP_AUTHORIZATION": "Token not-even-hex"},
    {},
], ids=["a guessed token", "a malformed token", "no credentials"])
def test_anonymous_failures_get_429_after_the_documented_rate(documented_anon_rate, credentials: dict) -> None:
    api = APIClient()
    url = reverse("annotation_api:queue")
    codes = [api.get(url, **credentials).status_code for _ in range(61)]
    assert codes[:60] == [401] * 60
    limited = api.get(url, **credentials)
    assert codes[60] == 429 and limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    assert "throttled" in limited.json()["detail"]


def test_a_forged_forwarded_for_header_does_not_reset_the_count(documented_anon_rate) -> None:
    api = APIClient()
    url = reverse("annotation_api:queue")
    codes = [api.get(url, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}").status_code for n in range(62)]
    assert codes[-1] == 429


def test_signed_in_users_are_not_counted_with_the_anonymous(documented_anon_rate, physician_a) -> None:
    for _ in range(61):
        APIClient().get(reverse("annotation_api:queue"))
    api = APIClient()
    api.force_authenticate(physician_a)
    assert api.get(reverse("annotation_api:queue")).status_code == 200


# --- check --deploy with what docs/deployment.md says ----------------------------------------------------


def documented_exports() -> dict[str, str]:
    """The variables the deployment guide's step-by-step block exports, with stand-ins for its
    placeholders (a generated secret, the database)."""
    text = (ROOT / "docs" / "deployment.md").read_text()
    block = text.split("### Commands, step by step", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    found: dict[str, str] = {}
    for line in block.splitlines():
        if line.startswith("export "):
            for name, value in re.findall(r"([A-Z_]+)=(\S+)", line):
                found[name] = value
    return found


def test_check_deploy_prints_nothing_with_the_documented_settings(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DJANGO_SETTINGS_MODULE", "MEDREVIEW_DEV_TOOLS", "TASKS_BACKEND", "SECURE_COOKIES",
                        "DJANGO_ALLOW_ASYNC_UNSAFE", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD")}
    documented = documented_exports()
    assert {"ALLOWED_HOSTS", "SECRET_KEY", "SECURE_PROXY_SSL_HEADER", "API_TRUSTED_PROXIES",
            "AUDIT_CHAIN_KEYS"} <= set(documented)
    env.update(documented)
    env.update(DEBUG="0", SECRET_KEY="x7Qp2-" + "k" * 20 + "Zr9_" + "m" * 30,
               AUDIT_CHAIN_KEYS="2026a=" + "s" * 64, AUDIT_HEAD_LOG_FILE=str(tmp_path / "audit-heads.log"),
               DATABASE_URL=f"sqlite:///{tmp_path / 'check.sqlite3'}", STATIC_ROOT=str(tmp_path / "static"),
               MEDIA_ROOT=str(tmp_path / "media"), DJANGO_SETTINGS_MODULE="medreview.settings")
    done = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout, done.stdout + done.stderr


# --- images in imported Markdown -------------------------------------------------------------------------


def img_src(response) -> list[str]:  # noqa: ANN001
    policy = response["Content-Security-Policy"]
    return next(d for d in policy.split(";") if d.strip().startswith("img-src")).split()[1:]


def test_images_load_only_from_medreview_itself_by_default(client: Client, physician_a) -> None:
    client.force_login(physician_a)
    sources = img_src(client.get(reverse("annotation:physician_dashboard")))
    assert sources == ["'self'", "data:"]
    assert img_src(Client().get(reverse("login"))) == ["'self'", "data:"]


def test_an_admin_allows_image_hosts_by_name() -> None:
    assert image_sources(["cdn.ncbi.nlm.nih.gov", "https://figures.example.org", "*.hospital.example:8443"]) == [
        "'self'", "data:", "https://cdn.ncbi.nlm.nih.gov", "https://figures.example.org",
        "https://*.hospital.example:8443"]
    assert image_sources([]) == ["'self'", "data:"]


@pytest.mark.parametrize("bad", ["https:", "*", "http://cdn.example.org", "cdn.example.org; script-src *",
                                 "'unsafe-inline'", "cdn example.org", "https://cdn.example.org/path"])
def test_a_host_that_would_widen_or_break_the_policy_is_refused(bad: str) -> None:
    with pytest.raises(ImproperlyConfigured, match="ALLOWED_IMAGE_HOSTS"):
        image_sources([bad])


# --- the OpenAPI schema documents the error answers -------------------------------------------------------


def test_every_operation_documents_401_403_429_and_404_where_it_takes_ids() -> None:
    api = APIClient()
    api.force_authenticate(make_user("schema_reader", role="researcher"))
    schema = api.get("/api/schema/?format=json").json()
    assert "Error" in schema["components"]["schemas"]
    operations = 0
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            operations += 1
            documented = set(operation["responses"])
            expected = {"401", "403", "429"} | ({"404"} if "{" in path else set())
            assert expected <= documented, (method, path, documented)
            assert operation["responses"]["429"]["headers"]["Retry-After"]
    assert operations > 40


def test_a_401_403_404_and_429_body_matches_the_documented_error(documented_anon_rate, physician_a) -> None:
    anonymous = APIClient()
    assert set(anonymous.get(reverse("accounts_api:account_list")).json()) == {"detail"}
    api = APIClient()
    api.force_authenticate(physician_a)
    assert set(api.get(reverse("accounts_api:account_list")).json()) == {"detail"}
    assert set(api.get(reverse("accounts_api:account_detail", args=["nobody"])).json()) == {"detail"}


# --- load_demo with the production default of GRADER_ALLOWED_HOSTS ----------------------------------------


def test_load_demo_works_without_the_fake_grader_host_and_says_what_to_set(settings) -> None:
    from graders.models import GraderConfig

    settings.GRADER_ALLOWED_HOSTS = []  # the production default
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    assert not GraderConfig.objects.exists()
    skipped = [line for line in out.getvalue().splitlines() if "GRADER_ALLOWED_HOSTS" in line]
    assert len(skipped) == 1 and "127.0.0.1:8765" in skipped[0]
    assert "Demo logins" in out.getvalue()
    settings.GRADER_ALLOWED_HOSTS = ["127.0.0.1:8765"]
    call_command("load_demo", stdout=io.StringIO())
    assert GraderConfig.objects.count() == 4
