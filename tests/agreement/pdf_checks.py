"""Reading a PDF the way a reader's viewer draws it, with Debian's poppler-utils (`apt-get install
poppler-utils`; .ci/run installs it): word boxes from `pdftotext -bbox-layout`, pages rendered by
`pdftoppm`, embedded images' resolution from `pdfimages -list`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from html import unescape
from pathlib import Path

import pytest

TOOLS = ("pdftoppm", "pdftotext", "pdfimages")


def require_poppler() -> None:
    """Skip without poppler-utils on a developer's machine; CI (CI=true) must have it."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"poppler-utils missing in CI ({', '.join(missing)}); .ci/run installs it")
        pytest.skip(f"needs poppler-utils ({', '.join(missing)}): apt-get install poppler-utils")


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class Page:
    width: float
    height: float
    words: list[Word]

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


def _run(*args: str, data: bytes, stdout: bool = True) -> str:
    """A poppler tool's output on `data` (written to a file; `stdout`: pass "-" as the output file)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "report.pdf"
        path.write_bytes(data)
        command = [*args, str(path), *(["-"] if stdout else [])]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout


_PAGE = re.compile(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', re.S)
_WORD = re.compile(r'<word xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)">(.*?)</word>', re.S)


def pages(data: bytes) -> list[Page]:
    """Every page's size and word boxes (points, origin top left)."""
    html = _run("pdftotext", "-bbox-layout", data=data)
    out = []
    for width, height, body in _PAGE.findall(html):
        words = [Word(unescape(t), float(a), float(b), float(c), float(d)) for a, b, c, d, t in _WORD.findall(body)]
        out.append(Page(float(width), float(height), words))
    return out


def overprinted(page: Page, tolerance: float = 0.6) -> list[tuple[Word, Word]]:
    """Pairs of words whose boxes overlap by more than `tolerance` points each way (text on text)."""
    words = sorted(page.words, key=lambda w: w.y0)
    clashes = []
    for i, a in enumerate(words):
        for b in words[i + 1:]:
            if b.y0 >= a.y1 - tolerance:
                break
            if min(a.x1, b.x1) - max(a.x0, b.x0) > tolerance and min(a.y1, b.y1) - max(a.y0, b.y0) > tolerance:
                clashes.append((a, b))
    return clashes


def render_png_pages(data: bytes, folder: Path, *, dpi: int = 40) -> list[Path]:
    """The PDF's pages as PNG files (what a reader sees), `pdftoppm -r dpi`."""
    path = folder / "report.pdf"
    path.write_bytes(data)
    subprocess.run(["pdftoppm", "-r", str(dpi), "-png", str(path), str(folder / "page")], check=True)
    return sorted(folder.glob("page-*.png"))


def image_resolutions(data: bytes) -> list[tuple[float, float]]:
    """(x ppi, y ppi) of every embedded image, as printed (`pdfimages -list`)."""
    rows = _run("pdfimages", "-list", data=data, stdout=False).splitlines()[2:]
    return [(float(r.split()[12]), float(r.split()[13])) for r in rows if r.split()[2] == "image"]
