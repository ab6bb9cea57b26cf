"""API authentication shared by every app: session for the browser, tokens for scripts."""

from typing import Any

from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed


class ProfileTokenAuthentication(TokenAuthentication):
    """Token auth that loads the user's profile (role) in the same query: one round trip less per call."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        model = self.get_model()
        try:
            token = model.objects.select_related("user", "user__profile").get(key=key)
        except model.DoesNotExist as exc:
            raise AuthenticationFailed("Invalid token.") from exc
        if not token.user.is_active:
            raise AuthenticationFailed("User inactive or deleted.")
        return (token.user, token)
