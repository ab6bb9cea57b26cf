"""python manage.py export_labels (--study ID | --release ID) [--format csv|jsonl|xlsx] [--output FILE]
    [--calibration]

Final labels (with the rule and source that decided each), first-round labels and every later
round, one row each (long format); raters by pseudonym. XLSX adds the studies' effort and cost.
Calibration items' labels are left out unless --calibration is given; then they carry
calibration=true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.translation import gettext as _

from annotation.models import Study
from annotation.outcomes.audit import chain_head, head_header
from annotation.outcomes.label_exports import FORMATS, label_rows, labels_csv, labels_jsonl, labels_xlsx
from annotation.outcomes.selectors import field_outcomes, study_effort
from annotation.outcomes.services import study_record_export
from cases.models import Release


class Command(BaseCommand):
    help = "Export final, first-round and later-round labels in long format for a study or a release."

    def add_arguments(self, parser: CommandParser) -> None:
        which = parser.add_mutually_exclusive_group(required=True)
        which.add_argument("--study", type=int)
        which.add_argument("--release", type=int, help="Every study that reviews this release's cases")
        parser.add_argument("--format", choices=sorted(FORMATS), default="csv")
        parser.add_argument("--output", help="File to write (default: standard output; XLSX needs a file)")
        parser.add_argument("--calibration", action="store_true",
                            help="Include calibration items' labels (marked calibration=true); left out by default")

    def handle(self, *args: Any, **o: Any) -> None:
        if o["study"] is not None:
            studies = list(Study.objects.filter(pk=o["study"]))
            if not studies:
                raise CommandError(_("--study: no study %(id)s") % {"id": o["study"]})
        else:
            release = Release.objects.filter(pk=o["release"]).first()
            if release is None:
                raise CommandError(_("--release: no release %(id)s") % {"id": o["release"]})
            studies = list(Study.objects.filter(items__revision__release=release).distinct().order_by("pk"))
        for study in studies:
            study_record_export(study=study, actor=None, what="labels", fmt=o["format"], via="command")
        rows = label_rows(field_outcomes(studies), calibration=o["calibration"])
        heads = [chain_head(s) for s in studies]
        # The chains' heads on standard error: a copy to keep beside the file (docs/deployment.md).
        self.stderr.write(f"Audit-Chain-Head: {head_header(heads)}")
        if o["format"] == "xlsx":
            if not o["output"]:
                raise CommandError(_("--format xlsx needs --output FILE"))
            Path(o["output"]).write_bytes(labels_xlsx(rows, [study_effort(s) for s in studies], heads=heads))
            return
        lines = labels_csv(rows) if o["format"] == "csv" else labels_jsonl(rows)
        if o["output"]:
            with open(o["output"], "w", encoding="utf-8", newline="") as out:
                out.writelines(lines)
        else:
            for line in lines:
                self.stdout.write(line, ending="")
