"""Issue 9, findings 8 and 10: login lockout, API throttles, hashed expiring tokens shown once, the
session idle timeout, a Content-Security-Policy on every page without inline script, a clean
`check --deploy`, and expected 403s logged as one line without a traceback."""

from __future__ import annotations

import io
import logging
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from tests.conftest import PASSWORD, make_user

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.django_db


# --- login lockout (django-axes) -----------------------------------------------------------------


def test_fifty_wrong_passwords_lock_the_account_even_for_the_right_one(client, physician_a) -> None:
    url = reverse("login")
    for _ in range(50):
        client.post(url, {"username": "physician_a", "password": "wrong-guess"})
    final = client.post(url, {"username": "physician_a", "password": PASSWORD})
    assert final.status_code in (403, 429) or "_auth_user_id" not in client.session
    assert "_auth_user_id" not in client.session
    assert b"locked" in final.content.lower()


def test_a_few_typos_do_not_lock_anyone_out(client, physician_a) -> None:
    url = reverse("login")
    for _ in range(3):
        client.post(url, {"username": "physician_a", "password": "typo"})
    done = client.post(url, {"username": "physician_a", "password": PASSWORD})
    assert done.status_code == 302 and "_auth_user_id" in client.session


def test_an_admin_can_unlock_an_account(client, physician_a) -> None:
    for _ in range(django_settings.AXES_FAILURE_LIMIT):
        client.post(reverse("login"), {"username": "physician_a", "password": "wrong"})
    call_command("axes_reset_username", "physician_a", stdout=io.StringIO())
    assert client.post(reverse("login"), {"username": "physician_a", "password": PASSWORD}).status_code == 302


# --- API throttles -------------------------------------------------------------------------------


def test_the_api_answers_429_past_the_rate(settings, physician_a) -> None:
    settings.API_THROTTLE_RATES = {"user": "5/minute", "anon": "3/minute"}
    from django.core.cache import cache

    cache.clear()
    api = APIClient()
    api.force_authenticate(physician_a)
    codes = [api.get(reverse("annotation_api:queue")).status_code for _ in range(8)]
    assert codes[:5] == [200] * 5 and codes[-1] == 429
    other = APIClient()
    other.force_authenticate(make_user("other_physician", role="physician"))
    assert other.get(reverse("annotation_api:queue")).status_code == 200  # the limit is per user
    cache.clear()


# --- API tokens (django-rest-knox) ---------------------------------------------------------------


def test_tokens_are_stored_hashed_shown_once_and_expire(physician_a) -> None:
    from knox.models import AuthToken

    from accounts.tokens import token_create

    row, key = token_create(user=physician_a, days=1)
    stored = AuthToken.objects.values_list("digest", "token_key").get()
    assert key not in stored and key[:8] == stored[1][:8]  # only a prefix and a hash are kept
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(reverse("annotation_api:queue")).status_code == 200
    AuthToken.objects.filter(pk=row.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    assert api.get(reverse("annotation_api:queue")).status_code == 401
    assert row.expiry <= timezone.now() + timedelta(days=1, seconds=5)


def test_the_api_token_command_prints_the_key_once(physician_a) -> None:
    out, err = io.StringIO(), io.StringIO()
    call_command("api_token", "create", "physician_a", "--days", "7", stdout=out, stderr=err)
    key = out.getvalue().strip()
    assert len(key) >= 40 and "shown only now" in err.getvalue()
    listed = io.StringIO()
    call_command("api_token", "list", "physician_a", stdout=listed)
    assert key not in listed.getvalue()


def test_deactivating_a_user_revokes_their_tokens(physician_a) -> None:
    from accounts.services import account_deactivate
    from accounts.tokens import token_create

    _, key = token_create(user=physician_a)
    account_deactivate(user=physician_a)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(reverse("annotation_api:queue")).status_code == 401


# --- sessions --------------------------------------------------------------------------------------


def test_sessions_end_after_eight_idle_hours_by_default(client, physician_a) -> None:
    assert django_settings.SESSION_COOKIE_AGE == 8 * 3600
    client.force_login(physician_a)
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 200
    # Idle time, not time since sign-in: a request saves the session again with a fresh expiry.
    from django.contrib.sessions.models import Session

    stored = client.session
    stored["_idle_refreshed"] = 0  # the last refresh was long ago
    stored.save()
    session = Session.objects.get(session_key=stored.session_key)
    Session.objects.filter(pk=session.pk).update(expire_date=timezone.now() + timedelta(minutes=5))
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 200
    renewed = Session.objects.get(pk=session.pk).expire_date
    assert renewed > timezone.now() + timedelta(hours=7)
    session = client.session
    session.set_expiry(-1)  # as if eight hours had passed without a request
    session.save()
    assert client.get(reverse("annotation:physician_dashboard")).status_code == 302


# --- Content-Security-Policy ------------------------------------------------------------------------


def csp_of(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return {part.split()[0]: part for part in (p.strip() for p in header.split(";")) if part}


@pytest.mark.parametrize("url_name", ["login", "home", "annotation:physician_dashboard", "api-docs"])
def test_every_page_sends_a_policy_without_inline_script(client, physician_a, url_name: str) -> None:
    if url_name != "login":
        client.force_login(physician_a)
    response = client.get(reverse(url_name), follow=True)
    policy = csp_of(response)
    assert "'self'" in policy["script-src"] and "unsafe-inline" not in policy["script-src"]
    assert "unsafe-eval" not in policy["script-src"]
    assert policy["object-src"] == "object-src 'none'"
    assert policy["frame-ancestors"] == "frame-ancestors 'none'"


def test_no_template_holds_inline_script_or_event_handlers() -> None:
    inline = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.IGNORECASE)
    handler = re.compile(r"\son[a-z]+\s*=", re.IGNORECASE)
    offenders = []
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        if inline.search(text) or handler.search(text):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_the_api_docs_load_their_script_from_a_url() -> None:
    from django.test import Client

    from tests.conftest import make_user

    client = Client()
    client.force_login(make_user("docs_reader", role="researcher"))
    page = client.get(reverse("api-docs")).content.decode()
    scripts = re.findall(r"<script[^>]*>", page)
    assert scripts and all("src=" in s for s in scripts)


# --- deployment checks --------------------------------------------------------------------------------


DOCUMENTED_PRODUCTION_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": "x7Qp2-" + "k" * 20 + "Zr9_" + "m" * 30,
    "ALLOWED_HOSTS": "review.example.org",
    "SECURE_PROXY_SSL_HEADER": "1",
    "SECURE_HSTS_SECONDS": "31536000",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "SECURE_HSTS_PRELOAD": "1",
    "AUDIT_CHAIN_KEYS": "2026a=" + "s" * 64,  # issue 22: the audit chain's key (docs/deployment.md)
}


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path: Path) -> None:
    # The test run's own switches (the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE) are no deployment's.
    test_only = ("DJANGO_SETTINGS_MODULE", "MEDREVIEW_DEV_TOOLS", "TASKS_BACKEND", "SECURE_COOKIES",
                 "DJANGO_ALLOW_ASYNC_UNSAFE")
    env = {k: v for k, v in os.environ.items() if k not in test_only}
    env.update(DOCUMENTED_PRODUCTION_ENV, DJANGO_SETTINGS_MODULE="medreview.settings",
               DATABASE_URL=f"sqlite:///{tmp_path / 'check.sqlite3'}")
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


# --- logging of expected refusals --------------------------------------------------------------------


def test_an_expected_403_is_logged_once_without_a_traceback(client, physician_a, caplog) -> None:
    caplog.set_level(logging.INFO)
    client.force_login(physician_a)
    assert client.get(reverse("cases:import_upload")).status_code == 403
    forbidden = [r for r in caplog.records if "Forbidden" in r.getMessage() or r.levelno >= logging.WARNING]
    assert len(forbidden) <= 1
    assert all(r.exc_info is None for r in caplog.records)
