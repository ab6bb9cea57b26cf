"""python manage.py liveclin_validated --release ID [--output FILE] [--report]

Writes the release's validated question sets in the `liveclin` format (only validated sets, their
text unchanged, a review summary per set); `--report` prints the quality-check report (funnel, pass
rates, Judge vs physicians, every set's outcome) as JSON instead."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cases.models import Release
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.rules import quality_report


class Command(BaseCommand):
    help = "Export a LiveClin release's validated question sets (or print its quality-check report)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--release", type=int, required=True, help="Release id")
        parser.add_argument("--output", type=Path, help="Output file (default: standard output)")
        parser.add_argument("--report", action="store_true", help="Print the quality-check report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        release = Release.objects.filter(pk=options["release"]).first()
        if release is None:
            raise CommandError(f"No release {options['release']}.")
        review = release_review(release)
        if options["report"]:
            data = (json.dumps(quality_report(review.sets), ensure_ascii=False, indent=2) + "\n").encode()
            sets = None
        else:
            export = validated_export(review)
            data, sets = export.data, export.sets
        if options["output"]:
            options["output"].write_bytes(data)
            if sets is not None:
                self.stderr.write(f"{sets} validated question set(s) written to {options['output']}")
        else:
            sys.stdout.buffer.write(data)
