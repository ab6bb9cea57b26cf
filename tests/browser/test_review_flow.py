"""The review loop in a real browser: keyboard rating with drafts, return and revision, adjudication."""

import re

import pytest
from playwright.sync_api import expect

from annotation.fields import item_fields
from annotation.models import Assignment, FinalLabel, Item, Rating
from tests.annotation.builders import claim_and_submit, make_running_study
from tests.browser.conftest import sign_in, submit_and_wait
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    # narrative-quality (one 0-2 field) + criterion-validity (three agree/disagree criteria)
    return make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=1,
                              guidelines="Rate the **case**, not the patient.")


def _checked(page, index: int) -> str | None:
    radio = page.locator(f"#field-{index} input[type=radio]:checked")
    return radio.get_attribute("value") if radio.count() else None


def test_it_rates_a_case_with_the_keyboard_and_keeps_the_draft_across_a_reload(
    live_server, new_page, study, physician_a
):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    assignment = Assignment.objects.get(rater=physician_a)
    fields = item_fields(assignment.item)
    assert len(fields) == 4

    expect(page.locator("#field-0")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("?")
    expect(page.locator("body")).to_have_class(re.compile(r"\bhelp-open\b"))
    expect(page.locator("#shortcut-help")).to_be_in_viewport()
    page.keyboard.press("?")
    expect(page.locator("body")).not_to_have_class(re.compile(r"\bhelp-open\b"))
    page.keyboard.press("2")  # Perfect; focus moves on to the first criterion
    expect(page.locator("#field-1")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("y")
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at \d\d:\d\d:\d\d"))
    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.DRAFT
    assert assignment.draft[fields[0].id]["label"] == "2"
    assert assignment.draft[fields[1].id]["label"] == "agree"

    page.reload()
    assert _checked(page, 0) == "2" and _checked(page, 1) == "agree"
    expect(page.locator("#field-2")).to_have_class(re.compile(r"\bfocused\b"))  # first unanswered
    page.keyboard.press("n")
    page.keyboard.press("y")
    page.keyboard.press("k")  # back to the criterion just disagreed with
    page.keyboard.press("c")
    expect(page.locator("#comment-2")).to_be_focused()
    page.keyboard.type("Antibiotics are not a standard for a viral illness")
    page.keyboard.press("Escape")
    page.wait_for_timeout(1100)  # so the visible time on the item is at least a second
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))

    assignment.refresh_from_db()
    assert assignment.state == Assignment.State.SUBMITTED
    assert assignment.seconds_spent >= 1
    ratings = {f"{r.task.slug}|{r.field_key}": r for r in Rating.objects.filter(assignment=assignment)}
    assert [ratings[f.id].label for f in fields] == ["2", "agree", "disagree", "agree"]
    assert ratings[fields[2].id].comment == "Antibiotics are not a standard for a viral illness"


def test_it_keeps_labels_in_the_browser_while_offline_and_restores_them(live_server, new_page, study, physician_a):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    url = page.url
    page.context.set_offline(True)
    page.keyboard.press("1")
    expect(page.locator("#save-status")).to_have_text("Offline — kept locally")
    assignment = Assignment.objects.get(rater=physician_a)
    assert assignment.draft == {}
    context = page.context
    page.close()
    context.set_offline(False)

    page = context.new_page()
    page.goto(url)
    assert _checked(page, 0) == "1"
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at"))
    assignment.refresh_from_db()
    field = item_fields(assignment.item)[0]
    assert assignment.draft[field.id]["label"] == "1"


def test_it_returns_an_item_and_the_physician_revises_it(
    live_server, new_page, study, physician_a, physician_b, inspector
):
    mine = claim_and_submit(study, physician_a, pick="first")
    claim_and_submit(study, physician_b, pick="last")
    item = Item.objects.get()
    assert item.status == Item.Status.INSPECTION

    page = new_page()
    sign_in(page, live_server, "inspector", PASSWORD)
    page.goto(f"{live_server.url}/review/inspection/")
    page.click(f"a[href$='/review/inspection/items/{item.pk}/']")
    expect(page.locator("tr.diff")).to_have_count(4)
    page.check(f"#return-form input[name=assignment][value='{mine.pk}']")
    page.fill("#id_return_comment", "Criterion 3 is a penalty: re-read it")
    page.click("#return-button")
    expect(page.locator("#decision-summary")).to_contain_text("Criterion 3 is a penalty: re-read it")
    page.click("#confirm-button")
    page.wait_for_url(re.compile(r"/review/inspection/$"))
    mine.refresh_from_db()
    assert mine.state == Assignment.State.RETURNED

    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    expect(page.locator(".revision-requested")).to_contain_text("Revision requested")
    page.click(".revision-requested a.button")
    expect(page.locator(".revision-requested")).to_contain_text("Criterion 3 is a penalty: re-read it")
    fields = item_fields(item)
    assert _checked(page, 3) == fields[3].categories[0].value  # previous labels prefilled
    page.locator("#field-3").click()
    page.keyboard.press("n")
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))

    mine.refresh_from_db()
    assert mine.state == Assignment.State.REVISED
    item.refresh_from_db()
    assert item.status == Item.Status.INSPECTION
    revised = Rating.objects.get(assignment=mine, round=2, field_key=fields[3].key, task=fields[3].task)
    assert revised.label == "disagree"
    assert Rating.objects.filter(assignment=mine, round=1).count() == 4  # first round kept


def test_it_lets_the_inspector_adjudicate(live_server, new_page, study, physician_a, physician_b, inspector):
    claim_and_submit(study, physician_a, pick="first")
    claim_and_submit(study, physician_b, pick="last")
    item = Item.objects.get()
    fields = item_fields(item)

    page = new_page()
    sign_in(page, live_server, "inspector", PASSWORD)
    page.goto(f"{live_server.url}/review/inspection/items/{item.pk}/")
    expect(page.locator("#accept-form button")).to_be_disabled()
    for field in fields:
        page.select_option(f"select[name='final:{field.id}']", field.categories[-1].value)
    page.fill("#id_reason", "Second rater matches the guideline")
    page.click("#adjudicate-button")
    page.click("#confirm-button")
    page.wait_for_url(re.compile(r"/review/inspection/$"))
    expect(page.locator("body")).to_contain_text("Final labels set.")

    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    finals = {f"{fl.task.slug}|{fl.field_key}": fl.label for fl in FinalLabel.objects.filter(item=item)}
    assert finals == {f.id: f.categories[-1].value for f in fields}
