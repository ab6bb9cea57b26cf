"""The API's hot path (issue 26): a verified token remembered a few seconds in the process, so a
rater's claim, draft and submit spend no query on authentication, and revoked or expired tokens
still stop; the Content-Security-Policy built once per process."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.test import APIClient

from accounts.tokens import token_create
from medreview import authentication
from medreview.authentication import ProfileTokenAuthentication
from medreview.middleware import PrebuiltCSPMiddleware

pytestmark = pytest.mark.django_db


def _api(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return api


def _token_queries(api: APIClient) -> tuple[int, int]:
    """(status, queries on the token table) of one queue request."""
    with CaptureQueriesContext(connection) as ctx:
        status = api.get(reverse("annotation_api:queue")).status_code
    return status, sum("knox_authtoken" in q["sql"] for q in ctx.captured_queries)


def _later(monkeypatch, seconds: float) -> None:
    now = time.monotonic()
    monkeypatch.setattr(authentication.time, "monotonic", lambda: now + seconds)


def test_it_authenticates_a_verified_token_again_without_a_query(token_cache, physician_a) -> None:
    _, key = token_create(user=physician_a)
    api = _api(key)
    assert _token_queries(api) == (200, 1)
    assert _token_queries(api) == (200, 0)


def test_it_stops_a_token_revoked_in_another_process_within_the_cache_window(
    token_cache, physician_a, monkeypatch
) -> None:
    row, key = token_create(user=physician_a)
    api = _api(key)
    assert _token_queries(api) == (200, 1)
    # Another server process deletes it: this process hears no signal.
    AuthToken.objects.filter(pk=row.pk)._raw_delete(connection.alias)
    assert _token_queries(api)[0] == 200  # still inside the window (documented: up to 5 s)
    _later(monkeypatch, 5.1)
    assert _token_queries(api) == (401, 1)


def test_it_stops_a_token_revoked_in_this_process_at_once(token_cache, physician_a) -> None:
    row, key = token_create(user=physician_a)
    api = _api(key)
    assert _token_queries(api)[0] == 200
    row.delete()
    assert _token_queries(api)[0] == 401


def test_it_refuses_a_cached_token_the_moment_it_expires(token_cache, physician_a, monkeypatch) -> None:
    _, key = token_create(user=physician_a, days=1)
    api = _api(key)
    assert _token_queries(api) == (200, 1)
    later = timezone.now() + timedelta(days=1, seconds=1)
    monkeypatch.setattr(authentication.timezone, "now", lambda: later)
    assert _token_queries(api)[0] == 401


def test_it_stops_a_deactivated_users_token_at_once(token_cache, physician_a) -> None:
    _, key = token_create(user=physician_a)
    api = _api(key)
    assert _token_queries(api)[0] == 200
    physician_a.is_active = False
    physician_a.save(update_fields=["is_active"])
    assert _token_queries(api)[0] == 401


def test_it_gives_each_request_its_own_user_and_profile(token_cache, physician_a) -> None:
    _, key = token_create(user=physician_a)
    auth = ProfileTokenAuthentication()
    first, _ = auth.authenticate_credentials(key.encode())
    second, _ = auth.authenticate_credentials(key.encode())
    assert first.pk == second.pk == physician_a.pk
    assert first is not second and first.profile is not second.profile
    first.profile.pseudonym = "changed by a view"
    assert auth.authenticate_credentials(key.encode())[0].profile.pseudonym == physician_a.profile.pseudonym


def test_it_refuses_a_wrong_key_with_the_right_prefix(token_cache, physician_a) -> None:
    _, key = token_create(user=physician_a)
    assert _token_queries(_api(key))[0] == 200
    wrong = key[:8] + ("0" if key[8] != "0" else "1") + key[9:]
    with pytest.raises(AuthenticationFailed):
        ProfileTokenAuthentication().authenticate_credentials(wrong.encode())


# --- Content-Security-Policy ------------------------------------------------------------------------


def _csp(response_attrs: dict | None = None, *, nonce: bool = False) -> str:
    from csp.utils import build_policy

    request = RequestFactory().get("/api/review/queue/")
    middleware = PrebuiltCSPMiddleware(lambda r: HttpResponse())
    middleware.process_request(request)
    if nonce:
        str(request.csp_nonce)
    response = HttpResponse()
    for name, value in (response_attrs or {}).items():
        setattr(response, name, value)
    expected = build_policy(
        update=getattr(response, "_csp_update", None), nonce=getattr(request, "_csp_nonce", None)
    )
    header = middleware.process_response(request, response)["Content-Security-Policy"]
    assert header == expected
    return header


def test_it_sends_the_same_policy_as_django_csp_built_once() -> None:
    first = _csp()
    assert "script-src 'self'" in first and "frame-ancestors 'none'" in first
    assert PrebuiltCSPMiddleware._prebuilt is not None and PrebuiltCSPMiddleware._prebuilt[0] == first


def test_it_still_builds_a_views_own_policy_and_a_nonce_per_response() -> None:
    assert "https://img.example" in _csp({"_csp_update": {"img-src": ["https://img.example"]}})
    _csp(nonce=True)  # built per response, as django-csp builds it
