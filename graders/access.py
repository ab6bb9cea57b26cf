"""The only functions that fetch grader configs and grading jobs for a user.

Grader output must never reach a physician before inspection, so every grader page and API call is for
admins and researchers only: physicians (and inspectors) get 403. Researchers start and watch jobs and
read configs; only admins create or edit configs.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from graders.models import GraderConfig, GradingJob
from medreview.roles import AnyUser, is_admin, is_researcher


def require_grading_access(user: AnyUser) -> None:
    if not is_researcher(user):  # researcher or admin
        raise PermissionDenied("Grader pages are for researchers and admins.")


def require_grader_admin(user: AnyUser) -> None:
    require_grading_access(user)
    if not is_admin(user):
        raise PermissionDenied("Only admins define graders.")


def grader_configs_for(user: AnyUser) -> QuerySet[GraderConfig]:
    require_grading_access(user)
    return GraderConfig.objects.select_related("prompt").order_by("name")


def grader_config_for_edit(user: AnyUser, pk: int) -> GraderConfig:
    require_grader_admin(user)
    return get_object_or_404(GraderConfig.objects.select_related("prompt"), pk=pk)


def grading_jobs_for(user: AnyUser) -> QuerySet[GradingJob]:
    require_grading_access(user)
    return GradingJob.objects.all()


def grading_job_for(user: AnyUser, pk: int) -> GradingJob:
    require_grading_access(user)
    return get_object_or_404(
        GradingJob.objects.select_related("config", "run", "prompt", "created_by"), pk=pk
    )
