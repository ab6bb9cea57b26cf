"""python manage.py import_cases FORMAT FILE [--dataset NAME] [--release LABEL] [--model NAME]
[--grader-model NAME] [--case-reports FILE] [--taxonomy KEY[@VERSION]] [--dry-run] [--json]"""

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from tqdm import tqdm

from cases.importers.counts import counts_summary, thing_label
from cases.models import ImportFormat
from cases.services import DEFAULT_DATASETS, DEFAULT_GRADER_MODEL, ImportReport, release_import


class Command(BaseCommand):
    help = "Import one benchmark release file (one transaction: everything or nothing)."
    # The system checks import every URL and view (pandas, scipy, matplotlib for the reports):
    # about 2.4 s and 160 MB before the first byte is read. An import needs none of it; run
    # `manage.py check` (or any other command) for the checks.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("format", choices=ImportFormat.values)
        parser.add_argument("file", type=Path)
        parser.add_argument("--dataset", help="Dataset name (default: from the format, e.g. LiveMedBench)")
        parser.add_argument("--release", help="Release label, e.g. v202601 (default: the file name)")
        parser.add_argument("--model", help=(
            "For responses and grades: the model that answered. For ai-labels: the model of labels that name "
            "none; for liveclin-labels: the model of every label (default: LiveClin's, gpt-4.1 and o3)"))
        parser.add_argument("--taxonomy", default="", help=(
            "ai-labels, liveclin-labels: the taxonomy of taxonomy labels, KEY or KEY@VERSION (default liveclin)"))
        parser.add_argument("--grader-model", default=DEFAULT_GRADER_MODEL,
                            help=f"For grades: the grader model (default {DEFAULT_GRADER_MODEL})")
        parser.add_argument("--case-reports", type=Path, help=(
            "liveclin: a side file of source case reports (JSON object id -> report, or JSONL lines "
            "{pmc|pmid|doi, case_report}) for records without a case_report field"))
        parser.add_argument("--dry-run", action="store_true", help="Validate and report; write nothing")
        parser.add_argument("--json", action="store_true", help="Print one JSON object on stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        fmt: str = options["format"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(_("%(path)s: cannot read the file: %(error)s") % {"path": path, "error": exc.strerror}) from exc
        case_reports = None
        if options.get("case_reports") is not None:
            side: Path = options["case_reports"]
            try:
                case_reports = (side.name, side.read_bytes())
            except OSError as exc:
                raise CommandError(_("%(path)s: cannot read the file: %(error)s")
                                   % {"path": side, "error": exc.strerror}) from exc
        show_bar = not options["json"] and sys.stderr.isatty()
        bar: tqdm | None = None

        def progress(stage: str, done: int, total: int) -> None:
            nonlocal bar
            if stage == "done":
                if bar is not None:
                    bar.close()
                return
            if bar is None or bar.desc != stage:
                if bar is not None:
                    bar.close()
                bar = tqdm(total=total, desc=stage, unit="row", file=sys.stderr)
            bar.total = total
            bar.n = done
            bar.refresh()

        report = release_import(
            fmt=fmt, data=data, file_name=path.name,
            dataset_name=options["dataset"] or DEFAULT_DATASETS.get(ImportFormat(fmt), ""),
            release_label=options["release"] or path.stem, model_name=options["model"],
            grader_model=options["grader_model"], dry_run=options["dry_run"],
            progress=progress if show_bar else None, case_reports=case_reports, taxonomy=options["taxonomy"],
        )
        if options["json"]:
            self.stdout.write(json.dumps(report.to_dict(), ensure_ascii=False))
        else:
            self._print(report)
        if not report.ok:
            # A refusal is a failure for scripts and CI; the errors are already printed.
            sys.exit(1)

    def _print(self, report: ImportReport) -> None:
        names = {"file": report.file_name, "dataset": report.dataset, "release": report.release_label,
                 "counts": counts_summary(report.created), "n": len(report.errors)}
        if report.status == "refused":
            self.stderr.write(self.style.ERROR(ngettext(
                "Refused %(file)s: %(n)s error; nothing was written.",
                "Refused %(file)s: %(n)s errors; nothing was written.", len(report.errors)) % names))
            for error in report.errors:
                self.stderr.write(f"  {error}")
        elif report.status == "unchanged":
            self.stdout.write(_("Unchanged: %(file)s was already imported into %(dataset)s.") % names)
        else:
            done = (_("Would create from %(file)s in %(dataset)s %(release)s: %(counts)s") if report.status == "dry-run"
                    else _("Imported %(file)s into %(dataset)s %(release)s: %(counts)s"))
            self.stdout.write(self.style.SUCCESS(done % names))
            left = _(", ").join(f"{n} {thing_label(k)}" for k, n in report.unchanged.items() if n)
            if left:
                self.stdout.write("  " + _("left alone (unchanged): %(counts)s") % {"counts": left})
            if report.changed:
                self.stdout.write("  " + _("new text for: %(cases)s") % {"cases": ", ".join(report.changed[:20])}
                                  + (" ..." if len(report.changed) > 20 else ""))
