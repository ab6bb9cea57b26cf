"""Platform pages: the health check, and the one 403 page every app's refusals end on."""

from urllib.parse import urlsplit

from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import HttpRequest, HttpResponseForbidden, JsonResponse
from django.template import loader
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.views.decorators.http import require_GET


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def _back_url(request: HttpRequest) -> str:
    """Where the user came from when it is this site, else the home page (never another host)."""
    referer = request.headers.get("Referer", "")
    if referer and url_has_allowed_host_and_scheme(referer, allowed_hosts={request.get_host()},
                                                   require_https=request.is_secure()):
        parts = urlsplit(referer)
        if parts.path.startswith("/") and not parts.path.startswith("//"):
            return parts.path + (f"?{parts.query}" if parts.query else "")
    return "/"


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponseForbidden:
    """`handler403`: the reason the refusing code gave (already in the user's language: access checks
    raise `PermissionDenied(gettext(...))` while the request's language is active), escaped by the
    template, and a link back."""
    reason = str(exception) if exception is not None and str(exception) else ""
    body = loader.render_to_string("403.html", {"reason": reason, "back_url": _back_url(request)}, request)
    return HttpResponseForbidden(body)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponseForbidden:
    """`CSRF_FAILURE_VIEW`: the 403 page with a reason a person can act on (Django's own page
    speaks to developers and has no way back)."""
    return forbidden(request, PermissionDenied(gettext(
        "The form was sent without a valid security token, usually because the page was open for too long "
        "or you signed in again in another tab. Go back, reload the page and send it again.")))
