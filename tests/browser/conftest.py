"""Headless Chromium (Debian's package) driven by Playwright's sync API against pytest-django's live server.

Never `playwright install`: it downloads a browser and fails offline. Tests skip, with the reason,
when /usr/bin/chromium is missing.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Playwright's sync API runs an event loop in this thread; Django's ORM refuses to run inside one
# unless told that the caller knows what it is doing (the test thread only sets data up).
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 900}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(autouse=True)
def shipped_review_data(transactional_db) -> None:
    """Re-create annotation's shipped scales and task types if a transactional flush removed them.

    Live-server tests need a transactional database, and its flush after each test also empties
    tables filled by data migrations; the shipped data is idempotent (update_or_create), so its
    RunPython steps are simply run again on an empty table.
    """
    from tests.annotation.builders import restore_shipped_review_data

    restore_shipped_review_data()


@pytest.fixture(scope="session")
def chromium() -> Iterator:
    if not CHROMIUM.exists():
        pytest.skip("needs Debian's Chromium at /usr/bin/chromium (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover - playwright is a test dependency
        pytest.skip("needs the playwright Python package")
    from playwright.sync_api import expect

    # The machine is shared with load benchmarks: wait generously rather than flake.
    expect.set_options(timeout=20_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield _TestBrowser(browser)
        browser.close()


class _TestBrowser:
    """The browser, with contexts that let Playwright's own string predicates run: `wait_for_function`
    evaluates them with eval, which the app's Content-Security-Policy forbids. The app's scripts are
    checked under the real policy by tests/browser/test_content_security_policy.py (bypass_csp=False)."""

    def __init__(self, browser: object) -> None:
        self._browser = browser

    def new_context(self, **options: object) -> object:
        options.setdefault("bypass_csp", True)
        return self._browser.new_context(**options)

    def __getattr__(self, name: str) -> object:
        return getattr(self._browser, name)


@pytest.fixture
def page_in_context(chromium) -> Iterator:
    """A factory of pages, each in a browser context of its own (its own cookies and localStorage):
    `page_in_context(viewport=..., **context_options)`, English, UTC, 20 s timeouts; every context is
    closed after the test."""
    contexts = []

    def make(**options: object):
        context = chromium.new_context(**{"locale": "en-US", "timezone_id": "UTC", **options})
        context.set_default_timeout(20_000)
        contexts.append(context)
        return context.new_page()

    yield make
    for context in contexts:
        context.close()


@pytest.fixture
def new_page(page_in_context):
    """Pages at the desktop viewport, each in its own browser context."""
    return lambda: page_in_context(viewport=VIEWPORT)


def sign_in(page, live_server, username: str, password: str) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.press("#id_password", "Enter")
    page.wait_for_load_state("domcontentloaded")


def submit_and_wait(page, action) -> None:
    """Submit (by `action`) and wait until the page the server answered with has been swapped in.

    Submitting no longer loads a page: static/js/rating.js posts the form and swaps in the answer
    (the next item, this item with its errors, or "nothing left"), then logs it in medreviewTiming.
    """
    before = page.evaluate("window.medreviewTiming ? window.medreviewTiming.items.length : 0")
    action()
    page.wait_for_function(f"window.medreviewTiming && window.medreviewTiming.items.length > {before}")
