"""Fonts for the PDF report: DejaVu Sans (shipped with matplotlib) for Latin, Greek and the symbols
the tables use (τ, κ, ρ, ≥, −), and a CJK font for Chinese names and strata.

reportlab's built-in Helvetica has none of τ, κ, ≥ or −, so the text font is DejaVu Sans, embedded
(subset). Chinese is drawn with reportlab's STSong-Light, one of the CID fonts every PDF reader
provides (the CJK fonts installed on servers are OpenType/CFF, which reportlab cannot embed).
"""

from __future__ import annotations

import functools
import os
import re
from xml.sax.saxutils import escape

import matplotlib
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont

SANS, SANS_BOLD, SANS_ITALIC = "DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique"
CJK = "STSong-Light"

# CJK ideographs and punctuation, full-width forms, kana and hangul: drawn with the CJK font.
_CJK = re.compile(r"[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]+")


@functools.cache
def register() -> None:
    """Register the fonts once per process."""
    folder = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    for name in (SANS, SANS_BOLD, SANS_ITALIC):
        pdfmetrics.registerFont(TTFont(name, os.path.join(folder, f"{name}.ttf")))
    pdfmetrics.registerFontFamily(SANS, normal=SANS, bold=SANS_BOLD, italic=SANS_ITALIC, boldItalic=SANS_BOLD)
    pdfmetrics.registerFont(UnicodeCIDFont(CJK))


def markup(text: object) -> str:
    """Text as reportlab paragraph markup: escaped, with runs of CJK characters in the CJK font."""
    register()
    return _CJK.sub(lambda m: f'<font name="{CJK}">{m.group(0)}</font>', escape(str(text)))


def width(text: str, font: str, size: float) -> float:
    """Width in points of `text` (CJK characters measured as one em, what the CJK font draws)."""
    plain = _CJK.sub("", text)
    wide = len(text) - len(plain)
    return pdfmetrics.stringWidth(plain, font, size) + wide * size
