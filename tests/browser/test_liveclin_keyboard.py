"""LiveClin in a real browser: phase 1 (auditor) then phase 2 (examinee) with the keyboard only.
`y` / `n` record the focused question's verdict and move on; a "no" opens its explanation box right
there and Enter / Esc return to the flow; no key changes a verdict the physician did not focus."""

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, Rating
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD
from tests.liveclin.builders import CAPTION_MARKER, REPORT_MARKER, import_liveclin, liveclin_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def shot(page, name: str) -> None:
    """docs/screenshots/<name>.png when MEDREVIEW_SCREENSHOTS=1 (how the LiveClin screenshots were made)."""
    if os.environ.get("MEDREVIEW_SCREENSHOTS") == "1":
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=False)


def draft_labels(assignment: Assignment, slug: str) -> list[tuple[str, str]]:
    assignment.refresh_from_db()
    by_order = {}
    for field_id, entry in (assignment.draft or {}).items():
        if field_id.startswith(slug + "|"):
            by_order[field_id] = (entry.get("label", ""), entry.get("comment", ""))
    return [by_order[k] for k in sorted(by_order, key=lambda k: int(k.rsplit(":", 1)[1]))]


def test_both_phases_with_the_keyboard_and_n_then_y_presses(live_server, new_page, admin, physician_a, physician_b):
    import_liveclin(1, mcqs=4)
    liveclin_study(admin, [physician_a, physician_b])
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    assignment = Assignment.objects.get(rater=physician_a)
    expect(page.locator("#liveclin-phase")).to_have_attribute("data-phase", "auditor")
    expect(page.locator("#case-report")).to_contain_text(f"{REPORT_MARKER}-1")

    # Phase 1: n (Q1, explanation box opens), text, Enter (back to the flow: Q2), y (Q2, on to Q3),
    # n (Q3, box opens), Esc (Q4), y (Q4), y again (Q4 is still the focused one).
    expect(page.locator("#field-0")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("n")
    expect(page.locator("#comment-0")).to_be_focused()
    page.keyboard.type("Dose differs from the report")
    page.keyboard.press("Enter")
    expect(page.locator("#field-1")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("y")
    expect(page.locator("#field-2")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("n")
    expect(page.locator("#comment-2")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#field-3")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("y")
    page.keyboard.press("y")
    shot(page, "liveclin-auditor")
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at"))
    page.wait_for_timeout(900)
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at"))
    assert draft_labels(assignment, "mcq-factual") == [
        ("no", "Dose differs from the report"), ("yes", ""), ("no", ""), ("yes", ""),
    ]

    # Enter with Q3's explanation missing: phase 2 does not open; the field is marked. (Waits on the
    # page itself: the site's Content-Security-Policy forbids the eval behind wait_for_function.)
    page.keyboard.press("Enter")
    expect(page.locator("#field-2")).to_have_class(re.compile(r"\bhas-error\b"))
    expect(page.locator("#liveclin-phase")).to_have_attribute("data-phase", "auditor")
    page.click("#comment-2")
    page.keyboard.type("Stage label is wrong")
    page.keyboard.press("Enter")  # back to the flow
    page.keyboard.press("Enter")  # continue to phase 2

    # Phase 2, its own screen: no report, no caption.
    expect(page.locator("#liveclin-phase")).to_have_attribute("data-phase", "examinee")
    html = page.content()
    assert REPORT_MARKER not in html and CAPTION_MARKER not in html
    expect(page.locator("#field-0")).to_have_class(re.compile(r"\bfocused\b"))
    # Judging question 1: later questions' answers are not shown yet.
    expect(page.locator("#field-1")).to_have_class(re.compile(r"\banswer-later\b"))
    expect(page.locator("#field-1 .option.correct .badge")).to_be_hidden()
    expect(page.locator("#field-0 .option.correct .badge")).to_be_visible()
    page.keyboard.press("y")
    expect(page.locator("#field-1")).not_to_have_class(re.compile(r"\banswer-later\b"))
    page.keyboard.press("n")
    expect(page.locator("#comment-1")).to_be_focused()
    page.keyboard.type("Needs the caption")
    page.keyboard.press("Escape")
    page.keyboard.press("y")
    shot(page, "liveclin-examinee")
    page.keyboard.press("n")
    page.keyboard.type("y")  # typed into Q4's explanation, never a verdict
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")  # submit
    expect(page.locator("#liveclin-phase")).to_have_count(0)  # the next page: nothing left to rate

    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SUBMITTED
    stored = {(r.task.slug, r.mcq.order): (r.label, r.comment) for r in Rating.objects.filter(assignment=assignment)}
    assert stored == {
        ("mcq-factual", 1): ("no", "Dose differs from the report"),
        ("mcq-factual", 2): ("yes", ""),
        ("mcq-factual", 3): ("no", "Stage label is wrong"),
        ("mcq-factual", 4): ("yes", ""),
        ("mcq-solvability", 1): ("yes", ""),
        ("mcq-solvability", 2): ("no", "Needs the caption"),
        ("mcq-solvability", 3): ("yes", ""),
        ("mcq-solvability", 4): ("no", "y"),
    }
