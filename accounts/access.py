"""Who may manage accounts, and the only function fetching an account for that purpose."""

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from accounts.roles import AnyUser, is_admin


def check_can_manage_accounts(user: AnyUser) -> None:
    if not is_admin(user):
        raise PermissionDenied(_("Only admins manage accounts."))


def access_accounts_for_management(user: AnyUser) -> QuerySet:
    check_can_manage_accounts(user)
    return get_user_model().objects.select_related("profile").order_by("username")


def access_account_for_management(user: AnyUser, username: str) -> AbstractBaseUser:
    return get_object_or_404(access_accounts_for_management(user), username=username)
