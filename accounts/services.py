"""Writes to accounts: create or update a user with its profile, bulk from CSV, invite, deactivate,
and bind single sign-on identities to accounts.

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
from django.db.models import Q
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils import translation
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.csv_import import AccountRow, RowError, parse_accounts_csv
from accounts.models import OIDCIdentity, Profile, Rank, Role
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


def new_pseudonym() -> str:
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
    profile = Profile.objects.filter(user=user).first() or Profile(user=user, pseudonym=new_pseudonym())
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


def check_can_deactivate(*, user: AbstractBaseUser, by: AbstractBaseUser | None) -> None:
    """Nobody deactivates their own account, the last active superuser or the last active admin:
    someone must always be able to manage accounts. Raises ValidationError."""
    if by is not None and by.pk == user.pk:
        raise ValidationError({"username": "you cannot deactivate your own account; ask another admin"})
    active = get_user_model().objects.filter(is_active=True).exclude(pk=user.pk)
    if getattr(user, "is_superuser", False) and not active.filter(is_superuser=True).exists():
        raise ValidationError({"username": f"{user.get_username()} is the last active superuser; make another "
                                           "superuser first"})
    admins = active.filter(Q(is_superuser=True) | Q(profile__role=Role.ADMIN))
    if _is_admin(user) and not admins.exists():
        raise ValidationError({"username": f"{user.get_username()} is the last active admin; make another admin "
                                           "first"})


def _is_admin(user: AbstractBaseUser) -> bool:
    profile = Profile.objects.filter(user_id=user.pk).first()
    return bool(getattr(user, "is_superuser", False)) or (profile is not None and profile.role == Role.ADMIN)


def account_deactivate(*, user: AbstractBaseUser, by: AbstractBaseUser | None = None) -> None:
    """Sign-in stops, every open session ends, a pending invitation link and every API token stop
    working; labels, inspections and events stay as they are. `by` is the admin doing it (None from
    the command line). Reactivating restores none of it: send a new invitation (or the person
    signs in through single sign-on)."""
    User = get_user_model()
    # Every active superuser and admin row is locked first, so two admins deactivating the last two
    # at once cannot both succeed; then the user's row and its tokens, in one transaction.
    with transaction.atomic():
        list(User.objects.select_for_update(of=("self",)).filter(is_active=True)
             .filter(Q(is_superuser=True) | Q(profile__role=Role.ADMIN)).values_list("pk", flat=True))
        check_can_deactivate(user=user, by=by)
        row = User.objects.select_for_update().get(pk=user.pk)
        row.is_active = False
        # A new unusable password changes the session hash (every open session of the account ends at
        # its next request) and the hash invitation and reset tokens are made from (they stop working).
        row.set_unusable_password()
        row.save(update_fields=["is_active", "password"])
        tokens_revoke(user=user)
    user.is_active, user.password = False, row.password


def account_reactivate(*, user: AbstractBaseUser) -> None:
    """Sign-in is allowed again; the password is gone since deactivation: invite the person again."""
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


# --- single sign-on identities ------------------------------------------------------------------


def check_can_link_identity(user: AbstractBaseUser) -> None:
    """Superusers and staff (who reach the Django admin) sign in with their password only: single
    sign-on never grants more than the role its groups map to."""
    if getattr(user, "is_superuser", False) or getattr(user, "is_staff", False):
        raise ValidationError({"username": "a superuser or staff account cannot sign in through single sign-on; "
                                           "it keeps its password (and a break-glass admin stays one)"})


def oidc_identity_link(
    *, user: AbstractBaseUser, issuer: str, subject: str, linked_by: AbstractBaseUser | None
) -> OIDCIdentity:
    """An admin's explicit mapping: the provider's person (`issuer`, `subject`) signs in as `user`
    from now on. Refused for superuser and staff accounts, for an identity already bound to an
    account, and for an account already bound at that provider (unlink it first)."""
    issuer, subject = issuer.strip(), subject.strip()
    errors = {name: "must not be empty" for name, value in (("issuer", issuer), ("subject", subject)) if not value}
    if errors:
        raise ValidationError(errors)
    check_can_link_identity(user)
    # One row; the unique constraints decide between two admins linking at once.
    with transaction.atomic():
        taken = OIDCIdentity.objects.filter(issuer=issuer, subject=subject).select_related("user").first()
        if taken is not None:
            raise ValidationError({"subject": f"this identity already signs in as {taken.user.get_username()}; "
                                              "unlink it there first"})
        if OIDCIdentity.objects.filter(user=user, issuer=issuer).exists():
            raise ValidationError({"issuer": f"{user.get_username()} is already linked to an identity at this "
                                             "provider; unlink it first"})
        try:
            return OIDCIdentity.objects.create(user=user, issuer=issuer, subject=subject, linked_by=linked_by)
        except IntegrityError as exc:
            raise ValidationError({"subject": "this identity was just linked by someone else"}) from exc


def oidc_identity_unlink(*, user: AbstractBaseUser, issuer: str) -> int:
    """Single sign-on as this provider's person stops reaching `user`; returns how many links went."""
    deleted, _ = OIDCIdentity.objects.filter(user=user, issuer=issuer).delete()
    return deleted


def oidc_account_create(*, issuer: str, subject: str, data: AccountData) -> AbstractBaseUser:
    """First sign-in of a person no account is bound to: a new account with the mapped role, bound
    to (`issuer`, `subject`). Refused (ValidationError) when the username belongs to an existing
    account: only an admin's explicit mapping links an existing account."""
    _validate(data)
    # The new user row, its profile and the identity, together: a refusal leaves nothing behind.
    with transaction.atomic():
        if get_user_model().objects.filter(username__iexact=data.username).exists():
            raise ValidationError({"username": f"{data.username!r} names an existing account; an admin links it "
                                               "to this identity (accounts link-oidc) if it is the same person"})
        try:
            user, created = _save_one(data)
            if not created:  # created by a concurrent request between the check and the insert
                raise ValidationError({"username": "an account with this username was just created"})
            OIDCIdentity.objects.create(user=user, issuer=issuer, subject=subject)
        except IntegrityError as exc:
            raise ValidationError({"username": "an account or identity like this was just created"}) from exc
    return user
