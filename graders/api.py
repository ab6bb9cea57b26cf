"""REST API for grader configs (admin) and grading jobs (admin, researcher).

Service errors are not caught here: `medreview.drf.exception_handler` answers a Django
`ValidationError` with 400 and a `ConflictError` (the object's state forbids the action) with 409.
"""

from collections.abc import Callable

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from graders import access, selectors, services
from graders.models import GradingJob
from graders.serializers import GraderConfigSerializer, GradingJobCreateSerializer, GradingJobSerializer

CONFLICT = OpenApiResponse(description='Not allowed in the current state: {"detail": "..."}')


class GraderConfigListAPI(APIView):
    @extend_schema(responses=GraderConfigSerializer(many=True), summary="List grader configurations")
    def get(self, request: Request) -> Response:
        configs = access.access_grader_configs_for_view(request.user)
        return Response(GraderConfigSerializer(configs, many=True).data)

    @extend_schema(
        request=GraderConfigSerializer, responses={201: GraderConfigSerializer},
        summary="Create a grader (admin); the API key is read from the environment variable api_key_env",
    )
    def post(self, request: Request) -> Response:
        access.check_can_manage_graders(request.user)
        serializer = GraderConfigSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        text, version = serializer.prompt_values(None)
        config = services.grader_config_save(
            config=None, data=serializer.config_data(), prompt_text=text, prompt_version=version,
            user=request.user,
        )
        return Response(GraderConfigSerializer(config).data, status=status.HTTP_201_CREATED)


class GraderConfigDetailAPI(APIView):
    @extend_schema(responses=GraderConfigSerializer, summary="One grader configuration (admin)")
    def get(self, request: Request, pk: int) -> Response:
        return Response(GraderConfigSerializer(access.access_grader_config_for_edit(request.user, pk)).data)

    @extend_schema(
        request=GraderConfigSerializer, responses=GraderConfigSerializer,
        summary="Update a grader (admin); a changed prompt_text needs a new prompt_version",
    )
    def patch(self, request: Request, pk: int) -> Response:
        config = access.access_grader_config_for_edit(request.user, pk)
        serializer = GraderConfigSerializer(config, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        text, version = serializer.prompt_values(config)
        config = services.grader_config_save(
            config=config, data=serializer.config_data(), prompt_text=text, prompt_version=version,
            user=request.user,
        )
        return Response(GraderConfigSerializer(config).data)

    @extend_schema(responses={204: None, 409: CONFLICT}, summary="Delete a grader that has no jobs (admin)")
    def delete(self, request: Request, pk: int) -> Response:
        services.grader_config_delete(config=access.access_grader_config_for_edit(request.user, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)


class GradingJobListAPI(APIView):
    @extend_schema(responses=GradingJobSerializer(many=True), summary="List grading jobs (latest 200)")
    def get(self, request: Request) -> Response:
        jobs = selectors.job_list(access.access_grading_jobs_for_view(request.user))[:200]
        return Response(GradingJobSerializer(jobs, many=True).data)

    @extend_schema(
        request=GradingJobCreateSerializer, responses={201: GradingJobSerializer},
        summary="Start a grading job over a study, a release, or models' responses in a dataset",
    )
    def post(self, request: Request) -> Response:
        access.check_can_use_graders(request.user)
        serializer = GradingJobCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        config = access.access_grader_config_for_job(request.user, serializer.validated_data["config"].pk)
        job = services.grading_job_create(
            config=config, selection=serializer.selection(), created_by=request.user,
            parallel_tasks=serializer.validated_data["parallel_tasks"],
        )
        return Response(GradingJobSerializer(job).data, status=status.HTTP_201_CREATED)


class GradingJobDetailAPI(APIView):
    @extend_schema(responses=GradingJobSerializer, summary="A grading job's progress")
    def get(self, request: Request, pk: int) -> Response:
        return Response(GradingJobSerializer(access.access_grading_job_for_view(request.user, pk)).data)


def _job_action(request: Request, pk: int, service: Callable[..., GradingJob]) -> Response:
    job = service(job=access.access_grading_job_for_view(request.user, pk))
    # Read again through access: the service returns the locked row without its related objects.
    return Response(GradingJobSerializer(access.access_grading_job_for_view(request.user, job.pk)).data)


class GradingJobCancelAPI(APIView):
    @extend_schema(request=None, responses={200: GradingJobSerializer, 409: CONFLICT}, summary="Cancel a grading job")
    def post(self, request: Request, pk: int) -> Response:
        return _job_action(request, pk, services.grading_job_cancel)


class GradingJobResumeAPI(APIView):
    @extend_schema(
        request=None, responses={200: GradingJobSerializer, 409: CONFLICT},
        summary="Resume a cancelled, failed or stalled job; stored decisions are never asked again",
    )
    def post(self, request: Request, pk: int) -> Response:
        return _job_action(request, pk, services.grading_job_resume)
