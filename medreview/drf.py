"""The one place where service errors become HTTP errors for every API.

Body shapes, the same in every app:
- 400: DRF's validation shape, ``{"<field>": ["message", ...]}`` or ``{"non_field_errors": [...]}``;
- 401, 403, 404, 409, 429: ``{"detail": "message"}`` (the `Error` schema every operation documents);
- 503 with Retry-After, ``{"detail": "message"}``: the database was busy (SQLite's "database is
  locked"); the service's transaction stored nothing and the same request may be sent again.

Authentication errors count against the anonymous rate (API_THROTTLE_ANON): DRF authenticates and
checks permissions before its throttles, so a client guessing tokens would otherwise get 401 for
ever and never 429.
"""

import logging
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import OperationalError
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import AuthenticationFailed, NotAuthenticated, Throttled, ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView, set_rollback
from rest_framework.views import exception_handler as drf_exception_handler

from medreview.authentication import ProfileTokenAuthentication
from medreview.errors import BUSY_RETRY_AFTER_SECONDS, ConflictError, is_database_busy
from medreview.throttling import AnonThrottle

logger = logging.getLogger(__name__)


def _anonymous_failure_wait(context: dict[str, Any]) -> float | None:
    """Count one authentication failure of this client; the seconds to wait once it is past the
    anonymous rate, else None."""
    request, view = context.get("request"), context.get("view")
    if request is None or view is None:
        return None
    throttle = AnonThrottle()
    return None if throttle.allow_request(request, view) else (throttle.wait() or 1.0)


class TokenFirstAPIView(APIView):
    """Base of the review APIs: token authentication first, so that a missing or bad token answers
    401 with a WWW-Authenticate header (the session still works for the browser)."""

    authentication_classes = [ProfileTokenAuthentication, SessionAuthentication]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, NotAuthenticated | AuthenticationFailed):
        wait = _anonymous_failure_wait(context)
        if wait is not None:
            exc = Throttled(wait)
    if isinstance(exc, OperationalError) and is_database_busy(exc):
        return _busy_database(exc, context)
    if isinstance(exc, ConflictError):
        return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = ValidationError(detail)
    return drf_exception_handler(exc, context)


def _busy_database(exc: OperationalError, context: dict[str, Any]) -> Response:
    """503 with Retry-After: a lock outlived the busy timeout. The write's transaction has rolled
    back, so the client keeps its labels and sends the same request again."""
    request = context.get("request")
    logger.warning("busy database on %s: %s", getattr(request, "path", "?"), exc)
    set_rollback()
    response = Response(
        {"detail": _("The database is busy: nothing was stored. Keep your labels and try again in a moment.")},
        status=status.HTTP_503_SERVICE_UNAVAILABLE,
    )
    response["Retry-After"] = str(BUSY_RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response


#: The 400 body of a refused request parameter: {"field": ["message", ...]} (or nested for lists).
VALIDATION_ERROR_SCHEMA = {
    "type": "object",
    "description": 'Invalid request parameters: {"field": ["message", ...]} or {"non_field_errors": [...]}',
    "additionalProperties": {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "object"}]},
}


def report_or_validation_errors(component: str) -> dict[str, Any]:
    """Schema of a 400 that is either the endpoint's own report (`component`, a refused file) or
    the validation errors of its parameters, for `extend_schema(responses={400: ...})`."""
    return {"anyOf": [{"$ref": f"#/components/schemas/{component}"}, VALIDATION_ERROR_SCHEMA]}


#: The body of every 401, 403, 404, 409, 429 and 503 answer.
ERROR_SCHEMA = {
    "type": "object",
    "properties": {"detail": {"type": "string", "description": "What went wrong, in words"}},
    "required": ["detail"],
}
_ERROR_ANSWERS = (
    ("401", "Not signed in: no credentials, or an unknown, expired or revoked token", False),
    ("403", "Signed in, but this role or account may not do this", False),
    ("404", "No such object, or none this account may see", True),
    ("429", "Too many requests (API_THROTTLE_USER, API_THROTTLE_ANON); wait Retry-After seconds", False),
)
_METHODS = {"get", "post", "put", "patch", "delete"}


def document_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: every operation documents the 401, 403 and 429 answers
    every API view can give, and 404 where the path names an object; 429 with its Retry-After."""
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault("Error", ERROR_SCHEMA)
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in _METHODS:
                continue
            responses = operation.setdefault("responses", {})
            for code, description, needs_id in _ERROR_ANSWERS:
                if needs_id and "{" not in path:
                    continue
                responses.setdefault(code, {"description": description, "content": body})
            responses["429"].setdefault("headers", {"Retry-After": {
                "description": "Seconds until the client may try again", "schema": {"type": "integer"}}})
            if method != "get":  # a write the busy database refused stored nothing (exception_handler)
                responses.setdefault("503", {
                    "description": "The database was busy (SQLite's lock outlived the busy timeout): nothing "
                                   "was stored; send the same request again after Retry-After seconds",
                    "content": body, "headers": {"Retry-After": {
                        "description": "Seconds until the client may try again", "schema": {"type": "integer"}}}})
    return result
