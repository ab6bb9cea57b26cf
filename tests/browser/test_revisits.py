"""Issue 21 in Chromium: a submitted item opens read-only until Edit (`e`), keys do nothing before,
the page never says "Saved" for labels the server does not hold, and once the item has left "open"
the page is read-only with the reason."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.models import Rating
from tests.annotation.builders import claim_and_submit, disagree, make_running_study
from tests.browser.conftest import sign_in, submit_and_wait
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GOOD = {"narrative-quality": "2", "criterion-validity": "agree"}


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=2)


def _checked(page, index: int) -> str | None:
    radio = page.locator(f"#field-{index} input[type=radio]:checked")
    return radio.get_attribute("value") if radio.count() else None


def test_it_opens_submitted_work_read_only_until_edit(live_server, new_page, study, physician_a):
    done = claim_and_submit(study, physician_a, GOOD)
    page = new_page()
    drafts: list[str] = []
    page.on("request", lambda r: drafts.append(r.url) if r.method == "POST" and "/draft/" in r.url else None)
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.goto(f"{live_server.url}/review/assignments/{done.pk}/")
    expect(page.locator("#edit-button")).to_be_visible()
    # The revisit: `0` with field 1 highlighted changed the choice on screen. Now nothing moves.
    for key in ("0", "1", "n", "c", "Enter"):
        page.keyboard.press(key)
    page.wait_for_timeout(1200)  # past the autosave delay
    assert _checked(page, 0) == "2" and drafts == []
    expect(page.locator("#save-status")).not_to_contain_text("Saved")
    expect(page.locator("#save-status")).to_contain_text("Submitted at")
    # `e` is Edit: now the keys change labels, autosave keeps the change but does not apply it.
    page.keyboard.press("e")
    page.wait_for_url(re.compile(rf"/review/assignments/{done.pk}/\?edit=1$"))
    expect(page.locator("#submit-rating")).to_contain_text("Save changes")
    page.locator("#field-0").focus()
    page.keyboard.press("0")
    assert _checked(page, 0) == "0"
    expect(page.locator("#save-status")).to_contain_text("not applied")
    expect(page.locator("#save-status")).not_to_contain_text("Saved")
    # Leave and come back: the stored labels, read-only, and the page says a change is pending.
    page.goto(f"{live_server.url}/review/")
    page.goto(f"{live_server.url}/review/assignments/{done.pk}/")
    assert _checked(page, 0) == "2"
    assert Rating.objects.get(assignment=done, field_key="").label == "2"
    expect(page.locator("#save-status")).not_to_contain_text("Saved")
    expect(page.locator("#read-only-notice")).to_contain_text("did not save the changes")


def test_it_shows_why_an_item_in_inspection_is_read_only(live_server, new_page, study, physician_a, physician_b):
    _item, mine, _theirs = disagree(study, physician_a, physician_b)
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.goto(f"{live_server.url}/review/assignments/{mine.pk}/?edit=1")
    expect(page.locator("#read-only-reason")).to_contain_text("inspector's queue")
    expect(page.locator("#edit-button")).to_have_count(0)
    expect(page.locator("#submit-rating")).to_have_count(0)
    page.keyboard.press("e")
    page.keyboard.press("0")
    page.wait_for_timeout(300)
    assert _checked(page, 0) == "2"
    assert page.url.endswith("?edit=1")


# --- a submit during an autosave, a busy database (issue 21) -----------------------------------------


def _claim(page, live_server) -> None:
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))


def test_it_finishes_the_autosave_on_the_wire_before_submitting(live_server, new_page, study, physician_a):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    _claim(page, live_server)
    log: list[str] = []
    page.on("request", lambda r: log.append("draft-sent" if "/draft/" in r.url else "submit-sent")
            if r.method == "POST" else None)
    page.on("requestfinished", lambda r: log.append("draft-done") if r.method == "POST" and "/draft/" in r.url
            else None)
    for key in "2yy":
        page.keyboard.press(key)
    with page.expect_request(lambda r: r.method == "POST" and "/draft/" in r.url):
        page.keyboard.press("y")  # the last label; its autosave goes out after 0.8 s
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))
    assert "submit-sent" in log
    assert log.index("draft-done") < log.index("submit-sent"), log
    assert Rating.objects.filter(assignment__rater=physician_a).count() == 4


def test_it_retries_a_submit_the_busy_database_refused(live_server, new_page, study, physician_a):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    _claim(page, live_server)
    answered = {"busy": 0}

    def busy_once(route):
        if answered["busy"] == 0:
            answered["busy"] += 1
            route.fulfill(status=503, headers={"Retry-After": "1", "Content-Type": "text/html"},
                          body="<html><body><main><p>busy</p></main></body></html>")
        else:
            route.continue_()

    page.route(re.compile(r"/submit-next/$"), busy_once)
    for key in "2yyy":
        page.keyboard.press(key)
    page.keyboard.press("Enter")
    expect(page.locator("#save-status")).to_contain_text("Not submitted")
    expect(page.locator("#save-status")).to_contain_text("labels are kept")
    assert page.locator("#rating-form").count() == 1 and _checked(page, 0) == "2"
    page.wait_for_function("window.medreviewTiming && window.medreviewTiming.items.length > 0")
    assert answered["busy"] == 1
    assert Rating.objects.filter(assignment__rater=physician_a).count() == 4
