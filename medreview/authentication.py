"""API authentication shared by every app: session for the browser, tokens for scripts.

Tokens are django-rest-knox tokens: only a hash and an 8-character prefix are stored, each expires
(API_TOKEN_DAYS), and the key is shown once when it is created (`manage.py api_token create`).
Clients send them as before: `Authorization: Token <key>`.

A verified token is remembered in the process for API_TOKEN_CACHE_SECONDS (5): a rater's claim,
draft and submit then spend no query on authentication. Its expiry is checked on every request; a
token deleted or a user saved (deactivated) in this process is forgotten at once (`forget_*`, wired
to the models' signals in `medreview.apps`), so in another process of the server a revoked token
or a deactivated user stops working within API_TOKEN_CACHE_SECONDS.
"""

import binascii
import copy
import threading
import time
from hmac import compare_digest
from typing import Any

from django.conf import settings
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.models import get_token_model
from knox.settings import CONSTANTS
from rest_framework.exceptions import AuthenticationFailed

from medreview.db.precompiled import PrecompiledQuery

# digest -> (monotonic time it was verified, the token row with its user and profile joined)
_VERIFIED: dict[str, tuple[float, Any]] = {}
_VERIFIED_LOCK = threading.Lock()
# A server has at most a few thousand live tokens; past this the cache starts afresh.
_MAX_VERIFIED = 10_000
# Each token is looked up again when its cache entry lapses: compiled once per process.
_TOKENS_BY_KEY: PrecompiledQuery[Any] = PrecompiledQuery(
    lambda token_key: get_token_model().objects.filter(token_key=token_key).select_related("user", "user__profile"),
    text=("token_key",),
)


def token_cache_seconds() -> float:
    return float(getattr(settings, "API_TOKEN_CACHE_SECONDS", 5))


def forget_token_digest(digest: str) -> None:
    with _VERIFIED_LOCK:
        _VERIFIED.pop(digest, None)


def forget_user_tokens(user_id: int) -> None:
    with _VERIFIED_LOCK:
        for digest in [d for d, (_, t) in _VERIFIED.items() if t.user_id == user_id]:
            del _VERIFIED[digest]


def forget_all_tokens() -> None:
    with _VERIFIED_LOCK:
        _VERIFIED.clear()


def _private_copy(auth_token: Any) -> Any:
    """A copy of the cached row for one request: a view may set attributes on request.user or its
    profile, which must not leak into another request."""
    token = copy.copy(auth_token)
    user = copy.copy(auth_token.user)  # Model.__getstate__ copies its _state and fields cache
    profile = user._state.fields_cache.get("profile")
    if profile is not None:
        user._state.fields_cache["profile"] = copy.copy(profile)
    token._state.fields_cache["user"] = user
    return token


class ProfileTokenAuthentication(TokenAuthentication):
    """Knox token auth that loads the user's profile (role) in the same query: one round trip less
    per call, and none while the verified token is cached. Expired tokens are refused (and
    deleted); the key is compared by its hash."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        key = token.decode("utf-8")
        try:
            digest = hash_token(key)
        except (TypeError, binascii.Error) as exc:
            raise AuthenticationFailed("Invalid token.") from exc
        ttl = token_cache_seconds()
        cached = _VERIFIED.get(digest) if ttl > 0 else None
        if cached is not None and time.monotonic() - cached[0] < ttl:
            auth_token = cached[1]
            if auth_token.expiry is None or auth_token.expiry >= timezone.now():
                return self.validate_user(_private_copy(auth_token))
        if cached is not None:
            forget_token_digest(digest)
        for auth_token in _TOKENS_BY_KEY.all(token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH]):
            if not compare_digest(digest, auth_token.digest):
                continue
            if auth_token.expiry is not None and auth_token.expiry < timezone.now():
                auth_token.delete()
                break
            user, verified = self.validate_user(auth_token)
            if ttl > 0:
                with _VERIFIED_LOCK:
                    if len(_VERIFIED) >= _MAX_VERIFIED:
                        _VERIFIED.clear()
                    _VERIFIED[digest] = (time.monotonic(), verified)
                return self.validate_user(_private_copy(verified))
            return user, verified
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
