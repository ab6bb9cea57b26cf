"""The only functions that fetch protected review rows for a user. HTML views and the API both use them.

Rules: an object the user may not see answers 404 (Http404), never 403, so its existence does not
leak; a read-only role (researcher) attempting a write answers 403 (PermissionDenied).
"""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404

from annotation.models import Assignment, Item, Role, Study, StudyMember
from medreview.roles import user_role

AnyUser = AbstractBaseUser | AnonymousUser


def _deny_read_only(user: AnyUser) -> None:
    if not user.is_authenticated:
        raise Http404("Not found.")
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied("Researchers have read-only access and cannot rate or inspect.")


def studies_for_user(user: AnyUser) -> QuerySet[Study]:
    """Studies the user may list: admins and researchers all; others those they are a member of."""
    role = user_role(user)
    if role in (Role.ADMIN, Role.RESEARCHER):
        return Study.objects.all()
    if role is None:
        return Study.objects.none()
    return Study.objects.filter(memberships__user=user).distinct()


def study_for_admin(user: AnyUser, pk: int) -> Study:
    role = user_role(user)
    if role == Role.RESEARCHER:
        if Study.objects.filter(pk=pk).exists():
            raise PermissionDenied("Researchers cannot manage studies.")
        raise Http404("Not found.")
    if role != Role.ADMIN:
        raise Http404("Not found.")
    try:
        return Study.objects.get(pk=pk)
    except Study.DoesNotExist as exc:
        raise Http404("Not found.") from exc


def study_for_rater(user: AnyUser, pk: int) -> Study:
    _deny_read_only(user)
    study = Study.objects.filter(
        pk=pk,
        memberships__user=user,
        memberships__role=StudyMember.Role.RATER,
    ).first()
    if study is None:
        raise Http404("Not found.")
    return study


def assignment_for_rater(user: AnyUser, pk: int) -> Assignment:
    _deny_read_only(user)
    assignment = (
        Assignment.objects.select_related("item", "item__study", "item__revision")
        # The source record as imported can be large and no rating screen shows it.
        .defer("item__revision__raw", "item__revision__extra")
        .filter(
            pk=pk,
            rater=user,
        )
        .first()
    )
    if assignment is None:
        raise Http404("Not found.")
    return assignment


def item_for_inspector(user: AnyUser, pk: int) -> Item:
    _deny_read_only(user)
    items = Item.objects.select_related("study", "revision", "revision__case", "response", "response_b")
    if user_role(user) == Role.ADMIN:
        item = items.filter(pk=pk).first()
    else:
        item = items.filter(
            pk=pk,
            study__memberships__user=user,
            study__memberships__role=StudyMember.Role.INSPECTOR,
        ).first()
    if item is None:
        raise Http404("Not found.")
    return item


def study_for_inspector(user: AnyUser, pk: int) -> Study:
    _deny_read_only(user)
    studies = Study.objects.all()
    if user_role(user) != Role.ADMIN:
        studies = studies.filter(
            memberships__user=user,
            memberships__role=StudyMember.Role.INSPECTOR,
        )
    study = studies.filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study


def study_for_reader(user: AnyUser, pk: int) -> Study:
    """Read access (reports, progress): researchers, admins and the study's own members."""
    study = studies_for_user(user).filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study


def study_for_progress(user: AnyUser, pk: int) -> Study:
    """Study progress shows every rater's throughput: admins, researchers and the study's inspectors."""
    role = user_role(user)
    if role in (Role.ADMIN, Role.RESEARCHER):
        studies = Study.objects.all()
    elif role is None:
        studies = Study.objects.none()
    else:
        studies = Study.objects.filter(
            memberships__user=user,
            memberships__role=StudyMember.Role.INSPECTOR,
        )
    study = studies.filter(pk=pk).first()
    if study is None:
        raise Http404("Not found.")
    return study
