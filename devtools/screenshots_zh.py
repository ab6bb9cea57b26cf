"""Screenshots of the report, inspection queue, inspection and history pages in Chinese, for
docs/i18n.md (issue 23), from the demo data, in a browser that asks for Chinese (zh-CN, Asia/Shanghai):

    .venv/bin/python devtools/screenshots_zh.py                                  # throwaway demo
    .venv/bin/python devtools/screenshots_zh.py --base-url http://127.0.0.1:8000  # a running demo

Writes docs/screenshots/report-zh.png, report-zh-table.png, inspection-queue-zh.png,
inspection-item-zh.png and item-history-zh.png. Without --base-url it serves a temporary SQLite
demo (`load_demo`) with runserver and stops it afterwards (tests/browser/screenshots.py's `run`).
Uses Debian's Chromium (/usr/bin/chromium); never `playwright install`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT  # noqa: E402
from tests.browser.screenshots import _chinese_report, _sign_in, run  # noqa: E402


def take(base: str, out: Path, password: str, **_options: object) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        written = _chinese_report(browser, base, out, password)
        context = browser.new_context(viewport=VIEWPORT, locale="zh-CN", timezone_id="Asia/Shanghai")
        page = context.new_page()
        _sign_in(page, base, "inspector1", password)
        page.goto(f"{base}/review/inspection/")
        page.screenshot(path=out / "inspection-queue-zh.png")
        written.append(out / "inspection-queue-zh.png")
        # The first item whose raters disagree: the badges, the differing fields and the chips show.
        rows = page.locator("#triage-pending a.triage-link")
        hrefs = [rows.nth(i).get_attribute("href") for i in range(rows.count())]
        for href in hrefs[:10]:
            page.goto(f"{base}{href}")
            if page.locator("tr.diff").count():
                break
        if hrefs:
            page.locator("table.inspect-table").scroll_into_view_if_needed()
            page.evaluate("window.scrollBy(0, -120)")
            page.screenshot(path=out / "inspection-item-zh.png")
            written.append(out / "inspection-item-zh.png")
            item = page.url.rstrip("/").split("/")[-1]
            _sign_in(page, base, "admin1", password)
            page.goto(f"{base}/review/items/{item}/history/")
            page.screenshot(path=out / "item-history-zh.png", full_page=True)
            written.append(out / "item-history-zh.png")
        context.close()
        browser.close()
    return written


if __name__ == "__main__":
    run(take, __doc__)
