"""Writes to accounts: create or update a user with its profile, bulk from CSV, invite, deactivate.

Used by the `accounts` command, the accounts API and the OIDC sign-in alike. Deactivating never
deletes: every label, inspection and event keeps pointing at the user.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.csv_import import AccountRow, RowError, parse_accounts_csv
from accounts.models import Profile, Rank, Role
from accounts.tokens import tokens_revoke


class InvitationTokenGenerator(PasswordResetTokenGenerator):
    """One-time: the token hashes the password, so it stops working once the invitee sets one.
    Expires after PASSWORD_RESET_TIMEOUT (settings: INVITATION_DAYS)."""

    key_salt = "medreview.accounts.invitation"


invitation_tokens = InvitationTokenGenerator()


@dataclass(frozen=True)
class AccountData:
    """What the command, the API and the CSV import say about one account."""

    username: str
    role: str
    email: str = ""
    rank: str = ""
    specialties: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    first_name: str = ""
    last_name: str = ""

    @classmethod
    def from_row(cls, row: AccountRow) -> AccountData:
        return cls(
            username=row.username, role=row.role, email=row.email, rank=row.rank, specialties=row.specialties,
            languages=row.languages, first_name=row.first_name, last_name=row.last_name,
        )


def _validate(data: AccountData) -> None:
    errors: dict[str, str] = {}
    if data.role not in Role.values:
        errors["role"] = _("unknown role %(value)s; expected one of %(choices)s") % {
            "value": repr(data.role), "choices": ", ".join(Role.values)}
    if data.rank and data.rank not in Rank.values:
        errors["rank"] = _("unknown rank %(value)s; expected one of %(choices)s or empty") % {
            "value": repr(data.rank), "choices": ", ".join(Rank.values)}
    if not data.username.strip():
        errors["username"] = _("must not be empty")
    if errors:
        raise ValidationError(errors)


def _new_pseudonym() -> str:
    # Researchers see raters only by pseudonym: random, so it says nothing about the person.
    while True:
        candidate = f"R-{secrets.token_hex(4)}"
        if not Profile.objects.filter(pseudonym=candidate).exists():
            return candidate


def _save_one(data: AccountData) -> tuple[AbstractBaseUser, bool]:
    """Create or update one user and its profile; the caller holds the transaction."""
    User = get_user_model()
    user = User.objects.select_for_update().filter(username__iexact=data.username).first()
    created = user is None
    if user is None:
        user = User(username=data.username)
        user.set_unusable_password()  # the invitation link sets it; OIDC users never need one
    user.email = data.email or user.email
    user.first_name = data.first_name or user.first_name
    user.last_name = data.last_name or user.last_name
    user.full_clean(exclude=["password"], validate_unique=created)
    user.save()
    profile = Profile.objects.filter(user=user).first() or Profile(user=user, pseudonym=_new_pseudonym())
    profile.role = data.role
    profile.rank = data.rank
    profile.specialties = list(data.specialties)
    profile.languages = list(data.languages)
    profile.save()
    return user, created


def account_save(*, data: AccountData) -> tuple[AbstractBaseUser, bool]:
    """Create the account, or update the one with this username (case-insensitive). Returns
    (user, created). Raises ValidationError for bad values."""
    _validate(data)
    # One user row (locked FOR UPDATE if it exists) and its profile, written together.
    with transaction.atomic():
        try:
            return _save_one(data)
        except IntegrityError as exc:  # two requests creating one username at once
            raise ValidationError({"username": _("an account with this username was just created")}) from exc


@dataclass
class AccountsImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "refused" if self.errors else ("dry-run" if self.dry_run else "imported"),
            "created": self.created, "updated": self.updated,
            "errors": [e.as_dict() for e in self.errors],
        }


def accounts_import_csv(*, data: bytes, dry_run: bool = False) -> AccountsImportReport:
    """Create or update every account of a CSV file; one bad row and nothing is written."""
    parsed = parse_accounts_csv(data)
    report = AccountsImportReport(errors=list(parsed.errors), dry_run=dry_run)
    if report.errors:
        return report
    lowered = [row.username.lower() for row in parsed.rows]
    existing = set(
        get_user_model().objects.annotate(lowered=Lower("username")).filter(lowered__in=lowered)
        .values_list("lowered", flat=True)
    )
    for row in parsed.rows:
        (report.updated if row.username.lower() in existing else report.created).append(row.username)
    if dry_run:
        return report
    # The whole file in one transaction: a row failing at the database rolls back every row.
    try:
        with transaction.atomic():
            for row in parsed.rows:
                try:
                    _save_one(AccountData.from_row(row))
                except ValidationError as exc:
                    report.errors.extend(_row_errors(row, exc))
            if report.errors:
                raise _RollBack
    except _RollBack:
        report.created, report.updated = [], []
    return report


class _RollBack(Exception):
    pass


def _row_errors(row: AccountRow, exc: ValidationError) -> Iterable[RowError]:
    if hasattr(exc, "error_dict"):
        for column, messages in exc.message_dict.items():
            for message in messages:
                yield RowError(row.line, column, message)
    else:
        for message in exc.messages:
            yield RowError(row.line, None, message)


def account_deactivate(*, user: AbstractBaseUser) -> None:
    """Sign-in and API tokens stop working; labels, inspections and events stay as they are."""
    # One user row; its API tokens are deleted in the same transaction so none outlives it.
    with transaction.atomic():
        type(user).objects.filter(pk=user.pk).update(is_active=False)
        tokens_revoke(user=user)
    user.is_active = False


def account_reactivate(*, user: AbstractBaseUser) -> None:
    type(user).objects.filter(pk=user.pk).update(is_active=True)
    user.is_active = True


def invitation_link(*, user: AbstractBaseUser, base_url: str) -> str:
    uid = urlsafe_base64_encode(force_bytes(user.pk))
    path = reverse("accounts:invitation", args=[uid, invitation_tokens.make_token(user)])
    return base_url.rstrip("/") + path


def account_invite(*, user: AbstractBaseUser, base_url: str) -> str:
    """E-mail a one-time link where the user sets a password; returns the link (shown to admins
    only when no e-mail address is known)."""
    if not user.is_active:
        raise ValidationError({"username": _("the account is deactivated; reactivate it first")})
    link = invitation_link(user=user, base_url=base_url)
    if user.email:
        days = max(1, settings.PASSWORD_RESET_TIMEOUT // 86400)
        # In the invitee's interface language when an admin set one, else the inviting admin's.
        profile = getattr(user, "profile", None)
        with translation.override(getattr(profile, "language", "") or translation.get_language()):
            send_mail(
                subject=_("Your medreview account"),
                message=_("You have been invited to medreview as %(username)s.") % {"username": user.get_username()}
                + "\n\n" + ngettext(
                    "Choose your password here (the link works once and for %(days)s day):",
                    "Choose your password here (the link works once and for %(days)s days):", days,
                ) % {"days": days} + f"\n{link}\n",
                from_email=None, recipient_list=[user.email],
            )
    return link
