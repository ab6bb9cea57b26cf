"""The report PDF a paper can use: every demo study's PDF rendered with poppler (what a reader's viewer
shows), with no table wider than its page and no text printed over text (from the PDF's word
positions), tables and figures numbered as on the report page, figures at 300 dpi, wide tables on
landscape pages with their header repeated when they run on.

MEDREVIEW_SCREENSHOTS=1 also writes docs/screenshots/agreement-report-pdf.png (a page of the demo
grader-reliability study's PDF, shown in docs/agreement.md).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
from html import unescape
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse

from agreement.exports import report_pdf
from agreement.pdf import MARGIN
from agreement.reports import Report, Table
from agreement.selectors import Selection
from annotation.models import Study
from demo.graders import DEMO_GRADERS, DEMO_KEY_ENV
from graders import services
from graders.models import GraderConfig, GraderKind
from tests.agreement.pdf_checks import (
    image_resolutions,
    overprinted,
    pages,
    render_png_pages,
    require_poppler,
)
from tests.conftest import login
from tests.graders.conftest import fake_server  # noqa: F401  (fixture)

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "agreement-report-pdf.png"
#: Which demo studies each demo grader grades (by what their tasks rate).
GRADED_TARGETS = {
    GraderKind.RUBRIC_GRADER: "response_criterion", GraderKind.LLM_JUDGE: "response_criterion",
    GraderKind.LIKERT_JUDGE: "response_axis", GraderKind.PAIRWISE_JUDGE: "pairwise",
}


@pytest.fixture
def graded_demo(db, fake_server, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    """The demo data set, with every demo grader run on the demo studies of its kind (fake endpoint)."""
    call_command("load_demo", stdout=StringIO())
    monkeypatch.setenv(DEMO_KEY_ENV, "demo")
    for name, kind in DEMO_GRADERS:
        config = GraderConfig.objects.get(name=name)
        config.base_url = fake_server.base_url
        config.save(update_fields=["base_url"])
        for study in Study.objects.filter(tasks__target=GRADED_TARGETS[kind]).distinct():
            with django_capture_on_commit_callbacks(execute=True):
                services.grading_job_create(config=config, selection={"study": study.pk}, created_by=None)
    return list(Study.objects.filter(name__startswith="Demo:").order_by("pk"))


def _numbered(html: str, kind: str) -> list[str]:
    """'Table 3. Title' / 'Figure 2. Title' as the report page prints them, in page order."""
    tag = "h2" if kind == "Table" else "figcaption"
    found = re.findall(rf"<{tag}[^>]*>(.*?)</{tag}>", html, re.S)
    return [" ".join(unescape(re.sub(r"<[^>]+>", " ", f)).split()) for f in found if f.strip().startswith("<span")]


def _check_layout(pdf: bytes, name: str) -> list:
    read = pages(pdf)
    assert read, name
    for number, page in enumerate(read, start=1):
        for word in page.words:
            # Inside the page and inside its right margin.
            assert word.x0 >= 0 and word.x1 <= page.width, (name, number, word)
            assert word.x1 <= page.width - MARGIN + 1, (name, number, word)
        assert not overprinted(page), (name, number, overprinted(page)[:3])
    return read


def test_every_demo_studys_pdf_fits_its_pages_and_numbers_like_the_page(client, researcher, graded_demo, tmp_path):
    require_poppler()
    login(client, researcher)
    checked_figures = 0
    for study in graded_demo:
        html = client.get(reverse("agreement:report", args=[study.pk])).content.decode()
        for url in re.findall(r'<img src="([^"]+)"', html):
            assert client.get(unescape(url)).status_code == 200, (study.name, url)
        response = client.get(reverse("agreement:study_pdf", args=[study.pk]))
        assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
        pdf = response.content
        read = _check_layout(pdf, study.name)
        text = " ".join(p.text for p in read)
        # The same numbers and titles, in the same order, as the page.
        for kind in ("Table", "Figure"):
            captions = _numbered(html, kind)
            assert [c.split(".")[0] for c in captions] == [f"{kind} {n}" for n in range(1, len(captions) + 1)]
            for caption in captions:
                assert caption in text, (study.name, caption)
            positions = [text.index(c) for c in captions]
            assert positions == sorted(positions), study.name
        figures = len(_numbered(html, "Figure"))
        assert len(image_resolutions(pdf)) == figures
        assert all(x >= 299 and y >= 299 for x, y in image_resolutions(pdf)), study.name
        checked_figures += figures
        folder = tmp_path / f"study{study.pk}"
        folder.mkdir()
        assert len(render_png_pages(pdf, folder)) == len(read)
        if os.environ.get("MEDREVIEW_SCREENSHOTS") == "1" and study.name == "Demo: grader reliability":
            _screenshot(pdf, read, folder / "shot")
    assert checked_figures >= 5  # forest, scatters, confusion matrices, coverage, ratings: drawn and printed


def _screenshot(pdf: bytes, read: list, folder: Path) -> None:
    """The page where the tables start, as docs/agreement.md shows it."""
    folder.mkdir()
    number = next(k for k, p in enumerate(read) if "Table 1." in p.text)
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(render_png_pages(pdf, folder, dpi=80)[number], SCREENSHOT)


def _report(frame: pd.DataFrame, note: str = "") -> Report:
    return Report(selection=Selection(study_id=1), tables=[Table("wide", "A wide table", frame, note)], counts={},
                  generated_at=dt.datetime.now(dt.UTC))


def test_a_wide_long_table_goes_landscape_wraps_and_repeats_its_header(db):
    require_poppler()
    columns = {f"measure_{k}_with_a_long_name": [f"value {r}.{k} with words that wrap" for r in range(90)]
               for k in range(14)}
    frame = pd.DataFrame({"grader": [f"grader 第{r}组 with a long name (#{r})" for r in range(90)], **columns})
    pdf = report_pdf(_report(frame, "A note under the table."), fingerprint="test")
    read = _check_layout(pdf, "wide")
    table_pages = [p for p in read if "Measure 0 with a long name" in p.text]
    assert len(table_pages) >= 2  # it ran on, and the header came with it
    assert all(p.width > p.height for p in table_pages)  # landscape
    body = " ".join(p.text for p in table_pages)
    for r in (0, 45, 89):
        assert f"value {r}.13 with words that wrap" in body  # the last column too: nothing cut off
    assert "第89组" in body
    assert "A note under the table." in body


def test_small_tables_share_a_page(db):
    require_poppler()
    tables = [Table(f"t{k}", f"Small table {k}", pd.DataFrame({"model": ["m1", "m2"], "score": [0.5, 0.25]}))
              for k in range(8)]
    report = Report(selection=Selection(study_id=1), tables=tables, counts={}, generated_at=dt.datetime.now(dt.UTC))
    read = pages(report_pdf(report, fingerprint="test"))
    with_tables = [p for p in read if "Small table" in p.text]
    assert len(with_tables) == 1
    assert all(f"Table {k + 1}. Small table {k}" in with_tables[0].text for k in range(8))
