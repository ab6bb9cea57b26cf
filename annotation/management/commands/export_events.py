"""python manage.py export_events --study ID [--format jsonl|csv] [--output FILE] [--real-names --admin USER]

A study's audit trail in chain order: every review event with its hash and the previous event's
hash (verify a JSONL export with `verify_audit_trail`); the chain's head on standard error. Actors appear by pseudonym; real user
names are added only with --real-names, for an admin named with --admin.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.roles import user_role
from annotation.models import Study
from annotation.outcomes.audit import (
    FORMATS,
    chain_head,
    event_records,
    events_csv,
    events_jsonl,
    head_header,
)
from annotation.outcomes.services import study_record_export


class Command(BaseCommand):
    help = "Export a study's review events (audit trail) as JSONL or CSV."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, required=True)
        parser.add_argument("--format", choices=sorted(FORMATS), default="jsonl")
        parser.add_argument("--output", help="File to write (default: standard output)")
        parser.add_argument("--real-names", action="store_true", help="Add actor_name (admins only)")
        parser.add_argument("--admin", help="Username of the admin exporting (needed for --real-names)")

    def handle(self, *args: Any, **o: Any) -> None:
        study = Study.objects.filter(pk=o["study"]).first()
        if study is None:
            raise CommandError(_("--study: no study %(id)s") % {"id": o["study"]})
        admin = get_user_model().objects.filter(username=o["admin"]).first() if o["admin"] else None
        if o["admin"] and admin is None:
            raise CommandError(_("--admin: no user %(name)r") % {"name": o["admin"]})
        if o["real_names"] and (admin is None or user_role(admin) != Role.ADMIN):
            raise CommandError(_("--real-names: only an admin may export real names; name one with --admin"))
        study_record_export(study=study, actor=admin, what="events", fmt=o["format"], real_names=o["real_names"],
                            via="command")
        records = event_records(study, real_names=o["real_names"])
        lines = events_jsonl(records) if o["format"] == "jsonl" else events_csv(records, real_names=o["real_names"])
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="") as out:
                out.writelines(lines)
        else:
            for line in lines:
                self.stdout.write(line, ending="")
        # The head on standard error: a copy to keep beside the file (docs/deployment.md).
        self.stderr.write(f"Audit-Chain-Head: {head_header([chain_head(study)])}")
