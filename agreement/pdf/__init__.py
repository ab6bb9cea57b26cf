"""The whole report as one PDF a paper can use, laid out by reportlab's platypus (no browser).

Sections flow on A4 pages: a cover (selection, counts, labels used), the figures, the tables, then
the conventions. Tables and figures carry the numbers the report page shows (Table 3 here is Table
3 there, `agreement.reports.presentation.numbered`). Every table is set in the page's compact layout (value,
CI and p in one cell), its cells wrap inside columns fitted to the page, and a table that runs to
another page repeats its header row; from the first table too wide for portrait on, tables go on
landscape pages (a narrower table fits those too, so the orientation changes once). Figures
are the page's 300-dpi PNGs, printed at the size they were drawn.

Why reportlab rather than matplotlib's PDF pages (the first version): matplotlib's table is a
drawing with no wrapping, page breaks or repeated headers, so wide tables ran off the page, wrapped
cells overprinted the next rows and every table took a page of its own.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from PIL import Image as PILImage
from reportlab import rl_config
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.platypus import (
    BaseDocTemplate,
    Flowable,
    Frame,
    KeepTogether,
    NextPageTemplate,
    PageBreak,
    PageTemplate,
    Paragraph,
    Spacer,
)

from agreement.charts import PNG_DPI
from agreement.pdf.fonts import SANS, SANS_BOLD, SANS_ITALIC, markup, register
from agreement.pdf.tables import needs_landscape, pdf_table
from agreement.reports import Report, software_version
from agreement.reports.presentation import compact, numbered
from agreement.reports.words import COUNT_NAMES

# Binary streams, not ASCII85 text: a third smaller and several times faster to write (the 300-dpi
# figures are most of the file). Every PDF reader reads binary streams; only 7-bit mail needed A85.
rl_config.useA85 = 0

MARGIN = 15 * mm
PORTRAIT, LANDSCAPE = "portrait", "landscape"


@dataclass(frozen=True)
class PdfFigure:
    """One chart for the PDF: its number and title as on the page, and its 300-dpi PNG."""

    number: int
    title: str
    png: bytes


def _styles() -> dict[str, ParagraphStyle]:
    register()
    return {
        "title": ParagraphStyle("title", fontName=SANS_BOLD, fontSize=16, leading=20, spaceAfter=8),
        "h1": ParagraphStyle("h1", fontName=SANS_BOLD, fontSize=12.5, leading=16, spaceBefore=6, spaceAfter=6,
                             keepWithNext=True),
        "caption": ParagraphStyle("caption", fontName=SANS_BOLD, fontSize=9.5, leading=12, spaceBefore=8,
                                  spaceAfter=4, keepWithNext=True),
        "head": ParagraphStyle("head", fontName=SANS_BOLD, fontSize=8.5, leading=11, spaceBefore=4,
                               keepWithNext=True),
        "body": ParagraphStyle("body", fontName=SANS, fontSize=8.5, leading=11, spaceAfter=3),
        "note": ParagraphStyle("note", fontName=SANS_ITALIC, fontSize=7.5, leading=9.5, spaceBefore=3,
                               spaceAfter=4),
    }


class _Document(BaseDocTemplate):
    """A4 portrait and landscape page templates; page numbers in the footer."""

    def __init__(self, buffer: io.BytesIO, title: str) -> None:
        super().__init__(buffer, pagesize=A4, title=title, author="medreview", creator="medreview",
                         leftMargin=MARGIN, rightMargin=MARGIN, topMargin=MARGIN, bottomMargin=MARGIN)
        self.report_title = title
        templates = []
        for name, size in ((PORTRAIT, A4), (LANDSCAPE, landscape(A4))):
            frame = Frame(MARGIN, MARGIN, size[0] - 2 * MARGIN, size[1] - 2 * MARGIN, id=name,
                          leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
            templates.append(PageTemplate(id=name, frames=[frame], pagesize=size, onPage=self._footer))
        self.addPageTemplates(templates)

    def _footer(self, canvas: object, doc: BaseDocTemplate) -> None:
        canvas.saveState()
        canvas.setFont(SANS, 7)
        canvas.drawString(MARGIN, MARGIN / 2, self.report_title[:120])
        canvas.drawRightString(doc.pagesize[0] - MARGIN, MARGIN / 2, _("page %(n)s") % {"n": doc.page})
        canvas.restoreState()


def frame_width(orientation: str) -> float:
    size = A4 if orientation == PORTRAIT else landscape(A4)
    return size[0] - 2 * MARGIN


def frame_height(orientation: str) -> float:
    size = A4 if orientation == PORTRAIT else landscape(A4)
    return size[1] - 2 * MARGIN


def _cover(report: Report, title: str, styles: dict[str, ParagraphStyle]) -> list[Flowable]:
    sel = {k: v for k, v in report.selection.as_dict().items() if v not in (None, [], {}, "", 0)}
    parts: list[Flowable] = [
        Paragraph(markup(title), styles["title"]),
        Paragraph(markup(_("medreview %(version)s, generated %(when)s UTC") % {
            "version": software_version(), "when": date_format(report.generated_at, "DATETIME_FORMAT")}),
                  styles["body"]),
    ]
    for head, body in (
        (_("Selection"), ", ".join(f"{k} = {v}" for k, v in sel.items()) or _("everything")),
        (_("Counts"), _("; ").join(f"{_(COUNT_NAMES[k]) if k in COUNT_NAMES else k}: {v}"
                                   for k, v in report.counts.items())),
        (_("Labels used"), report.labels_used),
    ):
        parts += [Paragraph(markup(head), styles["head"]), Paragraph(markup(body), styles["body"])]
    return parts


class _Picture(Flowable):
    """An image drawn at a given size (platypus' Image wants a file name or a file; this is decoded pixels)."""

    def __init__(self, image: ImageReader, width: float, height: float) -> None:
        super().__init__()
        self.image, self.width, self.height = image, width, height

    def wrap(self, available_width: float, available_height: float) -> tuple[float, float]:
        return self.width, self.height

    def draw(self) -> None:
        self.canv.drawImage(self.image, 0, 0, self.width, self.height)


def _figure(fig: PdfFigure, styles: dict[str, ParagraphStyle], width: float, height: float) -> Flowable:
    """The chart printed at the size it was drawn (smaller if the frame is smaller): 300 dpi or more."""
    # Opaque RGB: matplotlib's PNGs carry an alpha channel that would cost a soft mask per figure.
    reader = ImageReader(PILImage.open(io.BytesIO(fig.png)).convert("RGB"))
    pixels_w, pixels_h = reader.getSize()
    points_w, points_h = pixels_w / PNG_DPI * 72, pixels_h / PNG_DPI * 72
    scale = min(1.0, width / points_w, (height - 40) / points_h)
    image = _Picture(reader, points_w * scale, points_h * scale)
    caption = _("Figure %(number)s.") % {"number": fig.number} + " " + fig.title
    return KeepTogether([Paragraph(markup(caption), styles["caption"]), image])


def _tables(report: Report, styles: dict[str, ParagraphStyle], orientation: str) -> list[Flowable]:
    """Every table with its number, flowing; switches to landscape pages at the first table too wide."""
    parts: list[Flowable] = [Paragraph(markup(_("Tables")), styles["h1"])]
    for number, table in numbered(report.tables):
        heads, rows, _shown = compact(table.frame)
        if rows and orientation == PORTRAIT and needs_landscape(heads, rows, frame_width(PORTRAIT)):
            orientation = LANDSCAPE
            parts += [NextPageTemplate(LANDSCAPE), PageBreak()]
        parts.append(Paragraph(markup(_("Table %(number)s.") % {"number": number} + " " + table.title), styles["caption"]))
        if rows:
            parts.append(pdf_table(heads, rows, frame_width(orientation)))
        else:
            parts.append(Paragraph(markup(_("No rows for this selection.")), styles["note"]))
        if table.note:
            parts.append(Paragraph(markup(table.note), styles["note"]))
    return parts


def report_pdf(report: Report, figures: Iterable[PdfFigure] = (), *, title: str = "") -> bytes:
    """The report's cover, figures, tables and conventions as PDF bytes."""
    title = title or _("Agreement report")
    styles = _styles()
    buffer = io.BytesIO()
    doc = _Document(buffer, title)
    story: list[Flowable] = _cover(report, title, styles)
    figures = list(figures)
    if figures:
        story.append(Paragraph(markup(_("Figures")), styles["h1"]))
        story += [_figure(f, styles, frame_width(PORTRAIT), frame_height(PORTRAIT)) for f in figures]
    story.append(Spacer(1, 6))
    tables = _tables(report, styles, PORTRAIT)
    story += tables
    story.append(Paragraph(markup(_("Conventions")), styles["h1"]))
    for key, text in report.conventions.items():
        story += [Paragraph(markup(key.replace("_", " ")), styles["head"]), Paragraph(markup(_(text)), styles["body"])]
    doc.build(story)
    return buffer.getvalue()
