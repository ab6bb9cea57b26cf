"""python manage.py import_translations FILE --dataset NAME --release LABEL [--dry-run] [--json]

Attach translations (JSON list or JSON Lines, docs/formats.md "Translations") to the cases of a
release: one transaction, refused whole with every located error. `--dry-run` runs every check the
import runs (the comparison with stored translations included) and writes nothing.
"""

import json
import sys
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
        parser.add_argument("--dry-run", action="store_true", help="Check everything; write nothing")
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
                dataset=options["dataset"], release=options["release"], records=[r for _, r in records],
                numbers=[n for n, _ in records], file_name=path.name, user=None, issues=issues,
                dry_run=options["dry_run"],
            )
        except ValidationError as exc:
            self._refused(exc, issues, options)
            return
        summary = {"created": result.created, "unchanged": result.unchanged, "invalid": result.invalid}
        if options["json"]:
            status = "dry-run" if options["dry_run"] else "imported"
            self.stdout.write(json.dumps({"status": status, **summary, "errors": []}))
            return
        template = (
            _("%(file)s: %(created)s translations would be added, %(unchanged)s unchanged, %(invalid)s would be stored "
              "as invalid (empty or not in the stated language).") if options["dry_run"] else
            _("%(file)s: %(created)s translations added, %(unchanged)s unchanged, %(invalid)s stored as invalid "
              "(empty or not in the stated language).")
        )
        self.stdout.write(template % {"file": path.name, "created": result.created, "unchanged": result.unchanged,
                                      "invalid": result.invalid})

    def _refused(self, exc: ValidationError, issues: Any, options: dict[str, Any]) -> None:
        """Located errors (file, record, field) as JSON, or as one CommandError line each."""
        if not options["json"]:
            raise CommandError("\n".join(exc.messages)) from exc
        errors = [i.as_dict() for i in issues.items] or [
            {"file": options["file"].name, "record": None, "field": None, "message": m} for m in exc.messages
        ]
        self.stdout.write(json.dumps({"status": "refused", "created": 0, "unchanged": 0, "invalid": 0,
                                      "errors": errors}, ensure_ascii=False))
        sys.exit(1)
