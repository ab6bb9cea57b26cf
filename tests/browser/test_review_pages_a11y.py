"""Every page of docs/review-pages.md in Chromium (issue 11): zero critical and zero serious axe-core
violations at 1440x900 and 390x844, a `lang` on the document, and at phone width no sideways
scrolling on the physicians' and inspectors' pages. The page list is read from the doc, so a page added there is checked here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from annotation.fields import item_fields
from annotation.models import Item
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.calibration.services import calibration_mark, rater_admit
from tests.annotation.builders import claim_and_submit, disagree, make_running_study
from tests.browser.axe import blocking_violations
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DOC = Path(__file__).resolve().parents[2] / "docs" / "review-pages.md"
# Issue 11 asks phone layouts of the physicians' and inspectors' pages (admins manage studies on a desk).
PHONE_USERS = {"physician_a", "inspector"}
VIEWPORTS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}


# Buttons, selects, choices and labelled radios/checkboxes a finger must hit (links in running text
# are exempt, as in WCAG 2.5.8); hidden ones do not count.
SMALL_TARGETS = """() => [...document.querySelectorAll(
    'main button, main .button, main select, main .choice, main label.touch, .topbar button')]
  .filter(el => el.offsetParent !== null)
  .map(el => [el, el.getBoundingClientRect()])
  .filter(([el, r]) => r.width > 0 && (r.width < 43.5 || r.height < 43.5))
  .map(([el, r]) => `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}.${[...el.classList].join('.')}`
       + ` "${el.textContent.trim().slice(0, 30)}" ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def documented_get_pages() -> list[str]:
    """URL names of the pages (not POST endpoints) in the doc's table."""
    names = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| `annotation:([a-z_]+)` \| `(POST )?", line)
        if match and not match.group(2):
            names.append(match.group(1))
    return names


@pytest.fixture
def pages(admin, physician_a, physician_b, inspector) -> dict[str, tuple[str, str]]:
    """URL name -> (username, path) with data behind every page."""
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=4,
                               guidelines="Rate the **case**, not the patient.", name="Accessibility study")
    item, a, _b = disagree(study, physician_a, physician_b)
    calibration = study.items.filter(status=Item.Status.OPEN).exclude(pk=item.pk).order_by("pk").last()
    expected = {"narrative-quality|": {"label": "2", "explanation": "Complete history."}}
    for field in item_fields(calibration):
        expected.setdefault(field.id, {"label": field.categories[0].value, "explanation": "As written."})
    calibration_mark(item=calibration, actor=admin, expected=expected)
    newcomer = make_running_study(admin, [physician_a], cases=1, name="Calibration study",
                                  tasks=("narrative-quality",))
    calibration_mark(item=newcomer.items.get(), actor=admin,
                     expected={"narrative-quality|": {"label": "2", "explanation": "Complete history."}})
    done_calibration = claim_and_submit(newcomer, physician_a, "1")
    rater_admit(study=study, rater=physician_a, actor=admin)
    rater_admit(study=study, rater=physician_b, actor=admin)
    claim = assignment_claim_next(study=study, rater=physician_a)
    assert claim is not None and claim.item.status == Item.Status.OPEN
    return {
        "physician_dashboard": ("physician_a", "/review/"),
        "rate": ("physician_a", f"/review/assignments/{claim.pk}/"),
        "inspector_dashboard": ("inspector", "/review/inspection/"),
        "inspect": ("inspector", f"/review/inspection/items/{item.pk}/"),
        "admin_dashboard": ("admin", "/review/studies/"),
        "study_detail": ("admin", f"/review/studies/{study.pk}/"),
        "study_calibration": ("admin", f"/review/studies/{study.pk}/calibration/"),
        "calibration_feedback": ("physician_a", f"/review/assignments/{done_calibration.pk}/calibration/"),
        "rate (submitted, editable)": ("physician_a", f"/review/assignments/{a.pk}/"),
    }


def test_every_documented_page_is_checked(pages):
    assert set(documented_get_pages()) <= set(pages)


@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_no_critical_or_serious_axe_violation_on_any_review_page(live_server, chromium, pages, viewport):
    problems: dict[str, list[str]] = {}
    contexts = {}
    try:
        for name, (username, path) in pages.items():
            if username not in contexts:
                context = chromium.new_context(viewport=VIEWPORTS[viewport], locale="en-US", timezone_id="UTC",
                                               has_touch=viewport == "phone", is_mobile=viewport == "phone",
                                               bypass_csp=True)
                contexts[username] = context.new_page()
                sign_in(contexts[username], live_server, username, PASSWORD)
            page = contexts[username]
            response = page.goto(f"{live_server.url}{path}")
            assert response.status == 200, (name, response.status)
            found = blocking_violations(page)
            if not page.evaluate("document.documentElement.lang"):
                found.append("the document has no lang")
            if viewport == "phone" and username in PHONE_USERS:
                overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
                if overflow > 0:
                    found.append(f"sideways scrolling: {overflow}px wider than the screen")
                found.extend(f"touch target under 44x44 px: {small}" for small in page.evaluate(SMALL_TARGETS))
            if found:
                problems[name] = found
    finally:
        for page in contexts.values():
            page.context.close()
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in problems.items())
