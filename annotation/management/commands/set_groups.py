"""python3 dev.py manage set_groups STUDY_ID --admin admin --group-a ana,bo --group-b cy,di [--none ed]

Expert groups by design (ClinConsensus Sec. 3.4): puts the study's raters in group A or B (or none),
through the same service as the study page and the API. Raters not named keep their group.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Study, StudyMember
from annotation.studies.groups import study_set_rater_groups
from annotation.studies.setup import users_by_username
from medreview.text import split_values


class Command(BaseCommand):
    help = "Put a study's raters in expert group A or B (ClinConsensus Sec. 3.4)."
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="Study id")
        parser.add_argument("--admin", required=True, help="Username of the admin making the change")
        parser.add_argument("--group-a", help="Comma-separated usernames of raters in group A")
        parser.add_argument("--group-b", help="Comma-separated usernames of raters in group B")
        parser.add_argument("--none", help="Comma-separated usernames of raters to take out of the groups")

    def handle(self, *args: Any, **o: Any) -> None:
        users = get_user_model().objects
        actor = users.filter(username=o["admin"]).first()
        if actor is None:
            raise CommandError(f"--admin: no user {o['admin']!r}")
        study = Study.objects.filter(pk=o["study"]).first()
        if study is None:
            raise CommandError(f"study {o['study']}: no such study")
        try:
            groups: dict = {}
            for option, group in (("none", ""), ("group_a", "A"), ("group_b", "B")):
                groups.update({u: group for u in users_by_username(split_values(o[option]),
                                                                    "--" + option.replace("_", "-"))})
            if not groups:
                raise CommandError("name raters with --group-a, --group-b or --none")
            changed = study_set_rater_groups(study=study, groups=groups, actor=actor)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        rows = StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).order_by("user__username")
        self.stdout.write(f"Study {study.pk}: {changed} changed; "
                          + ", ".join(f"{m.user.get_username()}={m.group or '-'}" for m in rows.select_related("user")))
