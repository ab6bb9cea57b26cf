"""OpenID Connect sign-in (mozilla-django-oidc), off unless OIDC_ENABLED: claims mapped to roles.

The identity provider says who the person is and which groups they are in; settings say which group
means which role (`OIDC_ROLE_MAP`, e.g. `clinicians=physician,senior=inspector`). Someone in no
mapped group is refused: a hospital directory holds many people who must not see medical review
data. The role follows the provider at every sign-in; rank, specialties and languages stay as
admins set them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.models import Profile, Role
from accounts.services import AccountData, account_save

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


class RoleMappingOIDCBackend(OIDCAuthenticationBackend):
    def verify_claims(self, claims: dict[str, Any]) -> bool:
        return bool(claims.get("sub")) and bool(username_from_claims(claims)) and role_from_claims(claims) is not None

    def filter_users_by_claims(self, claims: dict[str, Any]) -> QuerySet:
        return get_user_model().objects.filter(username__iexact=username_from_claims(claims))

    def _save(self, claims: dict[str, Any], profile: Profile | None) -> AbstractBaseUser:
        email = claims.get("email") if isinstance(claims.get("email"), str) else ""
        user, _ = account_save(data=AccountData(
            username=username_from_claims(claims), role=role_from_claims(claims) or Role.PHYSICIAN,
            email=email or "", first_name=str(claims.get("given_name") or "")[:150],
            last_name=str(claims.get("family_name") or "")[:150],
            rank=profile.rank if profile else "",
            specialties=tuple(profile.specialties) if profile else (),
            languages=tuple(profile.languages) if profile else (),
        ))
        return user

    def create_user(self, claims: dict[str, Any]) -> AbstractBaseUser:
        return self._save(claims, None)

    def update_user(self, user: AbstractBaseUser, claims: dict[str, Any]) -> AbstractBaseUser:
        if not user.is_active:
            return user  # the callback refuses inactive users; a deactivated account stays so
        return self._save(claims, getattr(user, "profile", None))

    def get_user(self, user_id: Any) -> AbstractBaseUser | None:
        user = super().get_user(user_id)
        return user if user is not None and user.is_active else None
