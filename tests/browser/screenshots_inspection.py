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

import subprocess
import sys
from pathlib import Path

from playwright.sync_api import Locator, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.screenshots import _sign_in, run  # noqa: E402

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


def _shoot(page: Page, path: Path, written: list[Path]) -> None:
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=path)
    written.append(path)


def _open_first(page: Page, links: Locator, path: Path, written: list[Path]) -> bool:
    """Open the first of `links` (an item in the queue) and shoot it around its focused field."""
    if not links.count():
        return False
    with page.expect_navigation():
        links.first.click()
    page.evaluate("document.querySelector('tr.focused').scrollIntoView({block: 'center'})")
    page.screenshot(path=path)
    written.append(path)
    return True


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
            if _open_first(page, page.locator(".triage-link"), out / f"inspection-screen-{language}.png", written):
                _summary(page, "Guideline 4.2: the history is complete." if language == "en" else "指南 4.2：病史完整。")
                _shoot(page, out / f"inspection-summary-{language}.png", written)
            page.goto(f"{base}/review/inspection/")
            liveclin = page.locator(".triage-row", has_text=LIVECLIN_STUDY).locator(".triage-link")
            _open_first(page, liveclin, out / f"inspection-liveclin-{language}.png", written)
            context.close()
        browser.close()
    return written


def _rate_one_set(env: dict[str, str]) -> None:
    subprocess.run([sys.executable, "manage.py", "shell", "-c", RATE_ONE_SET], cwd=ROOT, env=env, check=True)


def main() -> None:
    run(take, __doc__, prepare=_rate_one_set)


if __name__ == "__main__":
    main()
