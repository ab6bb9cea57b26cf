"""Every page and API call is authenticated unless a view explicitly opts out."""

from collections.abc import Callable

from django.conf import settings
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse

# Paths anyone may reach: the sign-in page itself, static files and the health check.
PUBLIC_PREFIXES = ("/accounts/login/", "/static/", "/healthz")


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
