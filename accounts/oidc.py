"""OpenID Connect sign-in (mozilla-django-oidc), off unless OIDC_ENABLED: identities bound to accounts
by (`iss`, `sub`), claims mapped to roles.

The identity provider says who the person is and which groups they are in; settings say which group
means which role (`OIDC_ROLE_MAP`, e.g. `clinicians=physician,senior=inspector`). Someone in no
mapped group is refused: a hospital directory holds many people who must not see medical review
data.

An account is found by the ID token's issuer and subject (`accounts.OIDCIdentity`), never by a name
or e-mail the provider lets people choose (a provider user "Admin1" is not the local "admin1"). A
person no account is bound to gets a new account, unless the username is taken: an existing account
is linked only by an admin's explicit mapping (Django admin, `accounts link-oidc`, the accounts
API). Superuser and staff accounts are never reached through single sign-on, so it never grants
more than the mapped role. The role follows the provider at every sign-in; the e-mail address and
names are taken from the provider when sign-on creates the account, and afterwards only admins
change them (a different address at the provider is logged, not copied); rank, specialties and
languages stay as admins set them.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import SuspiciousOperation, ValidationError
from django.db.models import QuerySet
from django.utils import timezone
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.models import OIDCIdentity, Profile, Role
from accounts.services import AccountData, account_save, check_can_link_identity, oidc_account_create

log = logging.getLogger(__name__)

# When someone's groups map to several roles, the one with the most rights wins.
_PRECEDENCE = (Role.ADMIN, Role.INSPECTOR, Role.RESEARCHER, Role.PHYSICIAN)


def role_from_claims(claims: dict[str, Any]) -> str | None:
    value = claims.get(settings.OIDC_ROLE_CLAIM)
    groups = {value} if isinstance(value, str) else set(value or [])
    roles = {role for group, role in settings.OIDC_ROLE_MAP.items() if group in groups}
    return next((role for role in _PRECEDENCE if role in roles), None)


def username_from_claims(claims: dict[str, Any]) -> str:
    value = claims.get(settings.OIDC_USERNAME_CLAIM)
    return value.strip() if isinstance(value, str) else ""


def _text_claim(claims: dict[str, Any], name: str) -> str:
    value = claims.get(name)
    return value[:150] if isinstance(value, str) else ""


def check_id_token(payload: dict[str, Any], userinfo: dict[str, Any]) -> None:
    """The ID token comes from the configured provider, for this client, and the userinfo answer is
    about the same person (OpenID Connect Core 5.3.2); raises SuspiciousOperation otherwise."""
    if payload.get("iss") != settings.OIDC_OP_ISSUER:
        raise SuspiciousOperation(f"ID token issuer {payload.get('iss')!r} is not OIDC_OP_ISSUER")
    audience = payload.get("aud")
    audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
    if settings.OIDC_RP_CLIENT_ID not in audiences:
        raise SuspiciousOperation("ID token audience does not name OIDC_RP_CLIENT_ID")
    subject = payload.get("sub")
    if not isinstance(subject, str) or not subject or userinfo.get("sub") != subject:
        raise SuspiciousOperation("userinfo subject differs from the ID token's")


class RoleMappingOIDCBackend(OIDCAuthenticationBackend):
    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The userinfo claims, with the issuer and subject of the verified ID token."""
        userinfo = super().get_userinfo(access_token, id_token, payload)
        if not isinstance(userinfo, dict):
            raise SuspiciousOperation("userinfo is not a JSON object")
        check_id_token(payload, userinfo)
        return {**userinfo, "iss": payload["iss"], "sub": payload["sub"]}

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(claims.get("sub")) and role_from_claims(claims) is not None

    def filter_users_by_claims(self, claims: dict[str, Any]) -> QuerySet:
        return get_user_model().objects.filter(
            oidc_identities__issuer=claims["iss"], oidc_identities__subject=claims["sub"]
        )

    def create_user(self, claims: dict[str, Any]) -> AbstractBaseUser:
        username = username_from_claims(claims)
        data = AccountData(
            username=username, role=role_from_claims(claims) or Role.PHYSICIAN, email=_text_claim(claims, "email"),
            first_name=_text_claim(claims, "given_name"), last_name=_text_claim(claims, "family_name"),
        )
        try:
            user = oidc_account_create(issuer=claims["iss"], subject=claims["sub"], data=data)
        except ValidationError as exc:
            # What an admin needs to link the account, if it is the same person.
            log.warning("single sign-on refused for subject %r at %r (%s %r): %s", claims["sub"], claims["iss"],
                        settings.OIDC_USERNAME_CLAIM, username, "; ".join(exc.messages))
            raise SuspiciousOperation("no account for this identity") from exc
        self._signed_in(user, claims)
        return user

    def update_user(self, user: AbstractBaseUser, claims: dict[str, Any]) -> AbstractBaseUser:
        if not user.is_active:
            return user  # the callback refuses inactive users; a deactivated account stays so
        try:
            check_can_link_identity(user)  # made superuser or staff after it was linked
        except ValidationError as exc:
            log.warning("single sign-on refused for %s: superuser or staff", user.get_username())
            raise SuspiciousOperation("superuser or staff account") from exc
        profile: Profile | None = getattr(user, "profile", None)
        if claims.get("email") and claims.get("email") != user.email:
            log.info("single sign-on: %s's e-mail at the provider differs from medreview's; kept medreview's",
                     user.get_username())
        account_save(data=AccountData(
            username=user.get_username(), role=role_from_claims(claims) or Role.PHYSICIAN, email=user.email,
            first_name=user.first_name, last_name=user.last_name,
            rank=profile.rank if profile else "",
            specialties=tuple(profile.specialties) if profile else (),
            languages=tuple(profile.languages) if profile else (),
        ))
        self._signed_in(user, claims)
        return user

    def _signed_in(self, user: AbstractBaseUser, claims: dict[str, Any]) -> None:
        OIDCIdentity.objects.filter(user=user, issuer=claims["iss"], subject=claims["sub"]).update(
            last_sign_in=timezone.now()
        )

    def get_user(self, user_id: Any) -> AbstractBaseUser | None:
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None
