"""The audit trail's hash chain, as pure functions (no Django): used when an event is written,
when a study's events are exported, and by `verify_audit_trail` on an exported JSONL file or on the
database itself.

Each study's events form one chain in the order they were sealed (`seq` 1, 2, ...). An event's
hash covers the previous event's hash and the event's canonical JSON (the fields in
`HASHED_FIELDS`, plus `SEALED_FIELDS` for events sealed since issue 22; sorted keys, no spaces), so
editing, removing, inserting or reordering a line of an export breaks the chain at that line.
Since issue 22 the hash is an HMAC-SHA256 keyed with a secret kept outside the database
(`AUDIT_CHAIN_KEYS`); the key's id is recorded in each event (`key_id`) so keys can rotate. Events
sealed before then (no `sealed_at`) keep their plain SHA-256. The actor is hashed as the pseudonym
stored on the event when it was written: a pseudonymous export verifies, and real names (admins
only) ride along in `actor_name`, which the hash does not cover.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

GENESIS_HASH = "0" * 64
HASHED_FIELDS = ("study", "seq", "item", "assignment", "actor", "kind", "reason", "data", "created_at")
# Covered too once an event carries `sealed_at` (every event sealed since issue 22).
SEALED_FIELDS = ("sealed_at", "key_id")
EXPORT_FIELDS = (*HASHED_FIELDS, *SEALED_FIELDS, "id", "item_key", "prev_hash", "hash")
# How long a review transaction may run between writing an event and committing it: an event
# written longer than this before the chain was last sealed is refused (backdated, or unsealed).
SEAL_GRACE = timedelta(hours=1)  # AUDIT_SEAL_GRACE_SECONDS's default


def timestamp(moment: datetime) -> str:
    """One spelling of an event time (UTC, microseconds), so the database and an export agree."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(value: Any) -> datetime | None:
    """An exported time back into a datetime (None when absent or not one of ours)."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    except ValueError:
        return None


def canonical_event(event: Mapping[str, Any]) -> bytes:
    names = (*HASHED_FIELDS, *SEALED_FIELDS) if event.get("sealed_at") is not None else HASHED_FIELDS
    content = {name: event.get(name) for name in names}
    return json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def event_hash(event: Mapping[str, Any], previous_hash: str, key: bytes | None = None) -> str:
    """The hash of one event given the hash of the event before it in its study: HMAC-SHA256 with
    `key` (the secret of the event's `key_id`), plain SHA-256 without one."""
    message = previous_hash.encode("ascii", "replace") + b"\n" + canonical_event(event)
    if key:
        return hmac.new(key, message, hashlib.sha256).hexdigest()
    return hashlib.sha256(message).hexdigest()


def chain(
    events: Iterable[Mapping[str, Any]], *, keys: Mapping[str, bytes] | None = None, key_id: str = "",
) -> list[dict[str, Any]]:
    """Number and hash events given in writing order (several studies may interleave); with `key_id`
    (one of `keys`) as sealed since issue 22, `sealed_at` defaulting to `created_at`."""
    heads: dict[Any, tuple[int, str]] = {}
    chained = []
    for event in events:
        seq, previous = heads.get(event["study"], (0, GENESIS_HASH))
        linked = {**event, "seq": seq + 1, "prev_hash": previous}
        if key_id:
            linked.setdefault("sealed_at", linked.get("created_at"))
            linked["key_id"] = key_id
        linked["hash"] = event_hash(linked, previous, (keys or {}).get(key_id))
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
class _Study:
    seq: int = 0
    head: str = GENESIS_HASH
    sealed_at: datetime | None = None
    keyed: bool = False


@dataclass
class Verification:
    """What a check found. One tampering is one problem: after a finding the check carries on from
    what the line says (its seq and hash), so the lines after it are judged on their own."""

    events: int = 0
    studies: dict[Any, int] = field(default_factory=dict)  # study -> events checked
    heads: dict[Any, str] = field(default_factory=dict)  # study -> hash of its last event
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # not problems: e.g. events from before the key
    _state: dict[Any, _Study] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        return not self.problems and self.events > 0


def _content_problem(event: Mapping[str, Any], keys: Mapping[str, bytes], state: _Study) -> str:
    """Why the event's hash does not hold ("" when it does)."""
    key_id = event.get("key_id") or ""
    if event.get("sealed_at") is None:
        if state.keyed:
            return "sealed without a key after keyed events (the chain was rewritten from here)"
        key = None
    elif not key_id:
        if keys:
            return "sealed without a key although AUDIT_CHAIN_KEYS is set (the chain was rewritten from here)"
        key = None
    else:
        key = keys.get(key_id)
        if key is None:
            return f"sealed with key {key_id!r}, which AUDIT_CHAIN_KEYS does not hold: it cannot be verified"
    if event.get("hash") != event_hash(event, str(event.get("prev_hash", "")), key):
        return "the content does not match its hash (the line was edited)"
    return ""


def _time_problem(event: Mapping[str, Any], state: _Study, grace: timedelta) -> str:
    sealed = parse_time(event.get("sealed_at"))
    created = parse_time(event.get("created_at"))
    if sealed is None:
        return ""
    if state.sealed_at is not None and sealed < state.sealed_at:
        return "sealed before the event before it (times go backwards)"
    if created is not None and created > sealed:
        return "written after it was sealed (times go backwards)"
    if created is not None and state.sealed_at is not None and created < state.sealed_at - grace:
        return "written long before the event before it was sealed (a backdated or unsealed event)"
    return ""


def check_event(
    event: Mapping[str, Any], line: int, result: Verification, *, keys: Mapping[str, bytes] | None = None,
    grace: timedelta = SEAL_GRACE,
) -> None:
    """Check one event against its study's chain so far; at most one problem for it."""
    keys = keys or {}
    study = event.get("study")
    state = result._state.setdefault(study, _Study())
    found = event.get("seq")
    reasons = []
    if found != state.seq + 1:
        reasons.append(f"expected event {state.seq + 1}, found {found} (an event was removed, added or moved)")
    elif event.get("prev_hash") != state.head:
        reasons.append("prev_hash does not match the hash of the event before it (the chain is broken here)")
    content = _content_problem(event, keys, state)
    if content:
        reasons.append(content)
    if not reasons:
        timing = _time_problem(event, state, grace)
        if timing:
            reasons.append(timing)
    if reasons:
        result.problems.append(Problem(line, f"study {study}, event {found}: " + "; ".join(reasons)))
    # Carry on from what this line says, so one tampering is one finding.
    state.seq = found if isinstance(found, int) else state.seq + 1
    state.head = str(event.get("hash", ""))
    state.sealed_at = parse_time(event.get("sealed_at")) or state.sealed_at
    state.keyed = state.keyed or bool(event.get("key_id"))
    result.studies[study] = result.studies.get(study, 0) + 1
    result.heads[study] = state.head
    result.events += 1


def verify_lines(
    lines: Iterable[str], *, keys: Mapping[str, bytes] | None = None, grace: timedelta = SEAL_GRACE,
) -> Verification:
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
        check_event(event, number, result, keys=keys, grace=grace)
    if result.events == 0 and not result.problems:
        result.problems.append(Problem(0, "no events in the file"))
    return result
