"""The audit trail's hash chain, as pure functions (no Django): used when an event is written,
when a study's events are exported, and by `verify_audit_trail` on an exported JSONL file.

Each study's events form one chain in the order they were written (`seq` 1, 2, ...). An event's
hash is SHA-256 over the previous event's hash and the event's canonical JSON (the fields in
`HASHED_FIELDS`, sorted keys, no spaces), so editing, removing, inserting or reordering a line of
an export breaks the chain from that line on. The actor is hashed as the pseudonym stored on the
event when it was written: a pseudonymous export verifies, and real names (admins only) ride along
in `actor_name`, which the hash does not cover.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = "0" * 64
HASHED_FIELDS = ("study", "seq", "item", "assignment", "actor", "kind", "reason", "data", "created_at")
EXPORT_FIELDS = (*HASHED_FIELDS, "id", "item_key", "prev_hash", "hash")


def timestamp(moment: datetime) -> str:
    """One spelling of an event time (UTC, microseconds), so the database and an export agree."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical_event(event: Mapping[str, Any]) -> bytes:
    content = {name: event.get(name) for name in HASHED_FIELDS}
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def event_hash(event: Mapping[str, Any], previous_hash: str) -> str:
    """The hash of one event given the hash of the event before it in its study."""
    return hashlib.sha256(previous_hash.encode("ascii") + b"\n" + canonical_event(event)).hexdigest()


def chain(events: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Number and hash events given in writing order (several studies may interleave)."""
    heads: dict[Any, tuple[int, str]] = {}
    chained = []
    for event in events:
        seq, previous = heads.get(event["study"], (0, GENESIS_HASH))
        linked = {**event, "seq": seq + 1, "prev_hash": previous}
        linked["hash"] = event_hash(linked, previous)
        heads[event["study"]] = (seq + 1, linked["hash"])
        chained.append(linked)
    return chained


@dataclass(frozen=True)
class Problem:
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class Verification:
    events: int = 0
    studies: dict[Any, int] = field(default_factory=dict)  # study -> events checked
    heads: dict[Any, str] = field(default_factory=dict)  # study -> hash of its last event
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and self.events > 0


def _check_event(event: dict[str, Any], line: int, result: Verification) -> None:
    study = event.get("study")
    expected_seq = result.studies.get(study, 0) + 1
    previous = result.heads.get(study, GENESIS_HASH)
    if event.get("seq") != expected_seq:
        result.problems.append(Problem(line, f"study {study}: expected event {expected_seq}, found "
                                             f"{event.get('seq')} (an event was removed, added or moved)"))
    if event.get("prev_hash") != previous:
        result.problems.append(Problem(line, f"study {study}: prev_hash does not match the hash of the event "
                                             "before it (the chain is broken here)"))
    if event.get("hash") != event_hash(event, str(event.get("prev_hash", ""))):
        result.problems.append(Problem(line, f"study {study}, event {event.get('seq')}: the content does not "
                                             "match its hash (the line was edited)"))
    result.studies[study] = expected_seq
    result.heads[study] = str(event.get("hash", ""))
    result.events += 1


def verify_lines(lines: Iterable[str]) -> Verification:
    """Check an exported JSONL trail: every line's hash, and every study's chain from its start."""
    result = Verification()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            result.problems.append(Problem(number, f"not JSON: {exc.msg}"))
            continue
        if not isinstance(event, dict):
            result.problems.append(Problem(number, "not a JSON object"))
            continue
        _check_event(event, number, result)
    if result.events == 0 and not result.problems:
        result.problems.append(Problem(0, "no events in the file"))
    return result
