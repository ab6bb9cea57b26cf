"""python manage.py load_consolidation NAME_OR_FILE [--reviewer USERNAME ...]

NAME is a consolidation shipped with medreview (`liveclin-stages`: App. I, Fig. 16;
`liveclin-modalities`: App. J, Fig. 18); anything else is read as a consolidation file
(docs/formats.md, "Consolidations"). Each load is the key's next version, in physician review."""

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from liveclin.consolidation.services import consolidation_load

BUILTIN = {p.stem: p for p in sorted((Path(__file__).resolve().parents[2] / "consolidation" / "data").glob("*.json"))}


class Command(BaseCommand):
    help = "Load a consolidation (built in, e.g. liveclin-stages, or a file) as a new version in physician review."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("consolidation", help=f"built-in name ({', '.join(BUILTIN)}) or a consolidation file (JSON)")
        parser.add_argument("--reviewer", action="append", default=[], help="Username of a physician who reviews it")

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["consolidation"]
        path = BUILTIN.get(name) or Path(name)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{name}: not a built-in consolidation ({', '.join(BUILTIN)}) and cannot read it: "
                               f"{exc.strerror}") from exc
        users = list(get_user_model().objects.filter(username__in=options["reviewer"]))
        missing = set(options["reviewer"]) - {u.get_username() for u in users}
        if missing:
            raise CommandError(f"--reviewer: no user {sorted(missing)[0]!r}")
        try:
            consolidation = consolidation_load(data=data, file_name=path.name)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        consolidation.reviewers.set(users)
        self.stdout.write(f"{consolidation.key} version {consolidation.version}: "
                          f"{consolidation.categories.count()} categories, {consolidation.rules.count()} rules")
