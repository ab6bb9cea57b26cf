"""The one place where service errors become HTTP errors for every API.

Body shapes, the same in every app:
- 400: DRF's validation shape, ``{"<field>": ["message", ...]}`` or ``{"non_field_errors": [...]}``;
- 409: ``{"detail": "message"}``.
"""

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from medreview.errors import ConflictError


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ConflictError):
        return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
    if isinstance(exc, DjangoValidationError):
        detail = exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        exc = ValidationError(detail)
    return drf_exception_handler(exc, context)
