"""API rate limits (DRF throttles) whose rates are read from settings at request time.

DRF's own throttles copy DEFAULT_THROTTLE_RATES once, at import; reading `API_THROTTLE_RATES` on
each request lets deployments (and tests) change the rates without a restart of the import chain.
Counts live in the default cache (per process unless a shared cache is configured), so the limit
is per web process: generous for people, a brake on a runaway script.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


class _SettingsRate:
    scope: str

    def get_rate(self) -> str | None:
        return settings.API_THROTTLE_RATES.get(self.scope)


class UserThrottle(_SettingsRate, UserRateThrottle):
    scope = "user"


class AnonThrottle(_SettingsRate, AnonRateThrottle):
    scope = "anon"
