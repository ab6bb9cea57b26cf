"""Write a study's agreement report as JSON, CSV (zip), XLSX or LaTeX.

    python manage.py agreement_report --study 3 --format json
    python manage.py agreement_report --study 3 --format xlsx --output report.xlsx
    python manage.py agreement_report --study 3 --format tex --stratify-by specialty --group-by rank
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agreement import exports
from agreement.reports import build_report
from agreement.selection import STRATA, Selection, split_pseudonyms
from annotation.models import Study


class Command(BaseCommand):
    help = "Write a study's agreement report (first-round labels) as json, csv (zip of tables), xlsx or tex."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--study", type=int, required=True, help="Study id")
        parser.add_argument("--format", choices=list(exports.FORMATS), default="json")
        parser.add_argument("--output", help="File to write (default: standard output)")
        parser.add_argument("--task", action="append", default=[], help="Task slug (repeatable)")
        parser.add_argument("--model", action="append", default=[], help="Model name (repeatable)")
        parser.add_argument("--grader", action="append", type=int, default=[], help="Grader run id (repeatable)")
        parser.add_argument("--filter", action="append", default=[], metavar="STRATUM=VALUE",
                            help=f"Keep one stratum value, e.g. language=en ({', '.join(STRATA)})")
        parser.add_argument("--stratify-by", choices=list(STRATA), default="")
        parser.add_argument("--group-by", choices=["rank", "study"], default="",
                            help="Expert groups: rank, or the study's groups A / B (used anyway when it has any)")
        parser.add_argument("--group-a", default="", help="Expert group A: comma-separated pseudonyms")
        parser.add_argument("--group-b", default="", help="Expert group B: comma-separated pseudonyms")
        parser.add_argument("--tau", type=int, default=0, help="CACS@tau / Pass@tau threshold (default: calibrated "
                            "from --tau-model, or 10 of 30 scaled)")
        parser.add_argument("--tau-model", default="", help="Model name of physician-written responses: tau is "
                            "calibrated from the physicians' decisions on them (ClinConsensus 4.3)")

    def handle(self, *args: Any, **options: Any) -> None:
        if not Study.objects.filter(pk=options["study"]).exists():
            raise CommandError(f"No study with id {options['study']}.")
        filters = []
        for item in options["filter"]:
            name, sep, value = item.partition("=")
            if not sep or not value:
                raise CommandError(f"--filter {item!r}: expected STRATUM=VALUE, e.g. language=en")
            filters.append((name.strip(), value.strip()))
        try:
            selection = Selection(
                study_id=options["study"], tasks=tuple(options["task"]), models=tuple(options["model"]),
                graders=tuple(options["grader"]), filters=tuple(filters), stratify_by=options["stratify_by"],
                group_by=options["group_by"],
                group_a=split_pseudonyms(options["group_a"]), group_b=split_pseudonyms(options["group_b"]),
                tau=options["tau"], tau_model=options["tau_model"].strip(),
            )
            report = build_report(selection)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        content = exports.render(report, options["format"])
        if options["output"]:
            Path(options["output"]).write_bytes(content)
            self.stderr.write(f"wrote {options['output']} ({len(content)} bytes)")
        elif options["format"] in ("json", "tex"):
            self.stdout.write(content.decode("utf-8"), ending="")
        else:
            if self.stdout.isatty():
                raise CommandError(f"--format {options['format']} is binary: give --output FILE or redirect stdout")
            out = getattr(self.stdout, "_out", sys.stdout)
            buffer = getattr(out, "buffer", None)
            if buffer is None:
                raise CommandError(f"--format {options['format']} is binary: give --output FILE")
            buffer.write(content)
            buffer.flush()
