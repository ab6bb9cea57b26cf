"""Phone (390x844) and desktop (1440x900) screenshots of the physicians' and inspectors' pages
(issue 11) for docs/screenshots/review-<page>-<phone|desktop>.png, from the demo data.

    .venv/bin/python tests/browser/screenshots_review.py                 # throwaway SQLite + demo data
    .venv/bin/python tests/browser/screenshots_review.py --base-url http://127.0.0.1:8000

Uses Debian's Chromium (/usr/bin/chromium) and the demo server of `screenshots.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests.browser.screenshots import RATING_STUDY, _sign_in, run  # noqa: E402

DEVICES = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone": {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
              "has_touch": True},
}


def _shoot(page: Page, out: Path, name: str, device: str, written: list[Path]) -> None:
    path = out / f"review-{name}-{device}.png"
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=path)
    written.append(path)


def take(base: str, out: Path, password: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        for device, options in DEVICES.items():
            context = browser.new_context(locale="en-US", timezone_id="UTC", **options)
            page = context.new_page()
            _sign_in(page, base, "physician1", password)
            page.goto(f"{base}/review/")
            _shoot(page, out, "my-queue", device, written)
            card = page.locator("article.study-card", has_text=RATING_STUDY)
            with page.expect_navigation():
                card.locator("button.next-item").click()
            if page.locator("#rating-form").count():
                page.locator("#submit-rating").click()  # nothing picked: the errors, in the rater's words
                page.wait_for_selector(".field.has-error")
                _shoot(page, out, "rating-errors", device, written)
            _sign_in(page, base, "inspector1", password)
            page.goto(f"{base}/review/inspection/")
            _shoot(page, out, "inspection-queue", device, written)
            page.goto(f"{base}/review/inspection/?reason=disagreement")  # what the screen is for
            link = page.locator(".triage-link").first
            if link.count():
                with page.expect_navigation():
                    link.click()
                _shoot(page, out, "inspection", device, written)
                page.locator(".inspect-table").scroll_into_view_if_needed()
                path = out / f"review-inspection-table-{device}.png"
                page.screenshot(path=path)
                written.append(path)
            context.close()
        browser.close()
    return written


def main() -> None:
    run(take, __doc__)


if __name__ == "__main__":
    main()
