"""The agreement reports over the API: same reports, same exports, researchers and admins only."""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement import exports
from agreement.access import (
    PERMISSIONS,
    access_item_ids_blinded_for_export,
    access_release_for_report,
    access_studies_for_report,
    access_study_for_report,
)
from agreement.reports import cached_report
from agreement.reports.tables.translation import report_as_dict, translation_consistency_report
from agreement.selectors import Selection
from agreement.serializers import ReportQuerySerializer, ReportSerializer, StudySummarySerializer
from annotation.outcomes.audit import HEAD_HEADER, chain_head, head_header
from annotation.outcomes.responses import wants_calibration

FORMAT_PARAMETER = OpenApiParameter("fmt", str, OpenApiParameter.PATH, enum=list(exports.FORMATS),
                                    description="csv = zip of one CSV per table; xlsx; json; tex (booktabs)")


def _selection(request: Request, **scope: int) -> Selection:
    query = ReportQuerySerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.selection(**scope)


def _file(selection: Selection, fmt: str) -> HttpResponse:
    if fmt not in exports.FORMATS:
        raise ValidationError({"fmt": _("Unknown format %(fmt)s; choose from %(formats)s.")
                               % {"fmt": repr(fmt), "formats": ", ".join(exports.FORMATS)}})
    report = cached_report(selection)
    response = HttpResponse(exports.render(report, fmt), content_type=exports.FORMATS[fmt][0])
    response["Content-Disposition"] = f'attachment; filename="{exports.filename(report, fmt)}"'
    return response


class StudyListAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(responses=StudySummarySerializer(many=True), summary="Studies a researcher can report on")
    def get(self, request: Request) -> Response:
        studies = access_studies_for_report(request.user).annotate(n_items=Count("items")).order_by("-created_at")
        rows = [
            {"id": s.pk, "name": s.name, "status": s.status, "n_items": s.n_items,
             "report_url": reverse("agreement_api:study_report", args=[s.pk])}
            for s in studies
        ]
        return Response(StudySummarySerializer(rows, many=True).data)


class StudyReportAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer], responses=ReportSerializer,
                   summary="Agreement report of a study (LiveMedBench Tables 1-2, ClinConsensus 6.1, Table 15)")
    def get(self, request: Request, pk: int) -> Response:
        study = access_study_for_report(request.user, pk)
        report = cached_report(_selection(request, study_id=study.pk))
        return Response(ReportSerializer(exports.report_dict(report)).data)


class StudyExportAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer, FORMAT_PARAMETER],
                   responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)},
                   summary="A study's report as a file")
    def get(self, request: Request, pk: int, fmt: str) -> HttpResponse:
        study = access_study_for_report(request.user, pk)
        return _file(_selection(request, study_id=study.pk), fmt)


def _pdf(selection: Selection, title: str) -> HttpResponse:
    pdf, name = exports.selection_pdf(selection, title=title)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


PDF_RESPONSE = {(200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY)}


class StudyReportPDFAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer], responses=PDF_RESPONSE,
                   summary="A study's whole report as a PDF (rendered on the server)")
    def get(self, request: Request, pk: int) -> HttpResponse:
        study = access_study_for_report(request.user, pk)
        return _pdf(_selection(request, study_id=study.pk), f"Agreement report: {study.name}")


class ReleaseReportPDFAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer], responses=PDF_RESPONSE,
                   summary="A release's whole report as a PDF (rendered on the server)")
    def get(self, request: Request, pk: int) -> HttpResponse:
        release = access_release_for_report(request.user, pk)
        return _pdf(_selection(request, release_id=release.pk), f"Agreement report: {release}")


class StudyLabelsAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(
        parameters=[OpenApiParameter(
            "calibration", str, OpenApiParameter.QUERY, enum=["1"],
            description="1: include calibration items' labels (round 0), each row marked calibration=True; "
                        "left out by default")],
        responses={(200, "text/csv"): OpenApiResponse(OpenApiTypes.STR)},
        summary="Raw labels of a study in long format, all rounds, raters by pseudonym")
    def get(self, request: Request, pk: int) -> StreamingHttpResponse:
        study = access_study_for_report(request.user, pk)
        calibration = wants_calibration(request.query_params)
        response = StreamingHttpResponse(exports.raw_labels_lines(
            Selection(study_id=study.pk), hidden_items=access_item_ids_blinded_for_export(request.user, [study.pk]),
            calibration=calibration),
                                         content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="labels-study{study.pk}.csv"'
        response[HEAD_HEADER] = head_header([chain_head(study)])
        return response


class ReleaseReportAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer], responses=ReportSerializer,
                   summary="Agreement report over every study's ratings of one release's cases")
    def get(self, request: Request, pk: int) -> Response:
        release = access_release_for_report(request.user, pk)
        report = cached_report(_selection(request, release_id=release.pk))
        return Response(ReportSerializer(exports.report_dict(report)).data)


class ReleaseExportAPI(APIView):
    permission_classes = PERMISSIONS

    @extend_schema(parameters=[ReportQuerySerializer, FORMAT_PARAMETER],
                   responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY)},
                   summary="A release's report as a file")
    def get(self, request: Request, pk: int, fmt: str) -> HttpResponse:
        release = access_release_for_report(request.user, pk)
        return _file(_selection(request, release_id=release.pk), fmt)


class TranslationConsistencyAPI(APIView):
    """Consistency rate (95% Wilson CI) pooled, per rater pseudonym and per field type; AC1 between raters."""

    permission_classes = PERMISSIONS

    @extend_schema(responses=OpenApiTypes.OBJECT)
    def get(self, request: Request, pk: int) -> Response:
        study = access_study_for_report(request.user, pk)
        return Response({"study": study.pk, **report_as_dict(translation_consistency_report(study))})
