"""python manage.py create_study NAME --tasks narrative-quality,advice-quality --kind case ...

Refuses, creating nothing, a selection of 0 items and tasks that rate another kind of item.

Creates (and optionally starts) a study through the same service as the admin pages and the API.
"""

from dataclasses import replace
from datetime import datetime, time
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone
from django.utils.dateparse import parse_date

from accounts.roles import RANK_ORDER
from annotation.models import ItemKind, Study
from annotation.models.translated import TextDisplay
from annotation.studies.services import ItemSelection, selection_count
from annotation.studies.setup import StudySetUp, cost_options, study_set_up, users_by_username
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
        parser.add_argument("--group-a", help="Comma-separated usernames: expert group A (raters; added as raters)")
        parser.add_argument("--group-b", help="Comma-separated usernames: expert group B (raters; added as raters)")
        parser.add_argument("--calibration-threshold", type=float,
                            help="Share 0..1 of calibration labels matching the expected answer that admits a rater")
        parser.add_argument("--hourly-rate", type=Decimal, help="Cost of one hour of active review, e.g. 24.00")
        parser.add_argument("--currency", default="USD", help="Three-letter code, e.g. USD, EUR, CNY")
        parser.add_argument("--guidelines-file", help="Markdown file shown to raters")
        parser.add_argument("--deadline", help="YYYY-MM-DD")
        parser.add_argument("--required-specialties", help="Comma-separated: a rater needs one of them")
        parser.add_argument("--required-languages", help="Comma-separated: a rater must read one of them")
        parser.add_argument("--lease-minutes", type=int, default=30, help="How long a claimed item stays claimed")
        parser.add_argument("--text-display", choices=TextDisplay.values, default=TextDisplay.AUTO,
                            help="What raters read of case text: original, translation, both or auto")
        parser.add_argument("--translation-language", default="zh-Hans", help="Language of the translations shown")
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
        existing = Study.objects.filter(name=o["name"].strip()).values_list("pk", flat=True).first()
        if existing is not None:
            raise CommandError(f"a study named {o['name'].strip()!r} already exists (id {existing}); choose another name")
        try:
            if o["sample"]:
                available = selection_count(replace(selection, sample_n=None))
                if 0 < available < o["sample"]:
                    raise CommandError(f"--sample {o['sample']}: only {available} items match the selection; "
                                       f"ask for at most {available}, or leave --sample out to take them all")
            spec = self._spec(o, selection)
            # One service transaction: a refused selection, group or start leaves no half-made study.
            study = study_set_up(spec=spec, actor=actor)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(f"Study {study.pk} {study.name!r}: {study.items.count()} items, seed "
                          f"{study.selection['seed']}, status {study.status}")

    def _spec(self, o: dict[str, Any], selection: ItemSelection) -> StudySetUp:
        raters = users_by_username(split_values(o["raters"]), "--raters")
        groups = {u: "A" for u in users_by_username(split_values(o["group_a"]), "--group-a")}
        groups.update({u: "B" for u in users_by_username(split_values(o["group_b"]), "--group-b")})
        guidelines = ""
        if o["guidelines_file"]:
            try:
                guidelines = Path(o["guidelines_file"]).read_text(encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"--guidelines-file {o['guidelines_file']}: {exc.strerror}") from exc
        deadline = None
        if o["deadline"]:
            parsed = parse_date(o["deadline"]) if len(o["deadline"]) == 10 else None
            if parsed is None:
                raise CommandError(f"--deadline: expected YYYY-MM-DD, got {o['deadline']!r}")
            deadline = timezone.make_aware(datetime.combine(parsed, time(23, 59)))
        return StudySetUp(
            name=o["name"], task_slugs=list(split_values(o["tasks"])), selection=selection,
            raters=list(dict.fromkeys([*raters, *groups])),
            inspectors=users_by_username(split_values(o["inspectors"]), "--inspectors"),
            groups=groups, start=o["start"],
            options={
                "raters_per_item": o["raters_per_item"], "inspect_all": o["inspect_all"],
                "inspect_disagreements": not o["no_inspect_disagreements"], "inspect_share": o["inspect_share"],
                "seed": o["seed"], "min_inspector_rank": o["min_inspector_rank"],
                "show_prescreen": o["show_prescreen"], "calibration_threshold": o["calibration_threshold"],
                "guidelines": guidelines, "deadline": deadline, "lease_minutes": o["lease_minutes"],
                "required_specialties": list(split_values(o["required_specialties"])),
                "required_languages": list(split_values(o["required_languages"])),
                "text_display": o["text_display"], "translation_language": o["translation_language"],
                **cost_options(hourly_rate=o["hourly_rate"], currency=o["currency"]),
            },
        )
