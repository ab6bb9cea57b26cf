"""Errors the services raise, shared by every app.

Services raise Django's ``ValidationError`` for input a caller can correct (HTTP 400) and
``ConflictError`` when the request is well formed but the object's state forbids it now (HTTP 409:
a job already finished, a grader that still has jobs). Pages show both as form errors; the API maps
them in ``medreview.drf.exception_handler``. A busy database (``is_database_busy``) is neither: the
request stored nothing and may be retried (HTTP 503 with Retry-After).
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import OperationalError
from django.http import HttpRequest

#: How long a client waits before retrying a request the busy database refused (Retry-After).
BUSY_RETRY_AFTER_SECONDS = 1


class ConflictError(ValidationError):
    """The object's current state forbids the action; retrying the same request will not help."""


def error_messages(exc: ValidationError) -> list[str]:
    """A service error's messages, for a page to show (form errors or flash messages)."""
    return [str(message) for message in exc.messages]


def flash_error_messages(request: HttpRequest, exc: ValidationError) -> None:
    """A refused action on a page that redirects: each of the service's messages shown once, on the
    next page."""
    for message in error_messages(exc):
        messages.error(request, message)


def is_database_busy(exc: OperationalError) -> bool:
    """SQLite's "database is locked" / "database table is locked", or a lock wait that timed out:
    the request stored nothing and the same request can succeed in a moment (pages and API answer
    503 with Retry-After; any other OperationalError stays a server error)."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "lock timeout" in text
