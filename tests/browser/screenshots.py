"""Screenshots of the review screens (1280x900) for docs/screenshots/, taken from the demo data.

    .venv/bin/python tests/browser/screenshots.py                      # throwaway SQLite + demo data
    .venv/bin/python tests/browser/screenshots.py --base-url http://127.0.0.1:8000   # a running demo
    .venv/bin/python tests/browser/screenshots.py --only-chinese-report          # docs/i18n.md's two

Without --base-url it migrates a temporary SQLite database, runs `load_demo`, serves it with
runserver on a free port, takes the screenshots and stops the server it started.
Uses Debian's Chromium (/usr/bin/chromium); never `playwright install`.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT  # noqa: E402

DEMO_PASSWORD = "demo-pass-2026"  # the demo logins printed by `manage.py load_demo`
RATING_STUDY = "Demo: LiveMedBench human validation"
RELIABILITY_STUDY = "Demo: grader reliability"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def demo_env(tmp: tempfile.TemporaryDirectory) -> dict[str, str]:
    """The environment of the throwaway demo: its SQLite file and media in `tmp`."""
    return {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp.name}/demo.sqlite3",
        "TASKS_BACKEND": "immediate",
        "MEDIA_ROOT": f"{tmp.name}/media",
    }


def _serve_demo() -> tuple[subprocess.Popen, str, tempfile.TemporaryDirectory]:
    tmp = tempfile.TemporaryDirectory(prefix="medreview-shots-")
    env = demo_env(tmp)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    subprocess.run([python, "manage.py", "load_demo"], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    port = _free_port()
    server = subprocess.Popen(
        [python, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload", "--skip-checks"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1):  # noqa: S310 - local server
                break
        except OSError:
            time.sleep(0.3)
    else:
        server.terminate()
        raise SystemExit("the demo server did not start")
    return server, base, tmp


def _sign_in(page: Page, base: str, username: str, password: str) -> None:
    page.context.clear_cookies()
    page.goto(f"{base}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.press("#id_password", "Enter")


def take(base: str, out: Path, password: str, *, only_chinese_report: bool = False) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        if only_chinese_report:
            written = _chinese_report(browser, base, out, password)
            browser.close()
            return written
        context = browser.new_context(viewport=VIEWPORT, locale="en-US", timezone_id="UTC")
        page = context.new_page()

        _sign_in(page, base, "physician1", password)
        page.goto(f"{base}/review/")
        page.screenshot(path=out / "physician-dashboard.png")
        written.append(out / "physician-dashboard.png")

        card = page.locator("article.study-card", has_text=RATING_STUDY)
        with page.expect_navigation():
            card.locator("button.next-item").click()
        if page.locator("#rating-form").count():
            # Two labels picked with the keyboard: the saved draft and the focus ring show.
            page.keyboard.press("2")
            page.keyboard.press("1")
            page.wait_for_selector("#save-status.saved", timeout=5000)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=out / "rating.png")
            written.append(out / "rating.png")

        _sign_in(page, base, "inspector1", password)
        page.goto(f"{base}/review/inspection/")
        links = page.locator("a.button.primary[href*='/review/inspection/items/']")
        hrefs = [links.nth(i).get_attribute("href") for i in range(links.count())]
        # Prefer an item the raters disagree on: that is what the screen is for.
        for href in hrefs[:10]:
            page.goto(f"{base}{href}")
            if page.locator("tr.diff").count():
                break
        if hrefs:
            page.screenshot(path=out / "inspection.png")
            written.append(out / "inspection.png")

        _sign_in(page, base, "admin1", password)
        page.goto(f"{base}/review/studies/")
        page.screenshot(path=out / "admin-dashboard.png")
        written.append(out / "admin-dashboard.png")
        written.extend(_chinese_report(browser, base, out, password))
        browser.close()
    return written


def _chinese_report(browser: object, base: str, out: Path, password: str) -> list[Path]:
    """The agreement report as a researcher whose browser asks for Chinese (docs/i18n.md)."""
    context = browser.new_context(viewport=VIEWPORT, locale="zh-CN", timezone_id="Asia/Shanghai")
    page = context.new_page()
    _sign_in(page, base, "researcher1", password)
    page.goto(f"{base}/reports/")
    study = page.locator("a", has_text=RELIABILITY_STUDY).get_attribute("href")
    page.goto(f"{base}{study}")
    page.wait_for_load_state("networkidle")  # the charts are images loaded after the page
    # The labels used, the counts, the exports and the first charts, under the top bar.
    page.locator("section.agreement-about").evaluate(
        "e => window.scrollTo(0, e.getBoundingClientRect().top + window.scrollY - 80)")
    page.screenshot(path=out / "report-zh.png")
    page.locator("#table-grader_reliability").scroll_into_view_if_needed()
    page.locator("#table-grader_reliability").screenshot(path=out / "report-zh-table.png")
    context.close()
    return [out / "report-zh.png", out / "report-zh-table.png"]


def run(take: Callable[[str, Path, str], list[Path]], doc: str,
        prepare: Callable[[dict[str, str]], None] | None = None) -> None:
    """The screenshot scripts' command line: serve the demo (or use --base-url), take, print the files.
    `prepare(env)` runs against the throwaway demo database before the screenshots."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--base-url", help="a running medreview with the demo data (default: start one)")
    parser.add_argument("--password", default=DEMO_PASSWORD)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only-chinese-report", action="store_true",
                        help="only report-zh.png and report-zh-table.png (docs/i18n.md)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)")
    server = tmp = None
    base = args.base_url
    if base is None:
        server, base, tmp = _serve_demo()
        if prepare is not None:
            prepare(demo_env(tmp))
    try:
        # --only-chinese-report is this module's own `take`'s (docs/i18n.md); other scripts never get it.
        extra = {"only_chinese_report": True} if args.only_chinese_report else {}
        for path in take(base.rstrip("/"), args.out, args.password, **extra):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if tmp is not None:
            tmp.cleanup()


def main() -> None:
    run(take, __doc__)


if __name__ == "__main__":
    main()
