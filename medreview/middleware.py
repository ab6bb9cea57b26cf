"""Every page and API call is authenticated unless a view explicitly opts out."""

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse

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
        if session is not None and request.user.is_authenticated:
            now = int(time.time())
            if now - session.get("_idle_refreshed", 0) >= self.REFRESH_SECONDS:
                session["_idle_refreshed"] = now  # marks the session modified: saved with a new expiry
        return self.get_response(request)


def session_refreshed_at_login(sender: object, request: HttpRequest, **kwargs: object) -> None:
    """Signal receiver: sign-in saves the session anyway, so the idle clock starts there."""
    session = getattr(request, "session", None)
    if session is not None:
        session["_idle_refreshed"] = int(time.time())
