"""POST /api/studies/<id>/labels/import/: physicians' labels collected outside medreview, into a study.

Admins only (like managing the study). One file, one transaction: 201 with the report when
imported, 200 for a dry run, 400 with every located error (file, record, field) when refused.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.access import access_study_for_management
from annotation.outside_labels import physician_labels_import
from medreview.authentication import ProfileTokenAuthentication

MAX_BYTES = 50 * 1024 * 1024


class LabelsImportSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="CSV, JSON Lines or a JSON list in the long format of docs/formats.md")
    dry_run = serializers.BooleanField(required=False, default=False)


class StudyLabelsImportAPI(APIView):
    authentication_classes = [ProfileTokenAuthentication, SessionAuthentication]
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request=LabelsImportSerializer, responses={200: dict, 201: dict, 400: dict},
                   summary="Import physicians' labels collected outside medreview into a study")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access_study_for_management(request.user, study_pk)
        body = LabelsImportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        upload = body.validated_data["file"]
        if upload.size > MAX_BYTES:
            raise serializers.ValidationError({"file": [f"file: larger than {MAX_BYTES // (1024 * 1024)} MB."]})
        report = physician_labels_import(
            study=study, data=upload.read(), file_name=upload.name, user=request.user,
            dry_run=body.validated_data["dry_run"],
        )
        code = 400 if not report.ok else (200 if report.status == "dry-run" else 201)
        return Response(report.to_dict(), status=code)
