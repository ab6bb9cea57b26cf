"""Errors the services raise, shared by every app.

Services raise Django's ``ValidationError`` for input a caller can correct (HTTP 400) and
``ConflictError`` when the request is well formed but the object's state forbids it now (HTTP 409:
a job already finished, a grader that still has jobs). Pages show both as form errors; the API maps
them in ``medreview.drf.exception_handler``.
"""

from django.core.exceptions import ValidationError


class ConflictError(ValidationError):
    """The object's current state forbids the action; retrying the same request will not help."""


def error_messages(exc: ValidationError) -> list[str]:
    """A service error's messages, for a page to show (form errors or flash messages)."""
    return [str(message) for message in exc.messages]
