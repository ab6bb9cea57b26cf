"""Invitations from the browser: invite one person or a CSV of people, resend, revoke; and the
pending invitations. Built on `accounts.services` so the page, the command and the API agree.

An invitation is pending while the account is active, has never signed in, has no usable password
and no single sign-on identity. Resending voids the earlier link (a new unusable password changes
the hash the token is made from); revoking deactivates the account (`account_deactivate`: the link
stops working, nothing is deleted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from accounts.access import check_can_manage_accounts
from accounts.services import (
    AccountData,
    account_deactivate,
    account_invite,
    account_save,
    accounts_import_csv,
)

User = AbstractBaseUser

_NOT_USERNAME = re.compile(r"[^\w.@+-]")


def pending_invitations() -> QuerySet:
    return (
        get_user_model().objects.filter(is_active=True, last_login__isnull=True, password__startswith="!",  # noqa: S106 (Django's unusable-password prefix)
                                        oidc_identities__isnull=True)
        .select_related("profile").order_by("-date_joined")
    )


def _free_username(email: str) -> str:
    base = _NOT_USERNAME.sub("", email.split("@", 1)[0])[:140] or "user"
    users = get_user_model().objects
    candidate, n = base, 1
    while users.filter(username__iexact=candidate).exists():
        n += 1
        candidate = f"{base}{n}"
    return candidate


def person_invite(*, data: AccountData, base_url: str, by: User) -> tuple[User, str]:
    """Create the account (a pseudonym generated) and e-mail its one-time link; returns (user, link).

    Refused: a username or an e-mail address another account already has (inviting never edits an
    existing account; edit it in the admin)."""
    check_can_manage_accounts(by)
    users = get_user_model().objects
    username = data.username.strip() or _free_username(data.email)
    if users.filter(username__iexact=username).exists():
        raise ValidationError({"username": _("username: an account named %(name)s already exists.") % {
            "name": username}})
    if data.email and users.filter(email__iexact=data.email).exists():
        raise ValidationError({"email": _("email: an account with %(email)s already exists.") % {
            "email": data.email}})
    user, _created = account_save(data=AccountData(**{**data.__dict__, "username": username}))
    # The e-mail goes after the account's transaction has committed (account_save's), never inside it.
    return user, account_invite(user=user, base_url=base_url)


@dataclass
class CSVInvitations:
    invited: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def people_invite_csv(*, data: bytes, base_url: str, by: User) -> CSVInvitations:
    """Every account of the file (one bad row: nothing written, every error located), then an
    invitation to each new account."""
    check_can_manage_accounts(by)
    report = accounts_import_csv(data=data)
    result = CSVInvitations(errors=[str(e) for e in report.errors], updated=list(report.updated))
    if report.errors:
        return result
    for user in get_user_model().objects.filter(username__in=report.created).order_by("username"):
        account_invite(user=user, base_url=base_url)
        result.invited.append(user.get_username())
    return result


def _pending(user: User) -> User:
    row = pending_invitations().filter(pk=user.pk).first()
    if row is None:
        raise ValidationError({"username": _("%(name)s has no pending invitation (already signed in, or "
                                             "deactivated).") % {"name": user.get_username()}})
    return row


def invitation_resend(*, user: User, base_url: str, by: User) -> str:
    """A new link by e-mail; the earlier links stop working."""
    check_can_manage_accounts(by)
    # Locks the account row while its password hash changes, so a concurrent "set password" on the old
    # link either finishes first (then nothing is pending) or finds its token void.
    with transaction.atomic():
        row = get_user_model().objects.select_for_update().get(pk=_pending(user).pk)
        row.set_unusable_password()
        row.save(update_fields=["password"])
    return account_invite(user=row, base_url=base_url)


def invitation_revoke(*, user: User, by: User) -> None:
    """The link stops working and the account is deactivated (kept, as every account is)."""
    check_can_manage_accounts(by)
    account_deactivate(user=_pending(user), by=by)
