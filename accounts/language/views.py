"""The top bar's language switcher: remembered on the profile and in the language cookie."""

from django.conf import settings
from django.http import HttpRequest, HttpResponseRedirect
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from accounts.models import Profile


@require_POST
def set_language(request: HttpRequest) -> HttpResponseRedirect:
    """Switch the interface language and go back where the user was.

    The profile keeps the choice for a signed-in user (any browser); the cookie keeps it on the
    sign-in page. An unknown language changes nothing."""
    nxt = request.POST.get("next") or request.headers.get("referer") or "/"
    if not url_has_allowed_host_and_scheme(nxt, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        nxt = "/"
    response = HttpResponseRedirect(nxt)
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return response
    if request.user.is_authenticated:
        Profile.objects.filter(user=request.user).update(language=language)
    translation.activate(language)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH, samesite="Lax", secure=settings.SESSION_COOKIE_SECURE,
    )
    return response
