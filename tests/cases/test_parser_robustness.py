"""Bad input never raises: every value of every fixture replaced by every JSON type."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cases.importers import parse

FIXTURES = Path(__file__).parent / "fixtures"
FILES = {
    "livemedbench": "livemedbench_cases.json",
    "livemedbench-responses": "livemedbench_responses.json",
    "livemedbench-grades": "evaluation_results_model.json",
    "liveclin": "liveclin.jsonl",
    "healthbench": "healthbench.jsonl",
    "generic": "generic.json",
}
REPLACEMENTS: list[Any] = [None, 7, 2.5, True, "", "x", [], {}, [1], {"a": 1}]


def paths(value: Any, prefix: tuple = ()) -> Iterator[tuple]:
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, (*prefix, i))


def replaced(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    copy = json.loads(json.dumps(value))
    target = copy
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return copy


def load(fmt: str) -> list[Any]:
    text = (FIXTURES / FILES[fmt]).read_text(encoding="utf-8")
    if FILES[fmt].endswith(".jsonl"):
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(text)


def dump(fmt: str, records: list[Any]) -> bytes:
    if FILES[fmt].endswith(".jsonl"):
        return "\n".join(json.dumps(r, ensure_ascii=False) for r in records).encode()
    return json.dumps(records, ensure_ascii=False).encode()


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_it_never_raises_and_reports_each_damaged_value(fmt: str) -> None:
    records = load(fmt)[:1]
    checked = 0
    for path in list(paths(records[0])):
        for new in REPLACEMENTS:
            data = dump(fmt, [replaced(records[0], path, new)])
            result = parse(fmt, data, "f")  # must not raise
            assert all(issue.message for issue in result.issues)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("fmt", sorted(FILES))
def test_it_never_raises_on_truncated_or_garbled_bytes(fmt: str) -> None:
    data = (FIXTURES / FILES[fmt]).read_bytes()
    for cut in range(1, len(data), max(1, len(data) // 60)):
        result = parse(fmt, data[:cut], "f")
        # A prefix of a JSON list is never valid; a JSONL prefix is valid only at a line break.
        at_line_break = data[:cut].endswith(b"\n") or data[cut : cut + 1] == b"\n"
        if not (FILES[fmt].endswith(".jsonl") and at_line_break):
            assert result.issues, cut
    assert parse(fmt, bytes(range(256)), "f").issues
