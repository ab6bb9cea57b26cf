"""python3 dev.py manage accounts {create,update,import,deactivate,reactivate,invite,list} ...

create/update: one account with its role, rank, specialties and languages.
import FILE.csv [--dry-run]: many accounts; the whole file is validated first and one bad row
writes nothing (errors name the line and column).
invite USERNAME --base-url https://review.example.org: e-mail a one-time link to choose a password.
link-oidc USERNAME --subject SUB [--issuer ISS]: single sign-on as the provider's person SUB (at
OIDC_OP_ISSUER unless --issuer) reaches this existing account; unlink-oidc USERNAME undoes it.
"""

import json
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import Rank, Role
from accounts.services import (
    AccountData,
    account_deactivate,
    account_invite,
    account_reactivate,
    account_save,
    accounts_import_csv,
    oidc_identity_link,
    oidc_identity_unlink,
)
from medreview.text import split_values


def _add_account_options(parser: CommandParser, *, create: bool) -> None:
    parser.add_argument("username")
    parser.add_argument("--role", choices=Role.values, required=create)
    parser.add_argument("--email", default="")
    parser.add_argument("--rank", choices=["", *Rank.values], default=None)
    parser.add_argument("--specialties", default=None, help="';'-separated, e.g. 'Cardiology;Nephrology'")
    parser.add_argument("--languages", default=None, help="';'-separated codes, e.g. 'en;zh'")
    parser.add_argument("--first-name", default="")
    parser.add_argument("--last-name", default="")


class Command(BaseCommand):
    help = "Create, update, bulk-import, invite and deactivate accounts."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        _add_account_options(sub.add_parser("create", help="create an account"), create=True)
        _add_account_options(sub.add_parser("update", help="change an account"), create=False)
        bulk = sub.add_parser("import", help="create or update accounts from a CSV file")
        bulk.add_argument("file", type=Path)
        bulk.add_argument("--dry-run", action="store_true")
        bulk.add_argument("--json", action="store_true")
        for name in ("deactivate", "reactivate"):
            sub.add_parser(name).add_argument("username")
        invite = sub.add_parser("invite", help="e-mail a one-time link to choose a password")
        invite.add_argument("username")
        invite.add_argument("--base-url", required=True, help="where users reach medreview, e.g. https://review.example.org")
        link = sub.add_parser("link-oidc", help="let single sign-on as a provider's person reach this account")
        link.add_argument("username")
        link.add_argument("--subject", required=True, help="the person's `sub` at the provider")
        link.add_argument("--issuer", default=None, help="the provider's `iss` (default: OIDC_OP_ISSUER)")
        unlink = sub.add_parser("unlink-oidc", help="single sign-on no longer reaches this account")
        unlink.add_argument("username")
        unlink.add_argument("--issuer", default=None, help="the provider's `iss` (default: OIDC_OP_ISSUER)")
        sub.add_parser("list")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            getattr(self, f"_{action.replace('-', '_')}")(options)
        except ValidationError as exc:
            messages = exc.message_dict if hasattr(exc, "error_dict") else {"account": exc.messages}
            raise CommandError("; ".join(f"{k}: {' '.join(v)}" for k, v in messages.items())) from exc

    def _user(self, username: str) -> Any:
        user = get_user_model().objects.select_related("profile").filter(username=username).first()
        if user is None:
            raise CommandError(_("no account %(username)s") % {"username": repr(username)})
        return user

    def _save(self, options: dict[str, Any], *, create: bool) -> None:
        username = options["username"]
        profile = None
        if not create:
            profile = getattr(self._user(username), "profile", None)
        elif get_user_model().objects.filter(username__iexact=username).exists():
            raise CommandError(_("an account %(username)s exists; use `accounts update`") % {"username": repr(username)})

        def pick(option: str, current: Any, convert: Any = lambda v: v) -> Any:
            return convert(options[option]) if options[option] is not None else current

        data = AccountData(
            username=username,
            role=pick("role", profile.role if profile else ""),
            rank=pick("rank", profile.rank if profile else ""),
            specialties=pick("specialties", tuple(profile.specialties) if profile else (), lambda v: split_values(v, ";")),
            languages=pick("languages", tuple(profile.languages) if profile else (), lambda v: split_values(v, ";")),
            email=options["email"], first_name=options["first_name"], last_name=options["last_name"],
        )
        user, created = account_save(data=data)
        done = _("Created %(username)s (%(role)s).") if created else _("Updated %(username)s (%(role)s).")
        self.stdout.write(done % {"username": user.username, "role": data.role})

    def _create(self, options: dict[str, Any]) -> None:
        self._save(options, create=True)

    def _update(self, options: dict[str, Any]) -> None:
        self._save(options, create=False)

    def _import(self, options: dict[str, Any]) -> None:
        path: Path = options["file"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(_("%(path)s: cannot read the file: %(error)s") % {"path": path, "error": exc.strerror}) from exc
        report = accounts_import_csv(data=data, dry_run=options["dry_run"])
        if options["json"]:
            self.stdout.write(json.dumps(report.to_dict()))
        elif report.errors:
            self.stderr.write(ngettext("Refused %(file)s: %(n)s error; nothing was written.",
                                       "Refused %(file)s: %(n)s errors; nothing was written.", len(report.errors))
                              % {"file": path.name, "n": len(report.errors)})
            for error in report.errors:
                self.stderr.write(f"  {path.name}, {error}")
        else:
            done = (_("Would create %(created)s and update %(updated)s account(s).") if options["dry_run"]
                    else _("Created %(created)s and updated %(updated)s account(s)."))
            self.stdout.write(done % {"created": len(report.created), "updated": len(report.updated)})
        if report.errors:
            sys.exit(1)

    def _deactivate(self, options: dict[str, Any]) -> None:
        account_deactivate(user=self._user(options["username"]))
        self.stdout.write(_("Deactivated %(username)s: sessions ended, invitation and API tokens void; their labels "
                            "are kept.") % {"username": options["username"]})

    def _reactivate(self, options: dict[str, Any]) -> None:
        account_reactivate(user=self._user(options["username"]))
        self.stdout.write(_("Reactivated %(username)s; send them an invitation to choose a new password "
                            "(deactivation removed it), unless they sign in through single sign-on.")
                          % {"username": options["username"]})

    def _invite(self, options: dict[str, Any]) -> None:
        user = self._user(options["username"])
        link = account_invite(user=user, base_url=options["base_url"])
        if user.email:
            self.stdout.write(_("Invitation e-mailed to %(email)s.") % {"email": user.email})
        else:
            self.stdout.write(_("%(username)s has no e-mail address; send them this one-time link: %(link)s")
                              % {"username": user.username, "link": link})

    def _issuer(self, options: dict[str, Any]) -> str:
        issuer = options["issuer"] or settings.OIDC_OP_ISSUER
        if not issuer:
            raise CommandError("name the provider with --issuer (OIDC_OP_ISSUER is not set)")
        return issuer

    def _link_oidc(self, options: dict[str, Any]) -> None:
        user, issuer = self._user(options["username"]), self._issuer(options)
        oidc_identity_link(user=user, issuer=issuer, subject=options["subject"], linked_by=None)
        self.stdout.write(f"Single sign-on as {options['subject']!r} at {issuer} now reaches {user.username}.")

    def _unlink_oidc(self, options: dict[str, Any]) -> None:
        user, issuer = self._user(options["username"]), self._issuer(options)
        if not oidc_identity_unlink(user=user, issuer=issuer):
            raise CommandError(f"{user.username} is not linked to an identity at {issuer}")
        self.stdout.write(f"Single sign-on at {issuer} no longer reaches {user.username}.")

    def _list(self, options: dict[str, Any]) -> None:
        for user in get_user_model().objects.select_related("profile").order_by("username"):
            profile = getattr(user, "profile", None)
            state = "" if user.is_active else " " + _("(deactivated)")
            self.stdout.write(f"{user.username}\t{profile.role if profile else '-'}\t{user.email}{state}")
