"""Reading an uploaded CSV file whole, or refusing it with the line (and column) of the problem.

Every CSV import (release files, outside scores and labels, accounts) reads through `read_csv`, so
none of them answers 500 on what the `csv` module raises or silently keeps the last of two columns
of one name:

- any line ending (LF, CRLF, and CR alone, as old spreadsheet software writes it), quoted cells
  spanning lines included;
- a cell longer than `CSV_FIELD_MAX` characters (the `csv` module's process-wide limit, left as
  it is) and every other `csv.Error` (a quote never closed, text after a closing quote) become an
  `UnsafeCSV` naming the line;
- a header naming one column twice is refused, naming the column.

The text must already be decoded (`cases.importers.base.decode` refuses bytes that are not UTF-8
and NUL). No Django import: the parsers run without a database.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

# csv.field_size_limit()'s default. Changing it would change it for the whole process, so it is not
# raised: a cell this long is a sign of a broken quote far more often than of a real value.
CSV_FIELD_MAX = 131_072

_EXPLAINED = {
    "unexpected end of data": "a quoted cell is never closed (a \" opens it and the file ends)",
    "',' expected after '\"'": "text follows a closing quote; write a quote inside a quoted cell as \"\"",
}


@dataclass
class UnsafeCSV(Exception):
    """Why a CSV text was refused: `line` from 1 (None for the whole file), `column` a header name."""

    message: str
    line: int | None = None
    column: str | None = None

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class CsvRow:
    """One record: `line` is the line it ends on (a quoted cell may span lines); `cells` maps every
    named column to its text ("" where the row is short); `extra` holds the text no column names
    (cells past the header, or under a blank header cell)."""

    line: int
    cells: dict[str, str]
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class CsvTable:
    header: tuple[str, ...]
    rows: tuple[CsvRow, ...]


def csv_error_message(exc: csv.Error) -> str:
    """What a `csv.Error` means, in words a person fixing the file understands."""
    text = str(exc)
    if text.startswith("field larger than field limit"):
        return (f"a cell is longer than {CSV_FIELD_MAX:,} characters, the most a CSV cell may hold; "
                "look for a quote that is never closed, or import the data as JSON")
    return f"invalid CSV: {_EXPLAINED.get(text, text)}"


def _check_header(header: list[str]) -> None:
    first: dict[str, int] = {}
    for position, name in enumerate(header, start=1):
        if not name:
            continue  # blank header cells (a trailing comma) name no column
        if name in first:
            raise UnsafeCSV(
                f"column {name!r} appears twice in the header (columns {first[name]} and {position}); "
                "a column may appear once", 1, name,
            )
        first[name] = position


def _row(header: list[str], cells: list[str], line: int) -> CsvRow:
    padded = cells + [""] * (len(header) - len(cells))
    named = {name: padded[i] for i, name in enumerate(header) if name}
    # Text under a blank header cell belongs to no column: reported like cells past the header.
    unnamed = [padded[i] for i, name in enumerate(header) if not name and padded[i].strip()]
    return CsvRow(line, named, (*unnamed, *cells[len(header):]))


def read_csv(text: str) -> CsvTable:
    """The header (trimmed) and every row that is not blank; raises UnsafeCSV with the line."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [name.strip() for name in next(reader, [])]
        if not any(header):
            raise UnsafeCSV("empty file: expected a header row")
        _check_header(header)
        rows = []
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                continue
            rows.append(_row(header, cells, reader.line_num))
    except csv.Error as exc:
        raise UnsafeCSV(csv_error_message(exc), reader.line_num or 1) from None
    return CsvTable(tuple(header), tuple(rows))
