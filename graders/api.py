"""REST API for grader configs (admin) and grading jobs (admin, researcher)."""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import ProtectedError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from graders import access, selectors, services
from graders.serializers import GraderConfigSerializer, GradingJobCreateSerializer, GradingJobSerializer


def _drf_error(exc: DjangoValidationError) -> serializers.ValidationError:
    return serializers.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)


class GraderConfigListApi(APIView):
    @extend_schema(responses=GraderConfigSerializer(many=True), summary="List grader configurations")
    def get(self, request: Request) -> Response:
        configs = access.grader_configs_for(request.user)
        return Response(GraderConfigSerializer(configs, many=True).data)

    @extend_schema(
        request=GraderConfigSerializer, responses={201: GraderConfigSerializer},
        summary="Create a grader (admin); the API key is read from the environment variable api_key_env",
    )
    def post(self, request: Request) -> Response:
        access.require_grader_admin(request.user)
        serializer = GraderConfigSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        text, version = serializer.prompt_values(None)
        try:
            config = services.grader_config_save(
                config=None, data=serializer.config_data(), prompt_text=text, prompt_version=version,
                user=request.user,
            )
        except DjangoValidationError as exc:
            raise _drf_error(exc) from exc
        return Response(GraderConfigSerializer(config).data, status=status.HTTP_201_CREATED)


class GraderConfigDetailApi(APIView):
    @extend_schema(responses=GraderConfigSerializer, summary="One grader configuration (admin)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(GraderConfigSerializer(access.grader_config_for_edit(request.user, pk)).data)

    @extend_schema(
        request=GraderConfigSerializer, responses=GraderConfigSerializer,
        summary="Update a grader (admin); a changed prompt_text needs a new prompt_version",
    )
    def patch(self, request: Request, pk: int) -> Response:
        config = access.grader_config_for_edit(request.user, pk)
        serializer = GraderConfigSerializer(config, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        text, version = serializer.prompt_values(config)
        try:
            config = services.grader_config_save(
                config=config, data=serializer.config_data(), prompt_text=text, prompt_version=version,
                user=request.user,
            )
        except DjangoValidationError as exc:
            raise _drf_error(exc) from exc
        return Response(GraderConfigSerializer(config).data)

    @extend_schema(responses={204: None, 409: None}, summary="Delete a grader that has no jobs (admin)")
    def delete(self, request: Request, pk: int) -> Response:
        config = access.grader_config_for_edit(request.user, pk)
        try:
            config.delete()
        except ProtectedError:
            return Response({"detail": "This grader has grading jobs; it cannot be deleted."}, status=409)
        return Response(status=status.HTTP_204_NO_CONTENT)


class GradingJobListApi(APIView):
    @extend_schema(responses=GradingJobSerializer(many=True), summary="List grading jobs (latest 200)")
    def get(self, request: Request) -> Response:
        jobs = selectors.job_list(access.grading_jobs_for(request.user))[:200]
        return Response(GradingJobSerializer(jobs, many=True).data)

    @extend_schema(
        request=GradingJobCreateSerializer, responses={201: GradingJobSerializer},
        summary="Start a grading job over a study, a release, or models' responses in a dataset",
    )
    def post(self, request: Request) -> Response:
        access.require_grading_access(request.user)
        serializer = GradingJobCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        config = access.grader_configs_for(request.user).get(pk=serializer.validated_data["config"].pk)
        try:
            job = services.grading_job_create(
                config=config, selection=serializer.selection(), created_by=request.user,
                parallel_tasks=serializer.validated_data["parallel_tasks"],
            )
        except DjangoValidationError as exc:
            raise _drf_error(exc) from exc
        return Response(GradingJobSerializer(job).data, status=status.HTTP_201_CREATED)


class GradingJobDetailApi(APIView):
    @extend_schema(responses=GradingJobSerializer, summary="A grading job's progress")
    def get(self, request: Request, pk: int) -> Response:
        return Response(GradingJobSerializer(access.grading_job_for(request.user, pk)).data)


class _JobActionApi(APIView):
    action_name = ""

    def post(self, request: Request, pk: int) -> Response:
        job = access.grading_job_for(request.user, pk)
        service = {"cancel": services.grading_job_cancel, "resume": services.grading_job_resume}[self.action_name]
        try:
            job = service(job=job)
        except DjangoValidationError as exc:
            return Response({"detail": " ".join(exc.messages)}, status=status.HTTP_409_CONFLICT)
        return Response(GradingJobSerializer(access.grading_job_for(request.user, job.pk)).data)


class GradingJobCancelApi(_JobActionApi):
    action_name = "cancel"

    @extend_schema(request=None, responses={200: GradingJobSerializer, 409: None}, summary="Cancel a grading job")
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)


class GradingJobResumeApi(_JobActionApi):
    action_name = "resume"

    @extend_schema(
        request=None, responses={200: GradingJobSerializer, 409: None},
        summary="Resume a cancelled, failed or stalled job; stored decisions are never asked again",
    )
    def post(self, request: Request, pk: int) -> Response:
        return super().post(request, pk)
