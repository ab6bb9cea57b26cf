"""A study's audit trail as JSONL or CSV, and the check of such an export against the chain.

Actors appear by the pseudonym stored on each event when it was written (the hash covers it);
`real_names=True` adds `actor_name` (the username) and is for admins who ask for it. JSONL is the
verifiable form (`verify_audit_trail`); CSV is for reading in a spreadsheet (cells are escaped, so
a reason that starts like a formula no longer matches its hash there).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from typing import Any

from annotation.models import AuditChainHead, ReviewEvent, Study, seal_audit_chain
from annotation.models.chain import EXPORT_FIELDS, GENESIS_HASH, timestamp
from medreview.text.tabular import spreadsheet_safe

EVENT_COLUMNS = ("study", "seq", "id", "item", "item_key", "assignment", "actor", "kind", "reason", "data",
                 "created_at", "sealed_at", "key_id", "prev_hash", "hash")
FORMATS = {
    "jsonl": ("application/x-ndjson; charset=utf-8", "jsonl"),
    "csv": ("text/csv; charset=utf-8", "csv"),
}
assert set(EVENT_COLUMNS) == set(EXPORT_FIELDS)


def event_records(study: Study, *, real_names: bool = False, seal: bool = True) -> Iterator[dict[str, Any]]:
    """The study's sealed events in chain order, as export records (pending events are sealed first
    unless `seal` is off)."""
    if seal:
        seal_audit_chain(study.pk)
    rows = (
        ReviewEvent.objects.filter(study_id=study.pk, seq__isnull=False).order_by("seq")
        .values_list("pk", "study_id", "seq", "item_id", "item__key", "assignment_id", "actor_pseudonym",
                     "actor__username", "kind", "reason", "data", "created_at", "sealed_at", "key_id", "prev_hash",
                     "hash")
    )
    for (pk, study_id, seq, item, key, assignment, actor, username, kind, reason, data, created, sealed, key_id,
         prev, digest) in rows.iterator(chunk_size=2000):
        record = {
            "id": pk, "study": study_id, "seq": seq, "item": item, "item_key": key or "",
            "assignment": assignment, "actor": actor or None, "kind": kind, "reason": reason, "data": data,
            "created_at": timestamp(created), "prev_hash": prev, "hash": digest,
        }
        if sealed is not None:  # sealed since issue 22: the hash covers these too
            record["sealed_at"], record["key_id"] = timestamp(sealed), key_id
        if real_names:
            record["actor_name"] = username or ""
        yield record


# Every export carries the chain head of its studies (issue 22): a copy outside the database.
HEAD_HEADER = "Audit-Chain-Head"


def chain_head(study: Study) -> dict[str, Any]:
    """The study's chain head (after sealing): what every export of the study carries, so a copy of
    it lives outside the database (docs/deployment.md, "The audit trail")."""
    seal_audit_chain(study.pk)
    head = AuditChainHead.objects.filter(study=study).first()
    return head.as_dict() if head else {"study": study.pk, "seq": 0, "hash": GENESIS_HASH, "sealed_at": None}


def head_header(heads: Iterable[dict[str, Any]]) -> str:
    """The `Audit-Chain-Head` response header: `study=1 seq=42 hash=...`, studies separated by commas."""
    return ", ".join(f"study={h['study']} seq={h['seq']} hash={h['hash']}" for h in heads)


def events_jsonl(records: Iterable[dict[str, Any]]) -> Iterator[str]:
    for record in records:
        yield json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


class _Echo:
    def write(self, value: str) -> str:
        return value


def events_csv(records: Iterable[dict[str, Any]], *, real_names: bool = False) -> Iterator[str]:
    columns = (*EVENT_COLUMNS, "actor_name") if real_names else EVENT_COLUMNS
    writer = csv.writer(_Echo())
    yield writer.writerow(columns)
    for record in records:
        values = [json.dumps(record[c], sort_keys=True) if c == "data" else record.get(c) for c in columns]
        yield writer.writerow(["" if v is None else spreadsheet_safe(v) for v in values])
