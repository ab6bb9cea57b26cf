"""The interface language of a signed-in user: the one chosen in the top bar, kept on the profile.

Django's LocaleMiddleware has already picked a language from the language cookie or the browser's
Accept-Language; a profile with a chosen language overrides it, so the choice follows the user to
another browser or device.
"""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation

from accounts.models import Profile


class ProfileLanguageMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = profile_language(request)
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = translation.get_language()
        return self.get_response(request)


def profile_language(request: HttpRequest) -> str:
    """The signed-in user's chosen language, or "" (anonymous, no profile, or no choice yet)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return ""
    try:
        profile = user.profile
    except Profile.DoesNotExist:
        return ""
    language = profile.language
    return language if language and translation.check_for_language(language) else ""
