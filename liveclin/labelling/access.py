"""The only functions that fetch label-task rows for a user (pages, API and services use them).

Like `annotation.access`: what the user may not see answers 404, so its existence does not leak; a
researcher (read-only) attempting to label or decide answers 403.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.roles import AnyUser, user_role
from liveclin.models import LabelTask, LabelTaskMember, LabelUnit


def _deny_read_only(user: AnyUser) -> None:
    if not user.is_authenticated:
        raise Http404("Not found.")
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers have read-only access and cannot rate or inspect."))


def _member_of(user: AnyUser, role: str) -> QuerySet[LabelTask]:
    return LabelTask.objects.filter(memberships__user_id=user.pk, memberships__role=role)


def access_tasks_for_listing(user: AnyUser) -> QuerySet[LabelTask]:
    """The label tasks a physician rates or inspects; every task for an admin."""
    if not user.is_authenticated:
        return LabelTask.objects.none()
    if user_role(user) == Role.ADMIN:
        return LabelTask.objects.all()
    return LabelTask.objects.filter(memberships__user_id=user.pk).distinct()


def access_task_for_rating(user: AnyUser, pk: int) -> LabelTask:
    _deny_read_only(user)
    task = _member_of(user, LabelTaskMember.Role.RATER).filter(pk=pk).first()
    if task is None:
        raise Http404("Not found.")
    return task


def access_unit_for_rating(user: AnyUser, pk: int) -> LabelUnit:
    """A unit of a task the user rates (404 otherwise; 403 for a researcher)."""
    _deny_read_only(user)
    unit = (LabelUnit.objects.select_related("task", "revision", "ai_label", "ai_label__mcq")
            .filter(pk=pk, task__memberships__user_id=user.pk,
                    task__memberships__role=LabelTaskMember.Role.RATER).first())
    if unit is None:
        raise Http404("Not found.")
    return unit


def _inspects(user: AnyUser) -> QuerySet[LabelTask]:
    if user_role(user) == Role.ADMIN:
        return LabelTask.objects.all()
    return _member_of(user, LabelTaskMember.Role.INSPECTOR)


def access_task_for_inspection(user: AnyUser, pk: int) -> LabelTask:
    _deny_read_only(user)
    task = _inspects(user).filter(pk=pk).first()
    if task is None:
        raise Http404("Not found.")
    return task


def access_unit_for_inspection(user: AnyUser, pk: int) -> LabelUnit:
    """A unit of a task the user inspects (admins inspect every task). A unit the user answered is
    someone else's to decide (403), like every inspection."""
    _deny_read_only(user)
    unit = LabelUnit.objects.select_related("task", "revision", "ai_label", "ai_label__mcq").filter(
        pk=pk, task__in=_inspects(user)).first()
    if unit is None:
        raise Http404("Not found.")
    if unit.answers.filter(rater_id=user.pk).exists():
        raise PermissionDenied(_("You rated this item; another inspector must decide it."))
    return unit


def access_task_for_report(user: AnyUser, pk: int) -> LabelTask:
    """Researchers and admins read every task's report; an inspector the tasks they inspect."""
    if not user.is_authenticated:
        raise Http404("Not found.")
    if user_role(user) in (Role.RESEARCHER, Role.ADMIN):
        tasks = LabelTask.objects.all()
    else:
        tasks = _member_of(user, LabelTaskMember.Role.INSPECTOR)
    task = tasks.filter(pk=pk).first()
    if task is None:
        raise Http404("Not found.")
    return task
