"""Who may do what. The role lives on accounts.Profile; superusers count as admins."""

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from accounts.models import Rank, Role

AnyUser = AbstractBaseUser | AnonymousUser


def user_role(user: AnyUser) -> str | None:
    if not user.is_authenticated:
        return None
    if getattr(user, "is_superuser", False):
        return Role.ADMIN
    profile = getattr(user, "profile", None)
    return profile.role if profile is not None else None


def is_admin(user: AnyUser) -> bool:
    return user_role(user) == Role.ADMIN


def is_researcher(user: AnyUser) -> bool:
    return user_role(user) in {Role.RESEARCHER, Role.ADMIN}


def is_inspector(user: AnyUser) -> bool:
    return user_role(user) in {Role.INSPECTOR, Role.ADMIN}


def is_rater(user: AnyUser) -> bool:
    """Physicians rate; inspectors are senior physicians and may rate in studies that list them."""
    return user_role(user) in {Role.PHYSICIAN, Role.INSPECTOR}


# Seniority, lowest first (LiveClin: attending physicians annotate, senior ones inspect).
RANK_ORDER: tuple[str, ...] = (Rank.ATTENDING, Rank.ASSOCIATE_CHIEF, Rank.CHIEF)


# The ranks as people read them, in the interface language.
RANK_NAMES = {Rank.ATTENDING: _("Attending"), Rank.ASSOCIATE_CHIEF: _("Associate Chief"), Rank.CHIEF: _("Chief")}


def rank_name(rank: str) -> str:
    """"Associate Chief" (in the reader's language); "" for no rank."""
    return str(RANK_NAMES.get(rank, rank)) if rank else ""


def rank_at_least(user: AnyUser, rank: str) -> bool:
    """True when no rank is asked for, or the user's recorded rank is `rank` or more senior."""
    if not rank:
        return True
    profile = getattr(user, "profile", None)
    have = profile.rank if profile is not None else ""
    return have in RANK_ORDER and RANK_ORDER.index(have) >= RANK_ORDER.index(rank)


# The role as the top bar names it, in the interface language.
ROLE_NAMES = {"physician": _("physician"), "inspector": _("inspector"), "researcher": _("researcher"),
              "admin": _("admin")}


def role_context(request: HttpRequest) -> dict[str, str | Promise | None]:
    """Template context processor: the signed-in user's role and its name for the top bar."""
    role = user_role(request.user)
    return {"role": role, "role_name": ROLE_NAMES.get(role or "", role)}
