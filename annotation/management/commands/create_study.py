"""python manage.py create_study NAME --tasks narrative-quality,advice-quality --kind case ...

Creates (and optionally starts) a study through the same service as the admin pages and the API.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from accounts.roles import RANK_ORDER
from annotation.models import ItemKind, Study, StudyMember
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from medreview.text import split_values


class Command(BaseCommand):
    help = "Create a review study from a selection of cases, responses, pairs or question sets."
    # The system checks import every URL and view (pandas, scipy, matplotlib): ~2.5 s a study
    # does not need; `manage.py check` runs them.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name")
        parser.add_argument("--tasks", required=True, help="Comma-separated task slugs")
        parser.add_argument("--kind", choices=ItemKind.values, default=ItemKind.CASE)
        parser.add_argument("--admin", required=True, help="Username of the admin creating the study")
        parser.add_argument("--dataset")
        parser.add_argument("--release")
        parser.add_argument("--models", help="Comma-separated model names (response and pair items)")
        parser.add_argument("--specialties")
        parser.add_argument("--themes")
        parser.add_argument("--difficulty")
        parser.add_argument("--register")
        parser.add_argument("--language")
        parser.add_argument("--from-month", help="YYYY-MM")
        parser.add_argument("--to-month", help="YYYY-MM")
        parser.add_argument("--sample", type=int, help="Random sample of N items")
        parser.add_argument("--seed", type=int)
        parser.add_argument("--raters-per-item", type=int, default=2)
        parser.add_argument("--inspect-all", action="store_true")
        parser.add_argument("--no-inspect-disagreements", action="store_true")
        parser.add_argument("--inspect-share", type=float, default=0.0)
        parser.add_argument("--raters", help="Comma-separated usernames")
        parser.add_argument("--inspectors", help="Comma-separated usernames")
        parser.add_argument("--min-inspector-rank", choices=RANK_ORDER, default="",
                            help="Lowest rank allowed to inspect (attending < associate_chief < chief)")
        parser.add_argument("--show-prescreen", action="store_true",
                            help="LiveClin: show the Judge's pre-screen verdicts to raters")
        parser.add_argument("--start", action="store_true")

    def handle(self, *args: Any, **o: Any) -> None:
        users = get_user_model().objects
        try:
            actor = users.get(username=o["admin"])
        except users.model.DoesNotExist as exc:
            raise CommandError(f"--admin: no user {o['admin']!r}") from exc
        selection = ItemSelection(
            kind=o["kind"], dataset=o["dataset"], release_label=o["release"], model_names=list(split_values(o["models"])),
            specialties=list(split_values(o["specialties"])), themes=list(split_values(o["themes"])), difficulty=o["difficulty"],
            register=o["register"], language=o["language"], post_month_from=o["from_month"],
            post_month_to=o["to_month"], sample_n=o["sample"], seed=o["seed"],
        )
        members: dict[str, list] = {}
        for option in ("raters", "inspectors"):
            names = list(split_values(o[option]))
            members[option] = list(users.filter(username__in=names))
            missing = sorted(set(names) - {u.get_username() for u in members[option]})
            if missing:
                raise CommandError(f"--{option}: unknown users {missing}")
        existing = Study.objects.filter(name=o["name"].strip()).values_list("pk", flat=True).first()
        if existing is not None:
            raise CommandError(f"a study named {o['name'].strip()!r} already exists (id {existing}); choose another name")
        # One transaction: a refused sample size leaves no half-made study behind.
        with transaction.atomic():
            study = self._create(o, actor, selection, members)
        self.stdout.write(f"Study {study.pk} {study.name!r}: {study.items.count()} items, seed "
                          f"{study.selection['seed']}, status {study.status}")

    def _create(self, o: dict[str, Any], actor: Any, selection: ItemSelection, members: dict[str, list]) -> Study:
        try:
            study = study_create(
                name=o["name"], created_by=actor, task_slugs=list(split_values(o["tasks"])), selection=selection,
                raters_per_item=o["raters_per_item"], inspect_all=o["inspect_all"],
                inspect_disagreements=not o["no_inspect_disagreements"], inspect_share=o["inspect_share"],
                seed=o["seed"], min_inspector_rank=o["min_inspector_rank"], show_prescreen=o["show_prescreen"],
            )
            available = study.items.count()
            if o["sample"] and available < o["sample"]:
                raise CommandError(f"--sample {o['sample']}: only {available} items match the selection; "
                                   f"ask for at most {available}, or leave --sample out to take them all")
            for option, role in (("raters", StudyMember.Role.RATER), ("inspectors", StudyMember.Role.INSPECTOR)):
                if members[option]:
                    study_add_members(study=study, users=members[option], role=role, actor=actor)
            if o["start"]:
                study_start(study=study, actor=actor)
        except ValidationError as exc:
            raise CommandError("; ".join(m for ms in exc.message_dict.values() for m in ms)) from exc
        return study
