"""python manage.py curate_release NAME --release ID --studies 3,4 --admin USER [options]

Writes a curated release (the benchmark's own format, `manifest.json`, `SHA256SUMS`) to the
curations storage (the database unless CURATION_STORAGE=filesystem; stored as curations/NAME/<file>)
through the same service as the admin page and the API; `--output DIR` also copies the files there.
Exit status 0 when written or unchanged, 1 when refused (nothing is written then).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse
from django.utils.translation import gettext as _

from annotation.models import Study
from annotation.outcomes.curation.service import curation_create, curation_file_open, stored_name
from cases.exporters import CurationRules
from cases.models import Release


def _ids(value: str) -> list[int]:
    try:
        return [int(v) for v in value.split(",") if v.strip()]
    except ValueError as exc:
        raise CommandError(_("--studies: expected comma-separated study ids, got %(value)r") % {"value": value}) from exc


def history_url(item_id: int) -> str:
    return reverse("annotation:item_history", args=[item_id])


class Command(BaseCommand):
    help = "Curate a release with the final labels of chosen studies into a new release + manifest."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="Name of the curated release, e.g. v202601-reviewed")
        parser.add_argument("--release", type=int, required=True, help="Id of the source release")
        parser.add_argument("--studies", required=True, help="Comma-separated ids of the studies to apply")
        parser.add_argument("--admin", required=True, help="Username of the admin running the curation")
        parser.add_argument("--keep-rejected", action="store_true",
                            help='Keep rejected criteria, marked "physician_validity": "disagree"')
        parser.add_argument("--review-block", action="store_true", help="Add a physician_review block per case")
        parser.add_argument("--resolved-only", action="store_true",
                            help="Refuse when a chosen study has fields without a final label")
        parser.add_argument("--json", action="store_true", help="Print one JSON object")
        parser.add_argument("--output", type=Path, help="Also copy the curated files into this directory")

    def handle(self, *args: Any, **o: Any) -> None:
        users = get_user_model().objects
        actor = users.filter(username=o["admin"]).first()
        if actor is None:
            raise CommandError(_("--admin: no user %(name)r") % {"name": o["admin"]})
        release = Release.objects.filter(pk=o["release"]).first()
        if release is None:
            raise CommandError(_("--release: no release %(id)s") % {"id": o["release"]})
        ids = _ids(o["studies"])
        studies = list(Study.objects.filter(pk__in=ids))
        missing = sorted(set(ids) - {s.pk for s in studies})
        if missing:
            raise CommandError(_("--studies: no study %(ids)s") % {"ids": ", ".join(map(str, missing))})
        rules = CurationRules(keep_rejected_criteria=o["keep_rejected"], review_block=o["review_block"],
                              resolved_only=o["resolved_only"])
        try:
            curation, created = curation_create(name=o["name"], release=release, studies=studies, rules=rules,
                                                actor=actor, history_url=history_url)
        except (ValidationError, PermissionDenied) as exc:
            messages = exc.messages if isinstance(exc, ValidationError) else [str(exc)]
            if o["json"]:
                self.stdout.write(json.dumps({"status": "refused", "errors": messages}))
            else:
                self.stderr.write(_("refused, nothing written: %(problems)s") % {"problems": "; ".join(messages)})
            raise SystemExit(1) from exc
        where = stored_name(curation.name, "")
        if o["output"]:
            where = str(o["output"])
            o["output"].mkdir(parents=True, exist_ok=True)
            for file_name in sorted(curation.files):
                opened = curation_file_open(curation, file_name)
                if opened is None:
                    raise CommandError(f"{stored_name(curation.name, file_name)}: missing from the curations storage")
                with opened:
                    (o["output"] / file_name).write_bytes(opened.read())
        if o["json"]:
            self.stdout.write(json.dumps({"status": "written" if created else "unchanged", "id": curation.pk,
                                          "stored_as": stored_name(curation.name, ""), "directory": where,
                                          "files": curation.files, "counts": curation.manifest["counts"]},
                                         sort_keys=True))
            return
        self.stdout.write((_("wrote %(directory)s") if created else
                           _("unchanged (same name, same inputs, same data files): %(directory)s")) % {"directory": where})
        for name, digest in sorted(curation.files.items()):
            self.stdout.write(f"  {digest}  {name}")
        self.stdout.write(json.dumps(curation.manifest["counts"], sort_keys=True))
