"""The Content-Security-Policy does not break the app (issue 9, finding 10): every review page,
with htmx and the rating script, works under the real policy with no violation reported."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment
from tests.annotation.builders import make_running_study
from tests.browser.conftest import VIEWPORT, sign_in
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1)


def test_rating_works_under_the_policy_without_a_violation(live_server, chromium, study, physician_a):
    context = chromium.new_context(viewport=VIEWPORT, locale="en-US", timezone_id="UTC", bypass_csp=False)
    context.set_default_timeout(20_000)
    page = context.new_page()
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text else None)
    page.on("pageerror", lambda error: violations.append(str(error)))
    try:
        sign_in(page, live_server, "physician_a", PASSWORD)
        page.focus("button.next-item")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
        page.keyboard.press("2")  # the rating script: a shortcut picks a label and saves a draft (htmx/fetch)
        expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at \d\d:\d\d:\d\d"))
        assert Assignment.objects.get(rater=physician_a).state == Assignment.State.DRAFT
        page.goto(f"{live_server.url}/api/docs/")
        expect(page.locator(".swagger-ui")).to_be_visible()  # Swagger UI's script is a file, not inline
        assert violations == []
    finally:
        context.close()
