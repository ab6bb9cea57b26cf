"""python manage.py import_calibration <study id> <file.json> --admin <username>

Marks items of a study as calibration items with their expected answers (docs/review.md):
[{"item": "case:12", "expected": {"narrative-quality|": {"label": "2", "explanation": "..."}}}, ...]
All or nothing: one row that names no item of the study, or an item already rated, imports none.
"""

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import Study
from annotation.studies.calibration.parsing import parse_calibration
from annotation.studies.calibration.services import calibration_import


class Command(BaseCommand):
    help = "Mark a study's items as calibration items with expected answers, from a JSON file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int)
        parser.add_argument("file", type=Path)
        parser.add_argument("--admin", required=True, help="username of the admin doing it")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.filter(pk=options["study"]).first()
        admin = get_user_model().objects.filter(username=options["admin"]).first()
        if study is None or admin is None:
            raise CommandError("no such study or admin")
        try:
            text = options["file"].read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {options['file']}: {exc}") from exc
        try:
            rows = parse_calibration(text, file_name=options["file"].name)
            count = calibration_import(study=study, actor=admin, rows=[row.as_dict() for row in rows])
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from exc
        self.stdout.write(f"{count} calibration item(s) marked in {study.name}")
