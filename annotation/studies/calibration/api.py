"""Admitting a rater after calibration, through the API (like the study page's button).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access
from annotation.studies.calibration.services import rater_admit
from medreview.drf import TokenFirstAPIView


class AdmitInputSerializer(serializers.Serializer):
    rater = serializers.IntegerField(help_text="The rater's user id")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class AdmitResultSerializer(serializers.Serializer):
    rater = serializers.IntegerField()
    admitted_at = serializers.DateTimeField()


class CalibrationAdmitAPI(TokenFirstAPIView):
    @extend_schema(request=AdmitInputSerializer, responses=AdmitResultSerializer,
                   summary="Admit a rater to the study's main queue after calibration (admins)")
    def post(self, request: Request, study_pk: int) -> Response:
        study = access.access_study_for_management(request.user, study_pk)
        data = AdmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        rater = get_user_model().objects.filter(pk=data.validated_data["rater"]).first()
        if rater is None:
            raise ValidationError({"rater": "rater: no such user."})
        membership = rater_admit(study=study, rater=rater, actor=request.user,
                                 reason=data.validated_data.get("reason", ""))
        return Response(AdmitResultSerializer({"rater": rater.pk, "admitted_at": membership.admitted_at}).data)
