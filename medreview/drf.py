"""The one place where service errors become HTTP errors for every API.

Body shapes, the same in every app:
- 400: DRF's validation shape, ``{"<field>": ["message", ...]}`` or ``{"non_field_errors": [...]}``;
- 409: ``{"detail": "message"}``.
"""

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from medreview.authentication import ProfileTokenAuthentication
from medreview.errors import ConflictError


class TokenFirstAPIView(APIView):
    """Base of the review APIs: token authentication first, so that a missing or bad token answers
    401 with a WWW-Authenticate header (the session still works for the browser)."""

    authentication_classes = [ProfileTokenAuthentication, SessionAuthentication]


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ConflictError):
        return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = ValidationError(detail)
    return drf_exception_handler(exc, context)


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
