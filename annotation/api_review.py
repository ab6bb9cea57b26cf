"""API of issue 11's rater and admin steps: edit a submitted item before inspection, give a claim
back (stop for the day), admit a rater after calibration. Same conventions as `annotation.api`:
access function, service, output serializer; service errors are mapped by the exception handler
(400 correctable input, 409 when the item's state forbids the change)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from annotation import access
from annotation.api import ReviewBaseAPI, _assignment
from annotation.serializers import AssignmentEnvelopeSerializer, AssignmentSerializer, SubmitInputSerializer
from annotation.services.calibration import rater_admit
from annotation.services.editing import assignment_release, rating_edit


class ReleaseResultSerializer(serializers.Serializer):
    released = serializers.BooleanField(help_text="False when the claim holds a draft (it is kept)")
    assignment = AssignmentSerializer()


class AdmitInputSerializer(serializers.Serializer):
    rater = serializers.IntegerField(help_text="The rater's user id")
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000)


class AdmitResultSerializer(serializers.Serializer):
    rater = serializers.IntegerField()
    admitted_at = serializers.DateTimeField()


class AssignmentEditAPI(ReviewBaseAPI):
    @extend_schema(request=SubmitInputSerializer, responses=AssignmentEnvelopeSerializer,
                   summary="Change your submitted labels before the item's inspection starts (409 after)")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        data = SubmitInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        edited = rating_edit(assignment=a, rater=request.user, labels=data.validated_data["labels"],
                             seconds_spent=data.validated_data["seconds_spent"])
        return Response(AssignmentEnvelopeSerializer({"assignment": _assignment(edited, {})}).data)


class AssignmentReleaseAPI(ReviewBaseAPI):
    @extend_schema(request=None, responses=ReleaseResultSerializer,
                   summary="Stop for the day: give back a claim that holds no draft")
    def post(self, request: Request, pk: int) -> Response:
        a = access.access_assignment_for_rating(request.user, pk)
        released = assignment_release(assignment=a, rater=request.user)
        a.refresh_from_db()
        return Response(ReleaseResultSerializer({"released": released, "assignment": _assignment(a, {})}).data)


class CalibrationAdmitAPI(ReviewBaseAPI):
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
