"""Typed readers for settings that come from the environment.

A malformed value raises ImproperlyConfigured naming the variable and the value, which
`manage.py` prints as one line.
"""

import os

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, *, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [part.strip() for part in raw.split(",") if part.strip()]


def env_int(name: str, *, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, got {raw!r}") from None


def env_mapping(name: str, *, default: dict[str, str]) -> dict[str, str]:
    """`key=value,key=value` (e.g. OIDC_ROLE_MAP=clinicians=physician,seniors=inspector)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    pairs = {}
    for part in (p.strip() for p in raw.split(",") if p.strip()):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ImproperlyConfigured(f"{name} must look like key=value,key=value; {part!r} does not")
        pairs[key.strip()] = value.strip()
    return pairs
