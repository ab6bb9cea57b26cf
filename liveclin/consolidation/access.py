"""The only functions that fetch consolidations for a user. Reviewers (physicians an admin named)
review; admins revise and approve; researchers read the reports. Unseen rows answer 404; a
read-only role trying to write answers 403."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.roles import AnyUser, user_role
from liveclin.models import Consolidation


def access_consolidations_for_listing(user: AnyUser) -> QuerySet[Consolidation]:
    if not user.is_authenticated:
        return Consolidation.objects.none()
    if user_role(user) in (Role.ADMIN, Role.RESEARCHER):
        return Consolidation.objects.all()
    return Consolidation.objects.filter(reviewers__pk=user.pk)


def _fetch(user: AnyUser, pk: int) -> Consolidation:
    found = access_consolidations_for_listing(user).filter(pk=pk).first()
    if found is None:
        raise Http404("Not found.")
    return found


def access_consolidation_for_reading(user: AnyUser, pk: int) -> Consolidation:
    return _fetch(user, pk)


def access_consolidation_for_review(user: AnyUser, pk: int) -> Consolidation:
    found = _fetch(user, pk)
    if user_role(user) == Role.RESEARCHER:
        raise PermissionDenied(_("Researchers have read-only access and cannot rate or inspect."))
    return found


def access_consolidation_for_management(user: AnyUser, pk: int) -> Consolidation:
    found = _fetch(user, pk)
    if user_role(user) != Role.ADMIN:
        raise PermissionDenied(_("Only admins revise and approve a consolidation."))
    return found
