"""API authentication shared by every app: session for the browser, tokens for scripts.

Tokens are django-rest-knox tokens: only a hash and an 8-character prefix are stored, each expires
(API_TOKEN_DAYS), and the key is shown once when it is created (`manage.py api_token create`).
Clients send them as before: `Authorization: Token <key>`.
"""

import binascii
from hmac import compare_digest
from typing import Any

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.models import get_token_model
from knox.settings import CONSTANTS
from rest_framework.exceptions import AuthenticationFailed


class ProfileTokenAuthentication(TokenAuthentication):
    """Knox token auth that loads the user's profile (role) in the same query: one round trip less
    per call. Expired tokens are refused (and deleted); the key is compared by its hash."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        key = token.decode("utf-8")
        try:
            digest = hash_token(key)
        except (TypeError, binascii.Error) as exc:
            raise AuthenticationFailed("Invalid token.") from exc
        candidates = get_token_model().objects.filter(token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH])
        for auth_token in candidates.select_related("user", "user__profile"):
            if not compare_digest(digest, auth_token.digest):
                continue
            if auth_token.expiry is not None and auth_token.expiry < timezone.now():
                auth_token.delete()
                break
            return self.validate_user(auth_token)
        raise AuthenticationFailed("Invalid token.")


class ProfileTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema describes the token (the header clients send is unchanged)."""

    target_class = "medreview.authentication.ProfileTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey", "in": "header", "name": "Authorization",
            "description": 'An API token with the prefix "Token", e.g. `Token 3f9c…` (expires; shown once).',
        }
