"""JSON and text loading that refuses, with a location, everything the database would later reject.

`json.loads` accepts input that crashes later: a duplicate key (the last one silently wins), nesting
deep enough to raise RecursionError, an integer of thousands of digits (ValueError in Python, and in
`json.dumps` when the value is stored), NaN / Infinity / 1e400 (PostgreSQL's jsonb refuses them),
`\\u0000` (PostgreSQL text and jsonb cannot hold NUL) and a lone surrogate such as `\\ud800` (not
encodable as UTF-8). `safe_loads` refuses each of these with an `UnsafeJSON` that says where: a
path into the value (`[3].criteria[2].criterion`) and, when the path is unknown, a line and column.

CSV files are read by `read_csv` (re-exported here; it lives in `medreview.text.csv_input` because the
accounts import, a lower layer, reads CSV too): any line ending, and a located `UnsafeCSV` for every
`csv.Error` (a cell over `CSV_FIELD_MAX` characters, a quote never closed) and for a column named
twice in the header.

No Django import here: the parsers run (and are tested) without a database.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from medreview.text.csv_input import CSV_FIELD_MAX, CsvRow, CsvTable, UnsafeCSV, read_csv

__all__ = [
    "CSV_FIELD_MAX", "MAX_DEPTH", "MAX_INT_DIGITS", "CsvRow", "CsvTable", "UnsafeCSV", "UnsafeJSON", "check_value",
    "field_path", "find_nul", "issue_location", "position", "read_csv", "safe_loads",
]

# Deeper than any benchmark record (a LiveClin MCQ's table cells are ~7 levels down) and far below
# Python's recursion limit and PostgreSQL's jsonb stack limit.
MAX_DEPTH = 100
# Identifiers in the wild are at most ~20 digits; anything this long is an attack or an accident.
MAX_INT_DIGITS = 100

_TOO_MANY_DIGITS = f"whole number of more than {MAX_INT_DIGITS} digits; too large to store"
_SURROGATE = re.compile("[\ud800-\udfff]")
# Escapes that decode to NUL or a surrogate; raw NUL is already refused by json's strict mode.
_RISKY_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
# Strings first, so brackets and digits inside them are skipped when scanning the text.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|NaN|-?Infinity', re.DOTALL)


@dataclass
class UnsafeJSON(Exception):
    """Where and why a text was refused. `path` is a tuple of keys and 0-based list indices."""

    message: str
    path: tuple[str | int, ...] | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        return self.message


class _DuplicateKeys(dict):
    """An object that had a key twice; only built when that happens, then refused by the walk."""

    duplicates: list[str]


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    flagged = _DuplicateKeys(result)
    flagged.duplicates = [k for k, _ in pairs if k in seen or seen.add(k)]  # type: ignore[func-returns-value]
    return flagged


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number JSON allows")


def field_path(path: tuple[str | int, ...]) -> str:
    """`criteria[2].criterion` for ("criteria", 1, "criterion"): the spelling the parsers use
    for fields, with list positions counted from 1."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part + 1}]"
        else:
            text += f".{part}" if text else part
    return text


def position(text: str, offset: int) -> tuple[int, int]:
    """(line, column), both from 1, of a character offset."""
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _is_wanted(wanted: str, piece: str, depth: int) -> bool:
    if wanted == "depth":
        return depth > MAX_DEPTH
    number = piece.lstrip("-")
    if wanted == "integer":
        return number.isdigit() and len(number) > MAX_INT_DIGITS
    return number in ("NaN", "Infinity")


def _locate(text: str, wanted: str) -> tuple[int | None, int | None]:
    """Line and column of the first token outside strings that `wanted` describes."""
    depth = 0
    for match in _TOKEN.finditer(text):
        piece = match.group()
        if piece[0] == '"':
            continue
        if piece in ("[", "{"):
            depth += 1
        elif piece in ("]", "}"):
            depth -= 1
        if _is_wanted(wanted, piece, depth):
            return position(text, match.start())
    return None, None


def _problem(value: Any) -> str | None:
    """What is wrong with one scalar or key, if anything."""
    if isinstance(value, str):
        if "\x00" in value:
            return "contains a NUL character (\\u0000), which cannot be stored; remove it"
        found = _SURROGATE.search(value)
        if found:
            return (f"contains a lone surrogate (\\u{ord(found.group()):04x}), which is not valid "
                    "Unicode; fix the file's encoding")
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and len(str(abs(value))) > MAX_INT_DIGITS:
        return _TOO_MANY_DIGITS
    if isinstance(value, float) and not math.isfinite(value):
        return "number too large to store (it overflows to infinity)"
    return None


# A whole number of more than MAX_INT_DIGITS digits is at least this far from zero.
_INT_LIMIT = 10**MAX_INT_DIGITS


def _has_problem(value: Any, check_text: bool) -> bool:
    """Whether the value holds anything `_refuse_where` refuses, in one pass level by level that builds
    no path: almost every file is fine, and the paths cost the walk most of its time (a LiveMedBench
    release: 32 -> 9 ms). A type it does not know counts as a problem, so the located walk decides."""
    level, depth = [value], 0
    while level:
        if depth > MAX_DEPTH:
            return True
        below: list[Any] = []
        for current in level:
            kind = type(current)
            if kind is str:
                if check_text and _problem(current):
                    return True
            elif kind is dict:
                if check_text and any(_problem(key) for key in current):
                    return True
                below.extend(current.values())
            elif kind is list:
                below.extend(current)
            elif kind is int:
                if not -_INT_LIMIT < current < _INT_LIMIT:
                    return True
            elif kind is float:
                if not math.isfinite(current):
                    return True
            elif current is not None and kind is not bool:
                return True  # an object with a duplicate key, or a type JSON does not make
        level, depth = below, depth + 1
    return False


def check_value(value: Any, *, check_text: bool = True) -> None:
    """Walk a parsed value without recursion; raise UnsafeJSON at the first problem.

    `check_text=False` skips the NUL / surrogate test of every string, which the caller may do when
    the source text has no escape that could produce one. A quick pass finds whether there is a
    problem; only then does the walk that says where run."""
    if _has_problem(value, check_text):
        _refuse_where(value, check_text)


def _refuse_where(value: Any, check_text: bool) -> None:
    """The walk that says where: raise UnsafeJSON, with its path, at the first problem."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(value, ())]
    while stack:
        current, path = stack.pop()
        if len(path) > MAX_DEPTH:
            # The record and its top field are location enough; the full path would be 100 levels long.
            raise UnsafeJSON(f"nested more than {MAX_DEPTH} levels deep", path[:2])
        if isinstance(current, dict):
            if isinstance(current, _DuplicateKeys):
                raise UnsafeJSON(
                    f"duplicate key {current.duplicates[0]!r} in one object (a key may appear once)", path
                )
            for key, child in current.items():
                if check_text and (problem := _problem(key)):
                    raise UnsafeJSON(f"key {key!r} {problem}", path)
                stack.append((child, (*path, key)))
        elif isinstance(current, list):
            stack.extend((child, (*path, i)) for i, child in enumerate(current))
        elif (check_text or not isinstance(current, str)) and (problem := _problem(current)):
            raise UnsafeJSON(problem, path)


def safe_loads(text: str, *, check: bool = True) -> Any:
    """`json.loads` that refuses what could not be stored; raises UnsafeJSON (a located error) or
    json.JSONDecodeError (syntax). `check=False` refuses only what cannot be parsed at all (deep
    nesting, huge integers, NaN): a caller that must look at the value's shape before it can say
    where a problem is (is this a mapping or a record?) then calls `check_value` on it."""
    try:
        value = json.loads(text, object_pairs_hook=_pairs_hook, parse_constant=_refuse_constant)
    except RecursionError:
        line, column = _locate(text, "depth")
        raise UnsafeJSON(f"nested more than {MAX_DEPTH} levels deep", None, line, column) from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        # parse_constant (NaN, Infinity) or int() refusing thousands of digits.
        wanted = "constant" if "JSON allows" in str(exc) else "integer"
        line, column = _locate(text, wanted)
        message = str(exc) if wanted == "constant" else _TOO_MANY_DIGITS
        raise UnsafeJSON(message, None, line, column) from None
    if check:
        check_value(value, check_text=bool(_RISKY_ESCAPE.search(text)))
    return value


def issue_location(
    exc: UnsafeJSON, *, record: int | None = None, line_offset: int = 0
) -> tuple[int | None, str | None, str]:
    """(record, field, message) for an `Issues` entry. With `record=None` the text was a whole file
    holding a list of records: the first path step is the record (counted from 1)."""
    path = exc.path
    if path is None:
        where = f" at line {exc.line + line_offset} column {exc.column}" if exc.line is not None else ""
        return record, None, exc.message + where
    if record is None and path and isinstance(path[0], int):
        record, path = path[0] + 1, path[1:]
    return record, field_path(path) or None, exc.message


def find_nul(text: str) -> tuple[int, int] | None:
    """(line, column) of the first NUL character of a decoded text (CSV, JSONL), or None."""
    offset = text.find("\x00")
    return None if offset < 0 else position(text, offset)
