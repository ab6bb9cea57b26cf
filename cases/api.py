"""API for benchmark data: list datasets and releases; import a file (admins)."""

from drf_spectacular.utils import extend_schema
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from cases import access, selectors
from cases.models import ImportFormat
from cases.serializers import (
    DatasetSerializer,
    ImportReportSerializer,
    ImportRequestSerializer,
    TaxonomyNodeQuerySerializer,
    TaxonomyNodeSerializer,
    TaxonomySerializer,
)
from cases.services import DEFAULT_DATASETS, release_import
from medreview.drf import report_or_validation_errors


class DatasetListAPI(APIView):
    @extend_schema(
        responses=DatasetSerializer(many=True),
        summary="Datasets with their releases (researchers and admins)",
    )
    def get(self, request: Request) -> Response:
        datasets = selectors.datasets_with_releases(
            access.access_datasets_for_browsing(request.user), access.access_releases_for_browsing(request.user)
        )
        return Response(DatasetSerializer(datasets, many=True).data)


class ImportAPI(APIView):
    """Validate (dry_run=true) or import one release file. Runs in the request: for files that
    take long, use the upload page, which runs the import as a background task."""

    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        request={"multipart/form-data": ImportRequestSerializer},
        responses={200: ImportReportSerializer, 201: ImportReportSerializer,
                   400: report_or_validation_errors("ImportReport")},
        summary="Import a release file (admins); 201 imported, 200 unchanged or dry run, 400 refused",
    )
    def post(self, request: Request) -> Response:
        access.check_can_import(request.user)
        incoming = ImportRequestSerializer(data=request.data)
        incoming.is_valid(raise_exception=True)
        data = incoming.validated_data
        fmt = data["format"]
        upload = data["file"]
        report = release_import(
            fmt=fmt, data=upload.read(), file_name=upload.name,
            dataset_name=(data.get("dataset") or "").strip() or DEFAULT_DATASETS[ImportFormat(fmt)],
            release_label=data.get("release") or "", model_name=data.get("model") or None,
            grader_model=data["grader_model"], user=request.user, dry_run=data["dry_run"],
            case_reports=(data["case_reports"].name, data["case_reports"].read()) if data.get("case_reports") else None,
            taxonomy=(data.get("taxonomy") or "").strip(),
        )
        status = {"imported": 201, "refused": 400}.get(report.status, 200)
        return Response(ImportReportSerializer(report.to_dict()).data, status=status)


class TaxonomyListAPI(APIView):
    @extend_schema(responses=TaxonomySerializer(many=True),
                   summary="Loaded taxonomies with their levels (every role)")
    def get(self, request: Request) -> Response:
        taxonomies = access.access_taxonomies_for_picking(request.user)
        return Response(TaxonomySerializer(taxonomies, many=True).data)


class TaxonomyNodeListAPI(APIView):
    """What a level picker offers; never the AI's labels (blind assignment reads it)."""

    @extend_schema(parameters=[TaxonomyNodeQuerySerializer], responses=TaxonomyNodeSerializer(many=True),
                   summary=f"Nodes of a taxonomy by level, parent or search, at most {selectors.PICKER_LIMIT} (every role)")
    def get(self, request: Request, pk: int) -> Response:
        nodes = access.access_taxonomy_nodes_for_picking(request.user, pk)
        query = TaxonomyNodeQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = selectors.taxonomy_nodes_for_picker(
            nodes, level=query.validated_data.get("level"), parent=query.validated_data.get("parent"),
            search=query.validated_data.get("q", ""),
        )
        return Response(TaxonomyNodeSerializer(found, many=True).data)
