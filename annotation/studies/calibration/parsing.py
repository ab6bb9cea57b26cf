"""A calibration file read through the safe path (issue 22): `[{"item": "<key>", "expected":
{field id: {"label": "...", "explanation": "..."}}}, ...]`.

Everything `safe_loads` refuses (deep nesting, huge integers, NaN, NUL, lone surrogates, a key given
twice) and every value of the wrong shape or over its column's length is a ValidationError naming the
file, the row (from 1) and the field, before anything is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from annotation.models import Item
from cases.importers.safe_load import UnsafeJSON, issue_location, safe_loads

ITEM_KEY_MAX = Item._meta.get_field("key").max_length
TEXT_MAX = 10_000  # an expected label or explanation; far above any scale value or note


@dataclass(frozen=True)
class CalibrationRow:
    item: str
    expected: dict[str, dict[str, str]]

    def as_dict(self) -> dict[str, Any]:
        return {"item": self.item, "expected": self.expected}


def _refuse(file_name: str, row: int | None, field: str | None, message: str) -> ValidationError:
    where = ", ".join(part for part in (f"row {row}" if row else "", f"field {field}" if field else "") if part)
    return ValidationError(f"{file_name}: {where + ': ' if where else ''}{message}")


def _text(value: Any, file_name: str, row: int, field: str, *, limit: int, required: bool) -> str:
    if value is None and not required:
        return ""
    if not isinstance(value, str):
        raise _refuse(file_name, row, field, f"expected text, found {type(value).__name__}")
    if required and not value.strip():
        raise _refuse(file_name, row, field, "is empty")
    if len(value) > limit:
        raise _refuse(file_name, row, field, f"{len(value)} characters; at most {limit}")
    return value


def _row(value: Any, n: int, file_name: str) -> CalibrationRow:
    if not isinstance(value, dict):
        raise _refuse(file_name, n, None, 'expected an object {"item": ..., "expected": {...}}, found '
                      f"{type(value).__name__}")
    item = _text(value.get("item"), file_name, n, "item", limit=ITEM_KEY_MAX, required=True)
    expected = value.get("expected", {})
    if not isinstance(expected, dict):
        raise _refuse(file_name, n, "expected", "expected an object {field id: {label, explanation}}")
    entries: dict[str, dict[str, str]] = {}
    for field_id, entry in expected.items():
        where = f"expected.{field_id}"
        if not isinstance(entry, dict):
            raise _refuse(file_name, n, where, "expected an object {label, explanation}")
        entries[field_id] = {
            "label": _text(entry.get("label"), file_name, n, f"{where}.label", limit=TEXT_MAX, required=True),
            "explanation": _text(entry.get("explanation"), file_name, n, f"{where}.explanation", limit=TEXT_MAX,
                                 required=False),
        }
    return CalibrationRow(item=item, expected=entries)


def parse_calibration(text: str, *, file_name: str) -> list[CalibrationRow]:
    """The rows of a calibration file, or a ValidationError that says where the file is wrong."""
    try:
        value = safe_loads(text)
    except UnsafeJSON as exc:
        record, field, message = issue_location(exc)
        raise _refuse(file_name, record, field, message) from None
    except json.JSONDecodeError as exc:
        raise _refuse(file_name, None, None, f"not JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(value, list):
        raise _refuse(file_name, None, None, 'expected a list of {"item": ..., "expected": {...}}')
    return [_row(entry, n, file_name) for n, entry in enumerate(value, start=1)]
