"""Every page and API call is authenticated unless a view explicitly opts out."""

import time
from collections.abc import Callable

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse

# Paths anyone may reach: the sign-in page itself, static files and the health check.
# /i18n/: the language switcher and the JavaScript catalogue, also on the sign-in page.
# /accounts/invitation/: the one-time link where an invited user sets a password; /oidc/: single sign-on.
PUBLIC_PREFIXES = ("/accounts/login/", "/static/", "/healthz", "/i18n/", "/accounts/invitation/", "/oidc/")


class LoginRequiredEverywhereMiddleware:
    """Deny by default: medical data must never be served to an anonymous visitor.

    API paths are left to DRF (token authentication happens there and answers 401/403 in JSON);
    every other path redirects an anonymous visitor to the sign-in page.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path
        if (
            request.user.is_authenticated
            or path.startswith(PUBLIC_PREFIXES)
            or path.startswith("/api/")
            or path.startswith("/admin/")
        ):
            return self.get_response(request)
        if request.headers.get("HX-Request"):
            return JsonResponse({"detail": "Authentication required."}, status=401)
        return redirect_to_login(path, settings.LOGIN_URL)


class SessionIdleTimeoutMiddleware:
    """Sessions end after SESSION_COOKIE_AGE (SESSION_IDLE_HOURS) without a request, not after that
    long since sign-in: an active user's session is saved again, which moves its expiry forward.

    Saving on every request would cost a database write per request; a save at most once a minute
    keeps the timeout accurate to the minute at a fraction of the cost.
    """

    REFRESH_SECONDS = 60

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        # No session cookie (an API call with a token): nothing to keep alive, and no user to look up.
        if session is not None and session.session_key is not None and request.user.is_authenticated:
            now = int(time.time())
            if now - session.get("_idle_refreshed", 0) >= self.REFRESH_SECONDS:
                session["_idle_refreshed"] = now  # marks the session modified: saved with a new expiry
        return self.get_response(request)


def session_refreshed_at_login(sender: object, request: HttpRequest, **kwargs: object) -> None:
    """Signal receiver: sign-in saves the session anyway, so the idle clock starts there."""
    session = getattr(request, "session", None)
    if session is not None:
        session["_idle_refreshed"] = int(time.time())


class PrebuiltCSPMiddleware(CSPMiddleware):
    """django-csp's middleware with the site's policy built once per process instead of per response.

    Only a response that asks for something of its own (a view's `csp_update` / `csp_replace` /
    `csp_exempt`, a nonce used while rendering) is built per response, exactly as django-csp does.
    """

    _prebuilt: tuple[str, str] | None = None

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        own = any(hasattr(response, name) for name in _CSP_RESPONSE_ATTRIBUTES)
        if own or getattr(request, "_csp_nonce", None) is not None or (response.status_code in (404, 500) and settings.DEBUG):
            return super().process_response(request, response)
        if self._prebuilt is None:
            type(self)._prebuilt = (build_policy(), build_policy(report_only=True))
        csp, csp_ro = self._prebuilt
        if csp and HEADER not in response and not _excluded(request, "CONTENT_SECURITY_POLICY"):
            response[HEADER] = csp
        if csp_ro and HEADER_REPORT_ONLY not in response and not _excluded(request, "CONTENT_SECURITY_POLICY_REPORT_ONLY"):
            response[HEADER_REPORT_ONLY] = csp_ro
        # As django-csp: a nonce asked for after the header is written is an error, not a silent miss.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response


_CSP_RESPONSE_ATTRIBUTES = (
    "_csp_exempt", "_csp_exempt_ro", "_csp_config", "_csp_update", "_csp_replace",
    "_csp_config_ro", "_csp_update_ro", "_csp_replace_ro",
)


def _excluded(request: HttpRequest, setting: str) -> bool:
    prefixes = (getattr(settings, setting, None) or {}).get("EXCLUDE_URL_PREFIXES", None) or ()
    return bool(prefixes) and request.path_info.startswith(tuple(prefixes))
