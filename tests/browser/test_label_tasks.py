"""The label tasks in a real browser (LiveClin App. E, J): a blind taxonomy assignment completed with
the keyboard only (search, arrows, Enter level by level, Enter on the button), then by touch on a
phone-sized screen; an audit item marked with `c` and Enter, and corrected by touch."""

import re

import pytest
from playwright.sync_api import expect

from liveclin.models import LabelAnswer
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD
from tests.liveclin.labelling.builders import assignment_task, audit_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIDEWAYS = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
PHONE = {"viewport": {"width": 360, "height": 740}, "has_touch": True, "is_mobile": True, "locale": "en-US"}


def open_first_unit(page, live_server, task) -> None:
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.goto(f"{live_server.url}/review/labels/")
    page.focus(f"#label-task-{task.pk} button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/labels/units/\d+/$"))


def pick_by_keyboard(page, level: int, search: str, expected: str) -> None:
    page.keyboard.type(search)
    expect(page.locator(f"#level{level} option").first).to_contain_text(expected)
    page.keyboard.press("ArrowDown")  # into the list, its first entry chosen
    expect(page.locator(f"#level{level}")).to_be_focused()
    page.keyboard.press("Enter")


def test_it_completes_a_blind_assignment_by_keyboard(live_server, new_page, admin, physician_a):
    task = assignment_task(admin, [physician_a])
    # Every row the test needs is read before the browser acts: SQLite's in-memory test database
    # answers "table is locked" to a read while the live server's request holds a write.
    first, second = task.units.order_by("order")[:2]
    page = new_page()
    open_first_unit(page, live_server, task)
    assert page.url.endswith(f"/review/labels/units/{first.pk}/")
    page.focus("#search1")
    pick_by_keyboard(page, 1, "Neoplasms", "Neoplasms")
    expect(page.locator("#search2")).to_be_focused()
    pick_by_keyboard(page, 2, "C40", "C40-C41")
    expect(page.locator("#search3")).to_be_focused()
    pick_by_keyboard(page, 3, "C41", "C41")
    expect(page.locator("#submit-label")).to_be_focused()
    assert not LabelAnswer.objects.exists()  # nothing stored before the button
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/review/labels/units/{second.pk}/$"))
    answer = LabelAnswer.objects.get(unit=first)
    assert (answer.node.code, answer.node.parent.code, answer.node.parent.parent.code) == ("C41", "C40-C41", "2")
    assert answer.seconds is not None


def test_it_completes_a_blind_assignment_by_touch_on_a_phone(live_server, chromium, admin, physician_a):
    task = assignment_task(admin, [physician_a])
    first, second = task.units.order_by("order")[:2]
    context = chromium.new_context(**PHONE)
    page = context.new_page()
    try:
        open_first_unit(page, live_server, task)
        for level, search, code in ((1, "nervous", "6"), (2, "G00", "G00-G14"), (3, "G08", "G08")):
            page.tap(f"#search{level}")
            page.keyboard.type(search)
            option = page.locator(f"#level{level} option", has_text=re.compile(rf"^{re.escape(code)} ·"))
            expect(page.locator(f"#level{level} option")).to_have_count(1)  # the search has filtered the list
            page.select_option(f"#level{level}", value=option.get_attribute("value"))
        page.tap("#submit-label")
        page.wait_for_url(re.compile(rf"/review/labels/units/{second.pk}/$"))
        answer = LabelAnswer.objects.get(unit=first)
        assert answer.node.code == "G08"
    finally:
        context.close()


def test_it_marks_an_audit_item_correct_by_keyboard_and_corrects_one_by_touch(live_server, new_page, chromium, admin,
                                                                              physician_a):
    task = audit_task(admin, [physician_a])
    first, second, third = task.units.select_related("ai_label").order_by("order")[:3]
    page = new_page()
    open_first_unit(page, live_server, task)
    expect(page.locator("#ai-label")).to_contain_text(first.ai_label.value)
    page.locator("h1").click()  # focus on the page, not in a field
    page.keyboard.press("c")
    expect(page.locator("#verdict-correct")).to_be_checked()
    expect(page.locator("#submit-label")).to_be_focused()
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/review/labels/units/{second.pk}/$"))
    assert LabelAnswer.objects.get(unit=first).verdict == "correct"

    context = chromium.new_context(**PHONE)
    phone = context.new_page()
    try:
        sign_in(phone, live_server, "physician_a", PASSWORD)
        phone.goto(f"{live_server.url}/review/labels/units/{second.pk}/")
        phone.tap("#verdict-edited")
        phone.tap("#value")
        phone.keyboard.type("Table of Complete Blood Count")
        phone.tap("#submit-label")
        phone.wait_for_url(re.compile(rf"/review/labels/units/{third.pk}/$"))
        answer = LabelAnswer.objects.get(unit=second)
        assert (answer.verdict, answer.value) == ("edited", "Table of Complete Blood Count")
    finally:
        context.close()


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_the_label_pages_pass_axe_at_360_px(live_server, chromium, admin, physician_a, inspector, locale):
    from liveclin.labelling.services import label_answer_submit
    from tests.browser.axe import axe_source, blocking_violations
    from tests.liveclin.labelling.builders import node_ids

    axe_source()  # skips (or fails in CI) without axe-core
    assignment = assignment_task(admin, [physician_a], inspectors=[inspector])
    label_answer_submit(unit=assignment.units.get(order=2), rater=physician_a, path=node_ids("6", "G00-G14", "G08"))
    context = chromium.new_context(**(PHONE | {"locale": locale}), bypass_csp=True)
    page = context.new_page()
    try:
        sign_in(page, live_server, "physician_a", PASSWORD)
        found = {}
        for path in ("/review/labels/", f"/review/labels/units/{assignment.units.get(order=1).pk}/",
                     f"/review/labels/units/{assignment.units.get(order=2).pk}/"):
            page.goto(live_server.url + path)
            found[path] = blocking_violations(page) + [f"{px}px sideways" for px in [page.evaluate(SIDEWAYS)] if px > 0]
        page.goto(f"{live_server.url}/review/labels/units/{assignment.units.get(order=1).pk}/")
        page.tap("#search1")
        page.keyboard.type("Neoplasms")
        expect(page.locator("#level1 option")).to_have_count(1)
        page.select_option("#level1", index=0)
        expect(page.locator("#level2 option").first).to_be_attached()
        found["pickers open"] = blocking_violations(page)
        sign_in(page, live_server, "admin", PASSWORD)
        for path in (f"/review/labels/{assignment.pk}/report/", f"/review/labels/{assignment.pk}/inspection/"):
            page.goto(live_server.url + path)
            found[path] = blocking_violations(page) + [f"{px}px sideways" for px in [page.evaluate(SIDEWAYS)] if px > 0]
        assert found == {k: [] for k in found}
    finally:
        context.close()


def test_the_audit_and_consolidation_pages_pass_axe_at_360_px(live_server, chromium, admin, physician_a):
    from django.core.management import call_command

    from liveclin.models import Consolidation
    from tests.browser.axe import axe_source, blocking_violations

    axe_source()
    task = audit_task(admin, [physician_a])
    call_command("load_consolidation", "liveclin-modalities", "--reviewer", "physician_a", stdout=None)
    consolidation = Consolidation.objects.get(key="liveclin-modalities")
    context = chromium.new_context(**PHONE, bypass_csp=True)
    page = context.new_page()
    try:
        sign_in(page, live_server, "physician_a", PASSWORD)
        found = {}
        for path in [f"/review/labels/units/{u.pk}/" for u in task.units.order_by("order")[:2]] + [
                f"/review/consolidations/{consolidation.pk}/", f"/review/consolidations/{consolidation.pk}/report/"]:
            page.goto(live_server.url + path)
            found[path] = blocking_violations(page) + [f"{px}px sideways" for px in [page.evaluate(SIDEWAYS)] if px > 0]
        assert found == {k: [] for k in found}
    finally:
        context.close()
