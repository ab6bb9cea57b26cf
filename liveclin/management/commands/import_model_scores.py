"""python manage.py import_model_scores FILE [--dataset LiveClin]

Each benchmarked model's answer to every MCQ of the named cases (JSONL; liveclin/consolidation/scores.py
and docs/formats.md, "Model answers"), for the per-category results of LiveClin Fig. 7A, 7C and 8."""

from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from cases.models import Dataset
from liveclin.consolidation.scores import model_scores_import


class Command(BaseCommand):
    help = "Import benchmarked models' MCQ answers (JSONL): all lines in one transaction, or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--dataset", default="LiveClin")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        dataset = Dataset.objects.filter(name=options["dataset"]).first()
        if dataset is None:
            raise CommandError(f"--dataset: no dataset {options['dataset']!r}")
        try:
            result = model_scores_import(data=path.read_bytes(), file_name=path.name, dataset=dataset)
        except OSError as exc:
            raise CommandError(f"{path}: {exc.strerror}") from exc
        except ValidationError as exc:
            raise CommandError("\n".join(exc.messages)) from exc
        self.stdout.write(f"{path.name}: {result.answers} answers of {len(result.models)} models "
                          f"({', '.join(result.models)}), {result.correct} correct")
