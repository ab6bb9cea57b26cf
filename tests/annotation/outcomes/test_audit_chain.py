"""The audit trail's hash chain on its own: chain, export lines, detect every kind of tampering."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from annotation.models.chain import GENESIS_HASH, chain, event_hash, timestamp, verify_lines


def events() -> list[dict]:
    raw = [
        {"study": 1, "item": 10, "assignment": 100, "actor": "R-amber", "kind": "claimed", "reason": "",
         "data": {"pair_order": ""}},
        {"study": 2, "item": 20, "assignment": None, "actor": None, "kind": "resolved", "reason": "agreed",
         "data": {}},
        {"study": 1, "item": 10, "assignment": 100, "actor": "R-amber", "kind": "submitted", "reason": "",
         "data": {"round": 1, "seconds": 42}},
        {"study": 1, "item": 10, "assignment": None, "actor": "R-chief", "kind": "adjudicated",
         "reason": "guideline 3", "data": {"labels": {"narrative-quality|": "0"}}},
    ]
    for i, e in enumerate(raw):
        e["created_at"] = timestamp(datetime(2026, 1, 5, 9, 0, i, 1234, tzinfo=UTC))
    return chain(raw)


def lines(chained: list[dict]) -> list[str]:
    return [json.dumps(e, sort_keys=True) for e in chained]


def test_it_each_study_is_its_own_chain_starting_from_the_genesis_hash() -> None:
    chained = events()
    assert [(e["study"], e["seq"]) for e in chained] == [(1, 1), (2, 1), (1, 2), (1, 3)]
    assert chained[0]["prev_hash"] == GENESIS_HASH and chained[1]["prev_hash"] == GENESIS_HASH
    assert chained[2]["prev_hash"] == chained[0]["hash"]
    assert chained[3]["hash"] == event_hash(chained[3], chained[2]["hash"])
    result = verify_lines(lines(chained))
    assert result.ok and result.events == 4 and result.studies == {1: 3, 2: 1}


def test_it_the_hash_ignores_fields_it_does_not_cover_such_as_real_names() -> None:
    chained = events()
    chained[0]["actor_name"] = "Dr Amber Example"
    chained[0]["id"] = 991
    assert verify_lines(lines(chained)).ok


def test_it_an_edited_line_is_detected_and_named() -> None:
    text = lines(events())
    text[2] = text[2].replace('"seconds": 42', '"seconds": 4')
    result = verify_lines(text)
    assert not result.ok
    assert [str(p) for p in result.problems] == [
        "line 3: study 1, event 2: the content does not match its hash (the line was edited)"]


def test_it_a_removed_or_reordered_line_breaks_the_chain() -> None:
    text = lines(events())
    removed = verify_lines(text[:2] + text[3:])
    assert [p.line for p in removed.problems] == [3]  # one tampering, one finding (issue 22)
    swapped = verify_lines([text[0], text[3], text[1], text[2]])
    assert not swapped.ok


def test_it_a_line_rehashed_by_hand_still_breaks_the_next_link() -> None:
    chained = events()
    chained[0]["reason"] = "forged"
    chained[0]["hash"] = event_hash(chained[0], chained[0]["prev_hash"])
    result = verify_lines(lines(chained))
    assert [str(p) for p in result.problems] == [
        "line 3: study 1, event 2: prev_hash does not match the hash of the event before it (the chain is broken here)"]


def test_it_garbage_and_empty_files_are_not_ok() -> None:
    assert [str(p) for p in verify_lines(["{not json"]).problems][0].startswith("line 1: not JSON")
    assert not verify_lines([]).ok
    assert not verify_lines(["[1, 2]"]).ok
