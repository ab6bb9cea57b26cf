"""python manage.py load_taxonomy NAME_OR_FILE [--dry-run] [--json]

NAME is a taxonomy shipped with medreview (`liveclin`); anything else is read as a taxonomy file
(docs/formats.md, "Taxonomies")."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from cases.taxonomies.builtin import BUILTIN, builtin_file
from cases.taxonomies.services import TaxonomyReport, taxonomy_load


class Command(BaseCommand):
    help = "Load a taxonomy (built in, e.g. liveclin, or from a file): all of it in one transaction, or nothing."
    requires_system_checks: list[str] = []  # like import_cases: a load needs none of the views

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("taxonomy", help=f"built-in name ({', '.join(BUILTIN)}) or a taxonomy file (JSON)")
        parser.add_argument("--dry-run", action="store_true", help="Check and report; write nothing")
        parser.add_argument("--json", action="store_true", help="Print one JSON object on stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        name: str = options["taxonomy"]
        path = builtin_file(name) or Path(name)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(
                f"{name}: not a built-in taxonomy ({', '.join(BUILTIN)}) and cannot read it as a file: {exc.strerror}"
            ) from exc
        bar: tqdm | None = None

        def progress(stage: str, done: int, total: int) -> None:
            nonlocal bar
            if bar is None:
                bar = tqdm(total=total, desc="nodes", unit="node", file=sys.stderr)
            bar.n = done
            bar.refresh()

        show_bar = not options["json"] and sys.stderr.isatty()
        report = taxonomy_load(data=data, file_name=path.name, dry_run=options["dry_run"],
                               progress=progress if show_bar else None)
        if bar is not None:
            bar.close()
        if options["json"]:
            self.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False))
        else:
            self._print(report)
        if not report.ok:
            sys.exit(1)

    def _print(self, report: TaxonomyReport) -> None:
        counts = ", ".join(f"level {level}: {n}" for level, n in report.counts.items())
        if report.status == "refused":
            self.stderr.write(self.style.ERROR(
                f"Refused {report.file_name}: {len(report.errors)} error(s); nothing was written."))
            for error in report.errors:
                self.stderr.write(f"  {error}")
        elif report.status == "unchanged":
            self.stdout.write(f"Unchanged: {report.key}@{report.version} is already loaded ({counts}).")
        else:
            verb = "Would load" if report.status == "dry-run" else "Loaded"
            self.stdout.write(self.style.SUCCESS(f"{verb} {report.key}@{report.version} from {report.file_name}: {counts}"))
