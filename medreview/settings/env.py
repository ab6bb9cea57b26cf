"""Typed readers for settings that come from the environment.

A malformed value raises ImproperlyConfigured naming the variable and the value, which
`manage.py` prints as one line.
"""

import os
import re

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


def env_given(name: str) -> bool:
    """True when the variable is set to something: the operator decided, whatever the value."""
    return bool(os.environ.get(name, "").strip())


# A host name (a leading `*.` allowed, as CSP allows it) with an optional port; nothing that could
# widen the policy (`https:`, `*`, a keyword in quotes) or end the directive (`;`, spaces).
_IMAGE_HOST = re.compile(r"(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*"
                         r"(?::\d{1,5})?")


def image_sources(hosts: list[str]) -> list[str]:
    """The Content-Security-Policy `img-src` for ALLOWED_IMAGE_HOSTS: medreview itself and inline
    (`data:`) images, plus each listed host over HTTPS. A page showing imported Markdown then loads
    no image from anywhere else, so opening a case tells no outside server about it."""
    sources = ["'self'", "data:"]
    for host in hosts:
        bare = host.removeprefix("https://")
        if not _IMAGE_HOST.fullmatch(bare):
            raise ImproperlyConfigured(
                f"ALLOWED_IMAGE_HOSTS holds {host!r}; list host names such as cdn.ncbi.nlm.nih.gov or "
                "*.hospital.example (HTTPS only, no paths, no wildcards alone)"
            )
        sources.append(f"https://{bare}")
    return sources
