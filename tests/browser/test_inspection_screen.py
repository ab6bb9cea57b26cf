"""Issue 20 in Chromium: the inspection screen stores exactly the final labels the inspector meant,
for every task type, at 1440x900 and 390x844, by keyboard and by mouse; a stray single key stores
nothing.

Keyboard: the page opens on the first field that differs; the test walks the differing fields with
`j` / `k` (rows as shown), takes rater 2's label on the first, rater 1's on the next and so on with
the digit keys, checks `n` comes back to the first differing field, types the reason and presses
Enter (the summary: nothing stored yet), then Enter again (stored). Mouse: the final labels are
picked in the selects, the reason typed, "Review the final labels" then "Confirm" clicked. Both
compare the stored final labels with the ones the test meant, field by field.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from annotation.fields import item_fields
from annotation.inspection.selectors import inspection_view
from annotation.models import FinalLabel, Inspection, Item
from tests.browser.conftest import sign_in
from tests.browser.inspection_items import BUILDERS
from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"width": 1440, "height": 900}, "phone": {"width": 390, "height": 844}}
STRAY_KEYS = ("a", "Enter", "1", "2", "n", "r", "e", " ")


@pytest.fixture
def open_page(page_in_context, live_server):
    def make(viewport: str):
        page = page_in_context(viewport=VIEWPORTS[viewport])
        sign_in(page, live_server, "inspector", PASSWORD)
        return page

    return make


def _plan(item: Item) -> tuple[list[str], dict[str, list[str]], dict[str, str]]:
    """(field ids in page order, each field's raters' latest labels in column order, proposed labels)."""
    view = inspection_view(item=item)
    order = [c.field.id for c in view.fields]
    labels = {c.field.id: [cell.label for cell in c.cells] for c in view.fields}
    agreed = {fid: values[0] for fid, values in labels.items() if len(set(values)) == 1}
    return order, labels, agreed


def _stored(item: Item) -> dict[str, str]:
    return {f"{fl.task.slug}|{fl.field_key}": fl.label for fl in FinalLabel.objects.filter(item=item)}


def _focused(page) -> str:
    return page.locator("tr[data-field-id].focused").get_attribute("data-field-id")


def _confirm_summary(page, intended: dict[str, str], item: Item) -> None:
    """On the summary page: every field with the final label meant, nothing stored yet."""
    expect(page.locator("#decision-summary")).to_be_visible()
    finals = {row.get_attribute("data-field-id"): row.locator("td.final").get_attribute("data-final")
              for row in page.locator("#decision-summary tr[data-field-id]").all()}
    assert finals == intended
    assert not Inspection.objects.filter(item=item).exists() and not FinalLabel.objects.filter(item=item).exists()


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("kind", BUILDERS)
def test_the_keyboard_stores_exactly_the_labels_meant(open_page, live_server, admin, physician_a, physician_b,
                                                      inspector, kind, viewport):
    item = BUILDERS[kind](admin, [physician_a, physician_b], inspector)
    order, labels, agreed = _plan(item)
    differing = [fid for fid in order if fid not in agreed]
    assert differing, "every builder makes at least one field differ"
    page = open_page(viewport)
    page.goto(f"{live_server.url}/review/inspection/items/{item.pk}/")
    assert _focused(page) == differing[0]  # the page opens on the first field that differs
    intended = dict(agreed)
    at = order.index(differing[0])
    for n, fid in enumerate(differing):
        target = order.index(fid)
        for _ in range(abs(target - at)):
            page.keyboard.press("j" if target > at else "k")
        at = target
        assert _focused(page) == fid
        rater = 1 if n % 2 == 0 else 0  # rater 2 on the first differing field, rater 1 on the next...
        page.keyboard.press(str(rater + 1))
        intended[fid] = labels[fid][rater]
    # Digits acted on the focused row only: every other select still holds its proposed label.
    for fid in order:
        expect(page.locator(f"select[name='final:{fid}']")).to_have_value(intended[fid])
    page.keyboard.press("n")  # from the last differing field, n comes round to the first
    assert _focused(page) == differing[0]
    page.keyboard.press("e")
    page.keyboard.type(f"Keyboard decision on {kind}")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/review/inspection/items/{item.pk}/$"))
    _confirm_summary(page, intended, item)
    page.wait_for_timeout(350)  # the summary ignores an Enter in its first 300 ms
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _stored(item) == intended
    assert set(FinalLabel.objects.filter(item=item).values_list("reason", flat=True)) == {f"Keyboard decision on {kind}"}


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("kind", BUILDERS)
def test_the_mouse_stores_exactly_the_labels_meant(open_page, live_server, admin, physician_a, physician_b,
                                                   inspector, kind, viewport):
    item = BUILDERS[kind](admin, [physician_a, physician_b], inspector)
    order, labels, agreed = _plan(item)
    fields = {f.id: f for f in item_fields(item)}
    page = open_page(viewport)
    page.goto(f"{live_server.url}/review/inspection/items/{item.pk}/")
    intended = dict(agreed)
    for fid in order:
        if fid in agreed:
            continue
        # A label neither rater gave when the scale has one, else rater 1's.
        others = [c.value for c in fields[fid].categories if c.value not in labels[fid]]
        intended[fid] = others[0] if others else labels[fid][0]
        page.locator(f"select[name='final:{fid}']").select_option(intended[fid])
    page.locator("#id_reason").click()
    page.keyboard.type(f"Mouse decision on {kind}")
    page.locator("#adjudicate-button").click()
    page.wait_for_selector("#decision-summary")
    _confirm_summary(page, intended, item)
    with page.expect_navigation():
        page.locator("#confirm-button").click()
    assert _stored(item) == intended


@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("kind", BUILDERS)
def test_a_stray_key_stores_nothing(open_page, live_server, admin, physician_a, physician_b, inspector, kind,
                                    viewport):
    item = BUILDERS[kind](admin, [physician_a, physician_b], inspector)
    page = open_page(viewport)
    url = f"{live_server.url}/review/inspection/items/{item.pk}/"
    for key in STRAY_KEYS:
        page.goto(url)
        page.keyboard.press(key)
        page.wait_for_timeout(250)
        page.wait_for_load_state("domcontentloaded")
        assert not Inspection.objects.filter(item=item).exists(), key
        assert not FinalLabel.objects.filter(item=item).exists(), key
    item.refresh_from_db()
    assert item.status == Item.Status.INSPECTION


def test_a_stray_a_on_an_item_everyone_agrees_on_shows_the_summary_and_stores_nothing(
    open_page, live_server, admin, physician_a, physician_b, inspector
):
    from tests.annotation.builders import claim_and_submit, make_running_study

    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], inspect_all=True)
    claim_and_submit(study, physician_a)
    claim_and_submit(study, physician_b)
    item = study.items.get()
    page = open_page("desktop")
    page.goto(f"{live_server.url}/review/inspection/items/{item.pk}/")
    expect(page.locator("#accept-button")).to_be_enabled()
    page.keyboard.press("a")
    page.wait_for_selector("#decision-summary")
    assert not FinalLabel.objects.exists() and not Inspection.objects.exists()
    page.keyboard.press("Escape")  # back, nothing stored
    page.wait_for_selector("#adjudicate-form")
    assert not FinalLabel.objects.exists() and not Inspection.objects.exists()
    page.keyboard.press("a")
    page.wait_for_selector("#decision-summary")
    page.wait_for_timeout(350)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    item.refresh_from_db()
    assert item.status == Item.Status.RESOLVED
    assert FinalLabel.objects.filter(item=item, source="accepted").count() == len(item_fields(item))


def test_a_returned_set_opens_on_the_marked_fields_phase_with_that_field_focused(
    chromium, live_server, admin, physician_a, physician_b, inspector
):
    from annotation.inspection.services import inspection_return
    from annotation.models import Assignment

    item = BUILDERS["liveclin"](admin, [physician_a, physician_b], inspector)
    theirs = Assignment.objects.get(item=item, rater=physician_b)
    marked = next(f for f in item_fields(item) if f.task.slug == "mcq-factual" and f.mcq.order == 2)
    inspection_return(item=item, inspector=inspector, assignment=theirs, comment="Check question 2's facts",
                      fields=[marked.id])
    context = chromium.new_context(viewport=VIEWPORTS["phone"], locale="en-US", timezone_id="UTC")
    try:
        page = context.new_page()
        sign_in(page, live_server, "physician_b", PASSWORD)
        page.goto(f"{live_server.url}/review/assignments/{theirs.pk}/")
        expect(page.locator("#liveclin-phase")).to_have_attribute("data-phase", "auditor")
        expect(page.locator("fieldset.field.focused")).to_have_attribute("data-field-id", marked.id)
    finally:
        context.close()
