"""Screenshots of the inspection screen and of the summary an inspector confirms (issue 20), in
English and Chinese, for docs/review.md: docs/screenshots/inspection-<screen>-<en|zh>.png.

    .venv/bin/python tests/browser/screenshots_inspection.py        # throwaway SQLite + demo data
    .venv/bin/python tests/browser/screenshots_inspection.py --base-url http://127.0.0.1:8000

Without --base-url it serves the demo data like `screenshots.py` and, in that throwaway database,
has the two demo physicians rate one LiveClin question set (disagreeing on question 1's facts) so
the LiveClin inspection can be shown too. The summary is shot, never confirmed: nothing is stored.
Uses Debian's Chromium (/usr/bin/chromium).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.screenshots import DEMO_PASSWORD, _serve_demo, _sign_in  # noqa: E402

LANGUAGES = {"en": "en-US", "zh": "zh-CN"}
VIEWPORT = {"width": 1440, "height": 900}
LIVECLIN_STUDY = "Demo: LiveClin question sets"

# Run in the throwaway demo database only: two physicians rate one LiveClin set, disagreeing on Q1.
RATE_ONE_SET = f"""
from annotation.fields import item_fields
from annotation.models import Study
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from django.contrib.auth import get_user_model
users = {{u.username: u for u in get_user_model().objects.filter(username__in=["physician1", "physician2"])}}
study = Study.objects.get(name={LIVECLIN_STUDY!r})
for name in ("physician1", "physician2"):
    a = assignment_claim_next(study=study, rater=users[name])
    labels = {{}}
    for f in item_fields(a.item):
        no = name == "physician2" and f.mcq.order == 1 and f.task.slug == "mcq-factual"
        labels[f.id] = {{"label": "no" if no else "yes",
                         "comment": "The dose in the stem is not the one in the report." if no else ""}}
    rating_submit(assignment=a, rater=users[name], labels=labels, seconds_spent=120)
"""


def _shoot(page: Page, path: Path, written: list[Path], *, full: bool = False) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=path, full_page=full)
    written.append(path)


def _summary(page: Page, reason: str) -> None:
    """Take rater 2's label on every field that differs (the page opens on the first; n goes to the
    next), type a reason and ask for the summary."""
    for _ in range(page.locator("tr[data-differs]").count()):
        page.keyboard.press("2")
        page.keyboard.press("n")
    page.keyboard.press("e")
    page.keyboard.type(reason)
    with page.expect_navigation():
        page.keyboard.press("Enter")


def take(base: str, out: Path, password: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        for language, locale in LANGUAGES.items():
            context = browser.new_context(viewport=VIEWPORT, locale=locale, timezone_id="UTC")
            page = context.new_page()
            _sign_in(page, base, "inspector1", password)
            page.goto(f"{base}/review/inspection/?reason=disagreement")
            link = page.locator(".triage-link").first
            if link.count():
                with page.expect_navigation():
                    link.click()
                page.evaluate("document.querySelector('tr.focused').scrollIntoView({block: 'center'})")
                page.screenshot(path=out / f"inspection-screen-{language}.png")
                written.append(out / f"inspection-screen-{language}.png")
                _summary(page, "Guideline 4.2: the history is complete." if language == "en" else "指南 4.2：病史完整。")
                _shoot(page, out / f"inspection-summary-{language}.png", written)
            page.goto(f"{base}/review/inspection/")
            liveclin = page.locator(".triage-row", has_text=LIVECLIN_STUDY).locator(".triage-link").first
            if liveclin.count():
                with page.expect_navigation():
                    liveclin.click()
                page.evaluate("document.querySelector('tr.focused').scrollIntoView({block: 'center'})")
                page.screenshot(path=out / f"inspection-liveclin-{language}.png")
                written.append(out / f"inspection-liveclin-{language}.png")
            context.close()
        browser.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="a running medreview with the demo data (default: start one)")
    parser.add_argument("--password", default=DEMO_PASSWORD)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit(f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium)")
    server = tmp = None
    base = args.base_url
    if base is None:
        server, base, tmp = _serve_demo()
        env = {**os.environ, "DEBUG": "1", "DATABASE_URL": f"sqlite:///{tmp.name}/demo.sqlite3",
               "TASKS_BACKEND": "immediate", "MEDIA_ROOT": f"{tmp.name}/media"}
        subprocess.run([sys.executable, "manage.py", "shell", "-c", RATE_ONE_SET], cwd=ROOT, env=env, check=True)
    try:
        for path in take(base.rstrip("/"), args.out, args.password):
            print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if tmp is not None:
            tmp.cleanup()


if __name__ == "__main__":
    main()
