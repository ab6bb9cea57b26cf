from django.http import HttpRequest
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from accounts.roles import user_role

# The role as the top bar names it, in the interface language.
ROLE_NAMES = {"physician": _("physician"), "inspector": _("inspector"), "researcher": _("researcher"),
              "admin": _("admin")}


def roles(request: HttpRequest) -> dict[str, str | Promise | None]:
    role = user_role(request.user)
    return {"role": role, "role_name": ROLE_NAMES.get(role or "", role)}
