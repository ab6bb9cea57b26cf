"""python manage.py import_labels STUDY_ID FILE [--dry-run] [--json]

Physicians' labels collected outside medreview, in long format (docs/formats.md, "Physicians'
labels"), imported into one study: every row or none.
"""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Study
from annotation.studies.outside_labels import physician_labels_import


class Command(BaseCommand):
    help = "Import physicians' labels collected outside medreview into a study (one transaction)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="The study's id")
        parser.add_argument("file", type=Path, help="CSV, JSON Lines or a JSON list")
        parser.add_argument("--dry-run", action="store_true", help="Validate and report; write nothing")
        parser.add_argument("--json", action="store_true", help="Print one JSON object on stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        study = Study.objects.filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"no study {options['study']}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{path}: cannot read the file: {exc.strerror}") from exc
        report = physician_labels_import(study=study, data=data, file_name=path.name, dry_run=options["dry_run"])
        if options["json"]:
            self.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False))
        elif report.ok:
            verb = "Would create" if report.status == "dry-run" else "Imported"
            self.stdout.write(f"{verb} {report.created['ratings']} labels in {report.created['assignments']} "
                              f"assignments into study {study.pk}.")
        else:
            self.stderr.write(self.style.ERROR(
                f"Refused {report.file_name}: {len(report.errors)} error(s); nothing was written."))
            for error in report.errors:
                self.stderr.write(f"  {error}")
        if not report.ok:
            sys.exit(1)
