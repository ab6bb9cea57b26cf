"""python3 dev.py manage api_token create USERNAME [--days N] | revoke USERNAME | list USERNAME

The key is printed once, on creation; only its hash is stored and it expires after N days
(default API_TOKEN_DAYS).
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from knox.models import AuthToken

from accounts.tokens import token_create, tokens_revoke


class Command(BaseCommand):
    help = "Create (shown once), list or revoke a user's API tokens."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["create", "revoke", "list"])
        parser.add_argument("username")
        parser.add_argument("--days", type=int, default=None, help="lifetime (default: API_TOKEN_DAYS)")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(_("no account %(username)s") % {"username": repr(options["username"])})
        if options["action"] == "create":
            if options["days"] is not None and options["days"] < 1:
                raise CommandError(_("--days must be at least 1"))
            token, key = token_create(user=user, days=options["days"])
            self.stderr.write(_("Token for %(username)s, expires %(when)s UTC; it is shown only now:")
                              % {"username": user.username, "when": f"{token.expiry:%Y-%m-%d %H:%M}"})
            self.stdout.write(key)
        elif options["action"] == "revoke":
            self.stdout.write(_("Revoked %(n)s token(s) of %(username)s.")
                              % {"n": tokens_revoke(user=user), "username": user.username})
        else:
            for token in AuthToken.objects.filter(user=user).order_by("created"):
                self.stdout.write(_("%(key)s…\tcreated %(created)s\texpires %(expires)s") % {
                    "key": token.token_key, "created": f"{token.created:%Y-%m-%d}", "expires": f"{token.expiry:%Y-%m-%d}"})
