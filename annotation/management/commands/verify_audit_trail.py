"""python manage.py verify_audit_trail [events.jsonl] [--db] [--study ID] [--against-db] [--json]

Checks an audit trail: an exported file (JSONL, from `export_events` or the study page), the
database itself (`--db`, every study or `--study`), or both. For each event: its hash (keyed with
AUDIT_CHAIN_KEYS since issue 22), its place in its study's chain, and that times never go backwards.
One tampering is one finding, not one per later line. `--db` also checks that each chain ends at its
head and reports events left unsealed (written long before the last seal: backdated, or unsealed by
hand). `--against-db` compares each exported event with the stored one, which catches a file whose
whole chain was recomputed after an edit, and a database whose events were removed or rewritten
after the file was exported. Exit status 0 when everything checked verifies, 1 otherwise.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.models import (
    AuditChainBroken,
    AuditChainHead,
    ReviewEvent,
    Study,
    audit_chain_keys,
    seal_audit_chain,
)
from annotation.models.chain import Problem, Verification, check_event, verify_lines
from annotation.outcomes.audit import event_records


def compare_with_database(lines: list[str], result: Verification) -> None:
    """Each exported (study, seq) must carry the hash the database stored for that event; a run of
    differing events (a chain rewritten from some event on) is one finding."""
    exported: list[tuple[int, Any, Any, str]] = []
    for number, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            exported.append((number, event.get("study"), event.get("seq"), str(event.get("hash"))))
    studies = {study for _n, study, _s, _h in exported if isinstance(study, int)}
    for study in sorted(studies):
        _seal(study, result)
    stored = {
        (study, seq): digest
        for study, seq, digest in ReviewEvent.objects.filter(study_id__in=studies, seq__isnull=False)
        .values_list("study_id", "seq", "hash")
    }
    run: dict[Any, tuple[int, Any, str, int]] = {}  # study -> (first line, first seq, what, count)
    for number, study, seq, digest in exported:
        if stored.get((study, seq)) == digest:
            _close_run(run, study, result)
            continue
        what = "is not in the database" if (study, seq) not in stored else "differs from the hash stored in the database"
        if study in run:
            first, first_seq, first_what, count = run[study]
            run[study] = (first, first_seq, first_what, count + 1)
        else:
            run[study] = (number, seq, what, 1)
    for study in list(run):
        _close_run(run, study, result)


def _close_run(run: dict, study: Any, result: Verification) -> None:
    if study not in run:
        return
    line, seq, what, count = run.pop(study)
    later = f" (and the {count - 1} events after it)" if count > 1 else ""
    result.problems.append(Problem(line, f"study {study}, event {seq}: the hash {what}{later}"))


def _seal(study: int, result: Verification) -> None:
    try:
        seal_audit_chain(study)
    except AuditChainBroken as exc:
        result.problems.append(Problem(0, str(exc)))


def verify_database(study_ids: list[int] | None, *, keys: dict[str, bytes], grace: timedelta) -> Verification:
    """Every study's chain as stored: hashes, links, times, the head, and events refused sealing."""
    result = Verification()
    studies = study_ids if study_ids is not None else sorted(
        set(ReviewEvent.objects.values_list("study_id", flat=True).distinct()))
    for study_id in studies:
        _seal(study_id, result)
        for record in event_records(Study(pk=study_id), seal=False):
            check_event(record, 0, result, keys=keys, grace=grace)
        head = AuditChainHead.objects.filter(study_id=study_id).first()
        last = result.heads.get(study_id)
        if keys and head is not None and head.sealed_at is not None and not result._state[study_id].keyed:
            # Sealed since the key (the head has a seal time) yet no keyed event: rewritten in the old format.
            result.problems.append(Problem(0, f"study {study_id}: its head was sealed with a key but none of its "
                                              "events is keyed (the chain was rewritten without the key)"))
        if head is not None and last is not None and (head.seq, head.hash) != (result.studies.get(study_id), last):
            result.problems.append(Problem(0, f"study {study_id}: the chain ends at event {result.studies.get(study_id)}"
                                              f" but its head says {head.seq}"))
        pending = list(ReviewEvent.objects.filter(study_id=study_id, seq__isnull=True).values_list("pk", flat=True))
        if pending:
            result.problems.append(Problem(0, f"study {study_id}: {len(pending)} events were refused sealing (written "
                                              f"long before the chain's last seal: backdated or unsealed), ids "
                                              f"{pending[:10]}"))
    return result


class Command(BaseCommand):
    help = "Verify the audit trail: an exported JSONL file, the database (--db), or both."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", nargs="?", help="JSONL export of a study's review events")
        parser.add_argument("--db", action="store_true", help="Check the chains stored in the database")
        parser.add_argument("--study", type=int, action="append", help="With --db: only this study (repeatable)")
        parser.add_argument("--against-db", action="store_true", help="Also compare the file with the stored hashes")
        parser.add_argument("--json", action="store_true", help="Print one JSON object")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["file"] and not options["db"]:
            raise CommandError("give an exported file, --db, or both")
        keys = audit_chain_keys()
        grace = timedelta(seconds=settings.AUDIT_SEAL_GRACE_SECONDS)
        reports: list[tuple[str, Verification]] = []
        if options["file"]:
            path = Path(options["file"])
            try:
                lines = path.read_text(encoding="utf-8").splitlines()
            except (OSError, UnicodeDecodeError) as exc:
                raise CommandError(f"cannot read {path}: {exc}") from exc
            result = verify_lines(lines, keys=keys, grace=grace)
            if options["against_db"]:
                compare_with_database(lines, result)
            reports.append((str(path), result))
        if options["db"]:
            reports.append(("database", verify_database(options["study"], keys=keys, grace=grace)))
        self._print(reports, as_json=options["json"])
        if not all(result.ok for _name, result in reports):
            raise SystemExit(1)

    def _print(self, reports: list[tuple[str, Verification]], *, as_json: bool) -> None:
        if as_json:
            body = [{
                "source": name, "ok": result.ok, "events": result.events,
                "studies": {str(k): v for k, v in result.studies.items()},
                "problems": [{"line": p.line, "message": p.message} for p in result.problems],
            } for name, result in reports]
            self.stdout.write(json.dumps(body[0] if len(body) == 1 else body))
            return
        for name, result in reports:
            for problem in result.problems:
                self.stdout.write(f"{name}: {problem}" if problem.line else f"{name}: {problem.message}")
            verdict = "verified" if result.ok else "NOT verified"
            self.stdout.write(f"{name}: {result.events} events in {len(result.studies)} studies: {verdict}")
