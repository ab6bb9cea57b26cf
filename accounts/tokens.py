"""API tokens (django-rest-knox): only a hash is stored, every token expires, the key is shown once.

`token_create` returns the key to show to the person who asked for it; afterwards nobody, admins
included, can read it back. A lost key is revoked and replaced.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from knox.models import AuthToken


def token_create(*, user: AbstractBaseUser, days: int | None = None) -> tuple[AuthToken, str]:
    """(token row, key). `days` defaults to API_TOKEN_DAYS; the key is never stored."""
    lifetime = timedelta(days=days if days is not None else settings.API_TOKEN_DAYS)
    return AuthToken.objects.create(user=user, expiry=lifetime)


def tokens_revoke(*, user: AbstractBaseUser) -> int:
    """Delete every token of the user; returns how many there were."""
    deleted, _ = AuthToken.objects.filter(user=user).delete()
    return deleted
