"""python manage.py import_translations FILE --dataset NAME --release LABEL [--json]

Attach translations (JSON list or JSON Lines, docs/formats.md "Translations") to the cases of a
release: one transaction, refused whole with every located error.
"""

import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from cases.translations import parse_translation_file, translations_import


class Command(BaseCommand):
    help = "Import translations of a release's case text (everything or nothing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--dataset", required=True)
        parser.add_argument("--release", required=True)
        parser.add_argument("--json", action="store_true", help="Print one JSON object on stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(_("%(path)s: cannot read the file: %(error)s") % {"path": path, "error": exc.strerror}) from exc
        records, issues = parse_translation_file(data, path.name)
        try:
            if len(issues):
                raise ValidationError([str(i) for i in issues.items])
            result = translations_import(
                dataset=options["dataset"], release=options["release"], records=records, file_name=path.name,
                user=None,
            )
        except ValidationError as exc:
            raise CommandError("\n".join(exc.messages)) from exc
        summary = {"created": result.created, "unchanged": result.unchanged, "invalid": result.invalid}
        if options["json"]:
            self.stdout.write(json.dumps(summary))
        else:
            self.stdout.write(_(
                "%(file)s: %(created)s translations added, %(unchanged)s unchanged, %(invalid)s stored as invalid "
                "(empty or not in the stated language).") % {"file": path.name, "created": result.created,
                                                             "unchanged": result.unchanged, "invalid": result.invalid})
