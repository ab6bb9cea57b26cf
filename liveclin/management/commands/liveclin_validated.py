"""python manage.py liveclin_validated --release ID [--output FILE [--manifest FILE]] [--report]

Writes the release's validated question sets in the `liveclin` format (only validated sets, their
text unchanged, a review summary per set) and, with `--output`, its manifest beside it
(`FILE.manifest.json`, or `--manifest`): the file's SHA-256, the Judge run whose flags were weighed
and each reviewing study's options. `--report` prints the quality-check report (funnel, pass rates,
Judge vs physicians, every set's outcome) as JSON instead."""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cases.models import Release
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.rules import quality_report


class Command(BaseCommand):
    help = "Export a LiveClin release's validated question sets (or print its quality-check report)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--release", type=int, required=True, help="Release id")
        parser.add_argument("--output", type=Path, help="Output file (default: standard output)")
        parser.add_argument("--manifest", type=Path, help="Manifest file (default: OUTPUT.manifest.json)")
        parser.add_argument("--report", action="store_true", help="Print the quality-check report as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        release = Release.objects.filter(pk=options["release"]).first()
        if release is None:
            raise CommandError(_("No release %(id)s.") % {"id": options["release"]})
        review = release_review(release)
        if options["report"]:
            self._write(options, (json.dumps(quality_report(review.sets), ensure_ascii=False, indent=2) + "\n").encode())
            return
        export = validated_export(review)
        self._write(options, export.data)
        if options["output"]:
            manifest = options["manifest"] or options["output"].with_name(options["output"].name + ".manifest.json")
            manifest.write_text(json.dumps(export.manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n",
                                encoding="utf-8")
            self.stderr.write(ngettext("%(n)s validated question set written to %(output)s; manifest %(manifest)s",
                                       "%(n)s validated question sets written to %(output)s; manifest %(manifest)s",
                                       export.sets) % {"n": export.sets, "output": options["output"], "manifest": manifest})

    def _write(self, options: dict[str, Any], data: bytes) -> None:
        if options["output"]:
            options["output"].write_bytes(data)
        else:
            sys.stdout.buffer.write(data)
