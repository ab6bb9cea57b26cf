"""The only functions that fetch grader configs and grading jobs for a user.

Grader output must never reach a physician before inspection, so every grader page and API call is for
admins and researchers only: physicians (and inspectors) get 403. Researchers start and watch jobs and
read configs; only admins create or edit configs. Names follow `access_<thing>_for_<purpose>`;
`check_can_<action>` is a role check without a row.
"""

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.roles import AnyUser, is_admin, is_researcher
from graders.models import GraderConfig, GradingJob


def check_can_use_graders(user: AnyUser) -> None:
    if not is_researcher(user):  # researcher or admin
        raise PermissionDenied(_("Grader pages are for researchers and admins."))


def check_can_manage_graders(user: AnyUser) -> None:
    check_can_use_graders(user)
    if not is_admin(user):
        raise PermissionDenied(_("Only admins define graders."))


def access_grader_configs_for_view(user: AnyUser) -> QuerySet[GraderConfig]:
    """Every config, for reading and for choosing the grader of a new job."""
    check_can_use_graders(user)
    return GraderConfig.objects.select_related("prompt").order_by("name")


def access_grader_configs_for_edit(user: AnyUser) -> QuerySet[GraderConfig]:
    """The admins' config page, with links to edit each one."""
    check_can_manage_graders(user)
    return access_grader_configs_for_view(user)


def access_grader_config_for_job(user: AnyUser, pk: int) -> GraderConfig:
    return get_object_or_404(access_grader_configs_for_view(user), pk=pk)


def access_grader_config_for_edit(user: AnyUser, pk: int) -> GraderConfig:
    check_can_manage_graders(user)
    return get_object_or_404(GraderConfig.objects.select_related("prompt"), pk=pk)


def access_grading_jobs_for_view(user: AnyUser) -> QuerySet[GradingJob]:
    check_can_use_graders(user)
    return GradingJob.objects.all()


def access_grading_job_for_view(user: AnyUser, pk: int) -> GradingJob:
    """Also for cancel, resume and retry: whoever may watch a job may steer it."""
    check_can_use_graders(user)
    return get_object_or_404(
        GradingJob.objects.select_related("config", "run", "prompt", "created_by"), pk=pk
    )
