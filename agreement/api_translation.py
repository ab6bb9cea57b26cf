"""The translation-consistency report of a study over the API (LiveClin Appendix H; docs/i18n.md)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement.access import access_study_for_report
from agreement.api import PERMISSIONS
from agreement.reports.translation import report_as_dict, translation_consistency_report


class TranslationConsistencyAPI(APIView):
    """Consistency rate (95% Wilson CI) pooled, per rater pseudonym and per field type; AC1 between raters."""

    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, pk: int) -> Response:
        study = access_study_for_report(request.user, pk)
        return Response({"study": study.pk, **report_as_dict(translation_consistency_report(study))})
