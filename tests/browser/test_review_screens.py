"""Issue 11 in Chromium: no label is lost, a submitted item can be corrected, an inspector clears
disagreements by keyboard alone, the inspection works by taps on a phone, and a calibration round
gates a new rater."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.fields import item_fields
from annotation.models import Assignment, Item, Rating
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.calibration.services import calibration_mark, rater_admit
from tests.annotation.builders import disagree, make_running_study
from tests.browser.conftest import sign_in, submit_and_wait
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True}


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    # narrative-quality (one 0-2 field) + criterion-validity (three agree/disagree criteria)
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3)


@pytest.fixture
def new_page(page_in_context):
    """Pages in their own contexts; `bypass_csp` lets Playwright's wait_for_function evaluate its
    predicate under the app's Content Security Policy (the app's own scripts are unaffected)."""
    return lambda: page_in_context(viewport={"width": 1280, "height": 900}, bypass_csp=True)


def _checked(page, index: int) -> str | None:
    radio = page.locator(f"#field-{index} input[type=radio]:checked")
    return radio.get_attribute("value") if radio.count() else None


def test_enter_during_the_autosave_delay_with_a_missing_label_loses_nothing(live_server, new_page, study,
                                                                           physician_a):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    expect(page.locator("#field-0")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("2")
    page.keyboard.press("y")
    # Enter at once, well inside the 0.8 s autosave delay; two criteria are still unanswered.
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))
    expect(page.locator(".field.has-error").first).to_be_visible()
    expect(page.locator("#rating-form")).to_contain_text("Field 3, validity: a label is required")
    expect(page.locator("#field-2")).to_have_class(re.compile(r"\bfocused\b"))  # the first field in error
    expect(page.locator(".error-list a").first).to_have_text(re.compile(r"^Field 3, validity: a label is required"))
    assignment = Assignment.objects.get(rater=physician_a)
    fields = item_fields(assignment.item)
    assert {fid: e["label"] for fid, e in assignment.draft.items() if e["label"]} == {
        fields[0].id: "2", fields[1].id: "agree"}
    page.reload()
    assert _checked(page, 0) == "2" and _checked(page, 1) == "agree"
    assert not Rating.objects.exists()


def test_an_edit_after_submitting_is_what_the_inspector_sees_as_first_round(
    live_server, new_page, study, physician_a, physician_b, inspector
):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    for key in "2yyy":
        page.keyboard.press(key)
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))
    mine = Assignment.objects.get(rater=physician_a, state=Assignment.State.SUBMITTED)
    # u on the next item's screen reopens the submitted one (in edit mode); change the narrative to 0.
    page.keyboard.press("u")
    page.wait_for_url(re.compile(rf"/review/assignments/{mine.pk}/\?edit=1$"))
    expect(page.locator("#submit-rating")).to_contain_text("Save changes")
    page.locator("#field-0 .choice", has_text="Poor").click()
    # Wait for the server's answer to this submit itself: a message already on the page (from the
    # undo) must not count as the edit having been saved.
    with page.expect_response(lambda r: r.request.method == "POST" and f"/assignments/{mine.pk}/" in r.url
                              and "/draft/" not in r.url):
        page.locator("#submit-rating").click()
    page.wait_for_load_state("domcontentloaded")
    assert Rating.objects.get(assignment=mine, field_key="").label == "0"
    # Then the other rater disagrees on the narrative: the item goes to inspection (issue 21: no edit
    # after that).
    theirs = assignment_claim_next(study=study, rater=physician_b)
    assert theirs.item_id == mine.item_id
    labels = {f.id: {"label": "agree", "comment": ""} for f in item_fields(theirs.item)}
    labels["narrative-quality|"] = {"label": "1", "comment": ""}
    rating_submit(assignment=theirs, rater=physician_b, labels=labels, seconds_spent=9)

    inspector_page = new_page()
    sign_in(inspector_page, live_server, "inspector", PASSWORD)
    inspector_page.goto(f"{live_server.url}/review/inspection/items/{mine.item_id}/")
    row = inspector_page.locator("tr[data-field-id='narrative-quality|']")
    expect(row).not_to_contain_text("first round")
    expect(row.locator("td[data-label]").first).to_have_attribute("data-label", "0")


def test_an_inspector_clears_three_disagreements_with_the_keyboard_alone(
    live_server, new_page, study, physician_a, physician_b, inspector
):
    items = [disagree(study, physician_a, physician_b)[0] for _ in range(3)]
    page = new_page()
    sign_in(page, live_server, "inspector", PASSWORD)
    page.goto(f"{live_server.url}/review/inspection/")
    expect(page.locator("#triage-pending .triage-row")).to_have_count(3)
    expect(page.locator("#triage-pending")).to_contain_text("Disagreement")
    page.keyboard.press("j")
    page.keyboard.press("Enter")
    for n in range(3):
        page.wait_for_url(re.compile(r"/review/inspection/items/\d+/$"))
        expect(page.locator("details.item-details")).to_have_attribute("open", "")
        # The page opens on the field that differs (the narrative); 2 takes the second rater's label there.
        expect(page.locator("tr.focused")).to_have_attribute("data-field-id", "narrative-quality|")
        page.keyboard.press("2")
        page.keyboard.press("e")
        page.keyboard.type(f"Guideline section {n + 1}")
        page.keyboard.press("Enter")  # the summary of what will be stored
        expect(page.locator("#decision-summary")).to_contain_text(f"Guideline section {n + 1}")
        page.wait_for_timeout(350)  # the summary ignores an Enter in its first 300 ms
        with page.expect_navigation():
            page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/inspection/$"))
    for item in items:
        item.refresh_from_db()
        assert item.status == Item.Status.RESOLVED
        assert item.final_labels.get(field_key="").label == "0"


def test_an_inspection_by_taps_on_a_phone(live_server, chromium, study, physician_a, physician_b, inspector):
    item, _a, _b = disagree(study, physician_a, physician_b)
    context = chromium.new_context(locale="en-US", timezone_id="UTC", **PHONE)
    try:
        page = context.new_page()
        sign_in(page, live_server, "inspector", PASSWORD)
        page.goto(f"{live_server.url}/review/inspection/")
        page.locator(".triage-link").first.tap()
        page.wait_for_url(re.compile(rf"/review/inspection/items/{item.pk}/$"))
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        select = page.locator("select[name='final:narrative-quality|']")
        box = select.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390  # the final label is on the screen
        assert box["height"] >= 44
        select.select_option("1")
        page.locator("#id_reason").tap()
        page.keyboard.type("Partial history")
        page.locator("#adjudicate-button").tap()
        page.locator("#confirm-button").tap()  # the summary, then its confirmation
        page.wait_for_url(re.compile(r"/review/inspection/$"))
        item.refresh_from_db()
        assert item.status == Item.Status.RESOLVED
    finally:
        context.close()


def test_a_calibration_round_gates_a_new_rater(live_server, new_page, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=3, tasks=("narrative-quality",))
    calibration = study.items.order_by("pk").first()
    calibration_mark(item=calibration, actor=admin, expected={
        "narrative-quality|": {"label": "2", "explanation": "Age, timeline and a clear question: complete."}})
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.locator("button.next-item").click()
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    claim = Assignment.objects.get(rater=physician_a)
    assert claim.item_id == calibration.pk
    page.locator("#field-0 .choice", has_text="Good").click()
    page.locator("#submit-rating").click()
    expect(page.locator(".calibration-feedback")).to_contain_text("Age, timeline and a clear question")
    expect(page.locator(".calibration-feedback")).to_contain_text("different")
    page.locator(".calibration-feedback button.primary").click()
    expect(page.locator("main")).to_contain_text("Waiting for admission")  # not admitted yet (issue 24: said "Nothing left")
    assert Assignment.objects.filter(rater=physician_a).count() == 1
    rater_admit(study=study, rater=physician_a, actor=admin)
    page.goto(f"{live_server.url}/review/")
    page.locator("button.next-item").first.click()
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    main = Assignment.objects.filter(rater=physician_a).exclude(pk=claim.pk).get()
    assert main.item.status == Item.Status.OPEN and main.round == 1
