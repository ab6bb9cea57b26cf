"""python manage.py verify_audit_trail events.jsonl [--against-db] [--json]

Checks an exported audit trail (JSONL, from `export_events` or the study page): every line's hash,
and every study's chain from its first event. An edited, removed, inserted or reordered line is
reported with its line number. `--against-db` also compares each event's hash with the one stored
in the database, which catches a file whose whole chain was recomputed after an edit.
Exit status 0 when the file verifies, 1 otherwise.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import ReviewEvent, seal_audit_chain
from annotation.models.chain import Problem, Verification, verify_lines


def compare_with_database(lines: list[str], result: Verification) -> None:
    """Each exported (study, seq) must carry the hash the database stored for that event."""
    exported: dict[tuple[Any, Any], tuple[int, str]] = {}
    for number, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            exported[(event.get("study"), event.get("seq"))] = (number, str(event.get("hash")))
    studies = {study for study, _ in exported if isinstance(study, int)}
    for study in sorted(studies):
        seal_audit_chain(study)
    stored = {
        (study, seq): digest
        for study, seq, digest in ReviewEvent.objects.filter(study_id__in=studies).values_list("study_id", "seq", "hash")
    }
    for key, (number, digest) in sorted(exported.items(), key=lambda kv: kv[1][0]):
        if stored.get(key) != digest:
            what = "is not in the database" if key not in stored else "differs from the hash stored in the database"
            result.problems.append(Problem(number, f"study {key[0]}, event {key[1]}: the hash {what}"))


class Command(BaseCommand):
    help = "Verify an exported audit trail (JSONL): hashes and chains; optionally against the database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="JSONL export of a study's review events")
        parser.add_argument("--against-db", action="store_true", help="Also compare with the stored hashes")
        parser.add_argument("--json", action="store_true", help="Print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["file"])
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        result = verify_lines(lines)
        if options["against_db"]:
            compare_with_database(lines, result)
        if options["json"]:
            self.stdout.write(json.dumps({
                "ok": result.ok, "events": result.events,
                "studies": {str(k): v for k, v in result.studies.items()},
                "problems": [{"line": p.line, "message": p.message} for p in result.problems],
            }))
        else:
            for problem in result.problems:
                self.stdout.write(f"{path}: {problem}")
            verdict = "verified" if result.ok else "NOT verified"
            self.stdout.write(f"{path}: {result.events} events in {len(result.studies)} studies: {verdict}")
        if not result.ok:
            raise SystemExit(1)
