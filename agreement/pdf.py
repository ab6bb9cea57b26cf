"""The whole report as one PDF, rendered on the server with matplotlib's PDF backend (no browser).

A4 portrait pages: a cover (selection, counts, labels used, conventions), every table in the
page's compact layout (value with CI and p in one cell; long tables continue on the next page,
wide ones in smaller type), then every chart as vector graphics.
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Iterable

import matplotlib

matplotlib.use("Agg")

from django.utils.formats import date_format  # noqa: E402
from django.utils.translation import gettext as _  # noqa: E402
from matplotlib.backends.backend_pdf import PdfPages  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from agreement.charts import use_cjk_fallback  # noqa: E402
from agreement.presentation import compact  # noqa: E402
from agreement.reports import Report, Table, software_version  # noqa: E402
from agreement.reports.words import COUNT_NAMES  # noqa: E402
from medreview.text import han_share  # noqa: E402

use_cjk_fallback()  # Chinese titles, headers and notes

A4 = (8.27, 11.69)
ROWS_PER_PAGE = 32
MARGIN = 0.06


def _wrap(text: str, width: int) -> list[str]:
    """Lines of at most `width` Latin characters' width: Chinese characters are about twice as wide."""
    share = han_share(text)
    return textwrap.wrap(text, width // 2 if share and share >= 0.3 else width) or [""]


def _fill(text: str, width: int) -> str:
    return "\n".join(_wrap(text, width))


def _text_page(title: str, paragraphs: Iterable[tuple[str, str]]) -> Figure:
    fig = Figure(figsize=A4)
    fig.text(MARGIN, 0.96, title, fontsize=15, weight="bold", va="top")
    y = 0.92
    for head, body in paragraphs:
        if y < 0.06:
            break
        if head:
            fig.text(MARGIN, y, head, fontsize=9, weight="bold", va="top")
            y -= 0.018
        for line in _wrap(body, 110):
            fig.text(MARGIN, y, line, fontsize=8, va="top")
            y -= 0.015
        y -= 0.008
    return fig


def _cover(report: Report) -> list[Figure]:
    sel = {k: v for k, v in report.selection.as_dict().items() if v not in (None, [], {}, "")}
    when = date_format(report.generated_at, "DATETIME_FORMAT")
    first = [
        ("", _("medreview %(version)s, generated %(when)s UTC") % {"version": software_version(), "when": when}),
        (_("Selection"), ", ".join(f"{k} = {v}" for k, v in sel.items()) or _("everything")),
        (_("Counts"), _("; ").join(f"{_(COUNT_NAMES[k]) if k in COUNT_NAMES else k}: {v}"
                                   for k, v in report.counts.items())),
        (_("Labels used"), report.labels_used),
    ]
    conventions = [(k.replace("_", " "), v) for k, v in report.conventions.items()]
    return [_text_page(_("Agreement report"), first + conventions[:12]),
            *([_text_page(_("Conventions (continued)"), conventions[12:])] if len(conventions) > 12 else [])]


def _table_pages(table: Table) -> list[Figure]:
    heads, rows, _shown = compact(table.frame)
    if not rows:
        return []
    pages = []
    wide = len(heads) > 7 or sum(len(h) for h in heads) > 140
    size = 6 if wide else 7.5
    for start in range(0, len(rows), ROWS_PER_PAGE):
        chunk = rows[start:start + ROWS_PER_PAGE]
        fig = Figure(figsize=A4)
        title = _("%(title)s (continued)") % {"title": table.title} if start else table.title
        fig.text(MARGIN, 0.96, _fill(title, 90), fontsize=11, weight="bold", va="top")
        height = min(0.8, 0.026 * (len(chunk) + 1))
        ax = fig.add_axes((MARGIN, 0.9 - height, 1 - 2 * MARGIN, height))
        ax.axis("off")
        wrapped_heads = [_fill(h, 16) for h in heads]
        cells = [[_fill(c, 28) for c in r] for r in chunk]
        tab = ax.table(cellText=cells, colLabels=wrapped_heads, loc="upper left", cellLoc="left")
        tab.auto_set_font_size(False)
        tab.set_fontsize(size)
        tab.auto_set_column_width(list(range(len(heads))))
        for (row, _col), cell in tab.get_celld().items():
            cell.set_linewidth(0.3)
            if row == 0:
                cell.set_text_props(weight="bold")
                cell.set_facecolor("#eef2f6")
        if table.note and start + ROWS_PER_PAGE >= len(rows):
            fig.text(MARGIN, max(0.03, 0.88 - height - 0.02), _fill(table.note, 120), fontsize=7,
                     va="top", style="italic")
        pages.append(fig)
    return pages


def report_pdf(report: Report, figures: Iterable[tuple[str, Figure]] = ()) -> bytes:
    """The report's tables and the given charts (title, figure) as PDF bytes."""
    buffer = io.BytesIO()
    with PdfPages(buffer, metadata={"Title": _("medreview agreement report"), "Creator": "medreview"}) as pdf:
        for fig in _cover(report):
            pdf.savefig(fig)
        for table in report.tables:
            for fig in _table_pages(table):
                pdf.savefig(fig)
        for title, fig in figures:
            fig.suptitle(title, fontsize=10)
            pdf.savefig(fig, bbox_inches="tight")
    return buffer.getvalue()
