"""Report tables as reportlab tables that fit the page: every cell a paragraph that wraps inside its
column, column widths fitted to the frame, the header row repeated on every page a table runs to.

Column widths: each column wants its widest cell on one line; when the columns together want more
than the frame, each keeps its longest word and shares the rest (`fit_widths`), and its cells wrap
between words. A table whose words do not fit side by side on a portrait page goes on a landscape
page. A row grows to its tallest cell, so wrapped text never runs into the next row.
"""

from __future__ import annotations

from reportlab.lib import colors
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph, Table, TableStyle

from agreement.pdf.fonts import SANS, SANS_BOLD, markup, width

#: Cell padding (points) on each side, and type sizes for ordinary and wide tables.
PAD = 2.5
SIZE, WIDE_SIZE = 7.5, 6.5


def _style(size: float, bold: bool = False) -> ParagraphStyle:
    return ParagraphStyle(
        "cell-bold" if bold else "cell", fontName=SANS_BOLD if bold else SANS, fontSize=size, leading=size * 1.2,
        splitLongWords=True, wordWrap=None,
    )


#: A word longer than this (a grader's long name) may break inside its column.
MAX_WORD = 90.0


def _longest_word(text: str, font: str, size: float) -> float:
    return max((width(w, font, size) for w in text.split()), default=0.0)


def column_widths(heads: list[str], rows: list[list[str]], size: float) -> tuple[list[float], list[float]]:
    """(natural, minimum) width of each column: every cell on one line, and its longest word."""
    natural, minimum = [], []
    extra = 2 * PAD + 1
    for k, head in enumerate(heads):
        cells = [r[k] for r in rows]
        natural.append(max([min(width(head, SANS_BOLD, size), 110.0), *(width(c, SANS, size) for c in cells)]) + extra)
        words = [_longest_word(head, SANS_BOLD, size), *(_longest_word(c, SANS, size) for c in cells)]
        minimum.append(min(max(words), MAX_WORD) + extra)
    natural = [max(n, m) for n, m in zip(natural, minimum, strict=True)]
    return natural, minimum


def fit_widths(natural: list[float], minimum: list[float], available: float) -> list[float]:
    """Column widths summing to at most `available`.

    Natural widths when they fit; otherwise every column keeps its longest word and the width left
    goes to the columns in proportion to what they would still like; when even the words do not fit,
    the minimum widths shrink in proportion (long words then break).
    """
    if sum(natural) <= available:
        return list(natural)
    if sum(minimum) >= available:
        return [m * available / sum(minimum) for m in minimum]
    want = [n - m for n, m in zip(natural, minimum, strict=True)]
    spare = available - sum(minimum)
    return [m + spare * w / sum(want) for m, w in zip(minimum, want, strict=True)]


def needs_landscape(heads: list[str], rows: list[list[str]], portrait_width: float) -> bool:
    """True when the table's words do not fit the portrait frame side by side."""
    _natural, minimum = column_widths(heads, rows, table_size(heads))
    return sum(minimum) > portrait_width


def table_size(heads: list[str]) -> float:
    return WIDE_SIZE if len(heads) > 8 else SIZE


def pdf_table(heads: list[str], rows: list[list[str]], available: float) -> Table:
    """A table that fits `available` points of width and splits across pages with its header repeated."""
    size = table_size(heads)
    widths = fit_widths(*column_widths(heads, rows, size), available)
    body, head = _style(size), _style(size, bold=True)
    data = [[Paragraph(markup(h), head) for h in heads]]
    data += [[Paragraph(markup(c), body) for c in row] for row in rows]
    table = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT", splitByRow=1)
    table.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.3, colors.HexColor("#9aa5b1")),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#eef2f6")),
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD), ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 1.5),
    ]))
    return table
