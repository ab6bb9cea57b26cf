"""Where a grader may send requests and which environment variable may hold its key.

A grader config names an environment variable and an endpoint; without limits an admin could name
SECRET_KEY (or DATABASE_URL) and a server of their choosing, and the workers would send that secret
as a Bearer token. So:

- key variables must start with GRADER_KEY_ENV_PREFIX (default `MEDREVIEW_GRADER_KEY_`), so only
  variables put in the workers' environment for graders can ever be read;
- endpoints must be http(s) on a host in GRADER_ALLOWED_HOSTS (`host` or `host:port`; default
  none, or 127.0.0.1 and localhost with DEBUG).

Both are checked when a config is saved (form, API, admin: `GraderConfig.clean`) and again by the
worker before it reads the key, so a row written earlier or settings tightened since cannot leak.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _


def key_variable_problem(name: str) -> str | None:
    prefix = settings.GRADER_KEY_ENV_PREFIX
    if not prefix or not name.startswith(prefix) or name == prefix:
        return _("The key's environment variable must be named %(prefix)s<something> (e.g. %(prefix)sOPENAI); "
                 "%(name)s is not allowed.") % {"prefix": prefix, "name": repr(name)}
    return None


def endpoint_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return _("%(url)s is not a valid URL.") % {"url": repr(url)}
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _("The endpoint must be an http:// or https:// URL.")
    host = parts.hostname.lower()
    allowed = {h.strip().lower() for h in settings.GRADER_ALLOWED_HOSTS if h.strip()}
    if host in allowed or (port is not None and f"{host}:{port}" in allowed):
        return None
    listed = ", ".join(sorted(allowed)) or _("none")
    return _("Host %(host)s is not in GRADER_ALLOWED_HOSTS (allowed: %(listed)s); ask whoever runs medreview to "
             "add it.") % {"host": repr(host), "listed": listed}


def check_grader_target(*, base_url: str, api_key_env: str) -> None:
    """Raise ValidationError naming the offending field(s)."""
    errors = {}
    if problem := endpoint_problem(base_url):
        errors["base_url"] = problem
    if problem := key_variable_problem(api_key_env):
        errors["api_key_env"] = problem
    if errors:
        raise ValidationError(errors)
