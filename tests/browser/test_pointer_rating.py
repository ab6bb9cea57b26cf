"""Rating by mouse and by touch is as sure as by keyboard (issue 16).

For every shipped task type (the demo studies hold all of them), at 1440x900 with a mouse and at
390x844 with touch: every choice of every field is clicked (or tapped) exactly once, top to bottom,
in a shuffled order, with a double click and on the label text; each click must take at once, on
its own field only, and the labels the server stores must be the ones clicked last. Nothing may
move under the pointer: the page's layout-shift total stays 0 throughout. Also: the compact
LiveMedBench item fits one 1440x900 screen, submitting swaps the next item in without a page load
(reload and back still show the right item), and the keyboard path is still 8 keys for a grade and
six criteria.
"""

from __future__ import annotations

import random
import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from playwright.sync_api import expect

from annotation.fields import item_fields
from annotation.labels import pair_label_as_shown
from annotation.models import Assignment, Rating, Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from tests.browser.conftest import sign_in, submit_and_wait
from tests.conftest import PASSWORD, make_user
from tests.factories import make_case, make_release

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"viewport": {"width": 1440, "height": 900}}
PHONE = {  # Playwright's "iPhone 13" geometry, driven by Chromium
    "viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True,
    "user_agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 "
                  "(KHTML, like Gecko) Version/15.0 Mobile/15E148 Safari/604.1",
}
DEMO_STUDIES = [
    "Demo: LiveMedBench human validation",  # narrative 0-2, advice 0-2, criterion agree/disagree
    "Demo: grader reliability",  # met / not met
    "Demo: LiveClin question sets",  # factual and solvability yes / no, "no" explained
    "Demo: MEDIC Likert axes",  # 1-5
    "Demo: pairwise preference",  # A / B / tie
]
MODES = ("in-order", "shuffled-text", "double")

FORM_STATE = """() => Object.fromEntries([...document.querySelectorAll('#rating-form fieldset.field')].map(f => {
  const c = f.querySelector('input[type=radio]:checked'); return [f.dataset.fieldId, c ? c.value : ''];
}))"""
SHIFT = "() => window.medreviewLayoutShift"


@pytest.fixture
def browser_context(page_in_context):
    return lambda options: page_in_context(**options)


def _assert_no_shift(page, where: str) -> None:
    shift = page.evaluate(SHIFT)
    assert shift is not None, "rating.js records layout shifts"
    assert shift["total"] == 0, f"{where}: layout shifted {shift['total']:.5f}: {shift['entries']}"


def _open_next(page, live_server, study: Study) -> None:
    page.goto(f"{live_server.url}/review/")
    card = page.locator("article.study-card", has_text=study.name)
    with page.expect_navigation():
        card.locator("button.next-item").click()


def _stored_as_shown(assignment: Assignment) -> dict[str, str]:
    stored = {}
    for rating in Rating.objects.filter(assignment=assignment).select_related("task"):
        label = rating.label
        if rating.task.target == "pairwise":
            label = pair_label_as_shown(label, assignment.pair_order)
        stored[f"{rating.task.slug}|{rating.field_key}"] = label
    return stored


def _rate_by_pointer(page, mode: str, touch: bool, rng: random.Random) -> tuple[dict[str, str], int]:
    """Click every choice of every field once; returns the labels expected and the clicks made."""
    fields = page.locator("#rating-form fieldset.field")
    plan = []
    for i in range(fields.count()):
        field = fields.nth(i)
        field_id = field.get_attribute("data-field-id")
        if field.get_attribute("data-requires-explanation"):
            # Typed, not clicked: every "no" then has its explanation whatever order the clicks come in.
            field.locator("textarea").fill("Checked against the source.")
        choices = field.locator("label.choice")
        for j in range(choices.count()):
            plan.append((field_id, choices.nth(j)))
    if mode == "shuffled-text":
        rng.shuffle(plan)
    expected = page.evaluate(FORM_STATE)
    clicks = 0
    for field_id, choice in plan:
        value = choice.locator("input").get_attribute("value")
        if touch:
            box = choice.bounding_box()
            assert box and box["width"] >= 44 and box["height"] >= 44, f"{field_id} {value}: {box} < 44x44"
        target = choice.locator(".choice-label") if mode == "shuffled-text" else choice
        if mode == "double":
            if touch:
                target.tap()
                target.tap()
            else:
                target.dblclick()
            clicks += 2
        elif touch:
            target.tap()
            clicks += 1
        else:
            target.click(position={"x": 3, "y": 3}) if mode == "in-order" else target.click()
            clicks += 1
        expected[field_id] = value
        # At once, and on that field only: the whole form is exactly what was clicked so far.
        assert page.evaluate(FORM_STATE) == expected, f"{mode}: click on {field_id} = {value} did not take"
    return expected, clicks


def _same_assignment_open(page, assignment) -> bool:
    rate_page = page.locator("#rate-page")
    return bool(rate_page.count()) and rate_page.get_attribute("data-assignment") == str(assignment.pk)


@pytest.mark.parametrize("device", ["mouse-1440x900", "touch-390x844"])
def test_every_choice_of_every_task_type_takes_on_the_first_click_and_nothing_moves(
    live_server, browser_context, device
):
    call_command("load_demo", stdout=StringIO())
    admin = make_user("study_admin", role="admin", specialties=[], languages=[])
    rater = make_user("pointer_rater", role="physician")
    studies = [Study.objects.get(name=name) for name in DEMO_STUDIES]
    for study in studies:
        study_add_members(study=study, users=[rater], role=StudyMember.Role.RATER, actor=admin)
    touch = device.startswith("touch")
    page = browser_context(PHONE if touch else DESKTOP)
    sign_in(page, live_server, "pointer_rater", PASSWORD)
    rng = random.Random(16)
    rated = 0
    for study in studies:
        _open_next(page, live_server, study)
        for mode in MODES:
            if not page.locator("#rating-form").count():
                break  # nothing left in this study for this rater
            assignment = Assignment.objects.get(pk=page.locator("#rate-page").get_attribute("data-assignment"))
            _assert_no_shift(page, f"{study.name}: on load")
            expected, clicks = _rate_by_pointer(page, mode, touch, rng)
            assert clicks == (2 if mode == "double" else 1) * sum(
                page.locator(f"#field-{i} label.choice").count() for i in range(len(expected))
            )
            _assert_no_shift(page, f"{study.name} ({mode})")
            submit = page.locator("#submit-rating")
            submit_and_wait(page, submit.tap if touch else submit.click)
            assignment.refresh_from_db()
            if assignment.state == Assignment.State.DRAFT and _same_assignment_open(page, assignment):
                # LiveClin: phase 1 (auditor) is done; phase 2 (examinee) opens on its own screen.
                _assert_no_shift(page, f"{study.name} ({mode}): phase 2 on load")
                phase_two, _ = _rate_by_pointer(page, mode, touch, rng)
                expected.update(phase_two)
                submit_and_wait(page, submit.tap if touch else submit.click)
                assignment.refresh_from_db()
            assert assignment.state == Assignment.State.SUBMITTED, f"{study.name} ({mode}) not submitted"
            assert _stored_as_shown(assignment) == expected, f"{study.name} ({mode}): stored != clicked"
            rated += 1
        _assert_no_shift(page, f"{study.name}: after submitting")
    assert rated >= len(studies) * 2


def _six_criteria_study(admin, rater, **kwargs):
    criteria = [
        ("Identifies hand, foot and mouth disease as the most likely diagnosis", 6, "Accuracy"),
        ("Gives home care: fluids, soft food, antipyretics dosed by weight", 5, "Completeness"),
        ("Lists red flags that need urgent care: lethargy, seizures, persistent high fever", 9, "Safety"),
        ("Advises isolation and hand hygiene to protect siblings", 3, "Completeness"),
        ("Recommends antibiotics", -6, "Accuracy"),
        ("States the usual course is 7 to 10 days", 2, "Accuracy"),
    ]
    release = make_release(dataset_name="LiveMedBench", label="v-compact")
    for n in range(3):
        make_case(release=release, criteria=criteria, narrative=kwargs.get("narrative", f"Case {n}. " * 20))
    study = study_create(
        name="Compact", created_by=admin, task_slugs=["narrative-quality", "criterion-validity"],
        selection=ItemSelection(kind="case", dataset="LiveMedBench", release_label="v-compact"),
        raters_per_item=1, guidelines="Rate the **case**.", seed=3,
    )
    study_add_members(study=study, users=[rater], role=StudyMember.Role.RATER, actor=admin)
    study_start(study=study, actor=admin)
    return study


def test_a_case_item_fits_one_screen_and_the_keyboard_path_is_eight_keys(live_server, browser_context):
    admin = make_user("study_admin", role="admin", specialties=[], languages=[])
    rater = make_user("keyboard_rater", role="physician")
    long_narrative = "A 6-year-old with two days of fever to 39 C and blisters on hands, feet and mouth. " * 60
    study = _six_criteria_study(admin, rater, narrative=long_narrative)
    page = browser_context(DESKTOP)
    sign_in(page, live_server, "keyboard_rater", PASSWORD)
    _open_next(page, live_server, study)
    first = page.locator("#rate-page").get_attribute("data-assignment")

    # Every control of the grade and the six criteria is on screen at once, without scrolling; the
    # long case text scrolls in its own region.
    controls = page.locator("#rating-form label.choice, #submit-rating")
    assert controls.count() == 3 + 6 * 2 + 1
    for i in range(controls.count()):
        expect(controls.nth(i)).to_be_in_viewport(ratio=1)
    assert page.evaluate("window.scrollY") == 0
    assert page.evaluate("(() => { const s = document.querySelector('.rate-source'); "
                         "return s.scrollHeight > s.clientHeight && getComputedStyle(s).overflowY })()") == "auto"

    page.evaluate("window.__sameDocument = true")
    for key in ["2", "y", "n", "y", "n", "y", "y"]:
        page.keyboard.press(key)
    submit_and_wait(page, lambda: page.keyboard.press("Enter"))  # the eighth key
    _assert_no_shift(page, "keyboard item")
    assignment = Assignment.objects.get(pk=first)
    fields = item_fields(assignment.item)
    assert [_stored_as_shown(assignment)[f.id] for f in fields] == ["2", "agree", "disagree", "agree",
                                                                    "disagree", "agree", "agree"]

    # The next item was swapped in (same document, no page load) and the address follows it.
    assert page.evaluate("window.__sameDocument") is True
    second = page.locator("#rate-page").get_attribute("data-assignment")
    assert second != first
    assert page.url.endswith(f"/review/assignments/{second}/")
    expect(page.locator("#field-0")).to_have_class(re.compile(r"\bfocused\b"))
    page.keyboard.press("1")  # its first field takes input at once
    assert page.evaluate(FORM_STATE)[fields[0].id] == "1"
    timing = page.evaluate("window.medreviewTiming.items")
    assert timing and timing[-1]["assignment"] == second

    page.reload()
    assert page.locator("#rate-page").get_attribute("data-assignment") == second
    page.go_back()
    expect(page.locator("#rate-page")).to_have_attribute("data-assignment", first)
    expect(page.locator(".notice")).to_contain_text("read-only")


def test_the_comment_box_opens_on_demand_and_stays_open(live_server, browser_context):
    admin = make_user("study_admin", role="admin", specialties=[], languages=[])
    rater = make_user("comment_rater", role="physician")
    study = _six_criteria_study(admin, rater)
    page = browser_context(DESKTOP)
    sign_in(page, live_server, "comment_rater", PASSWORD)
    _open_next(page, live_server, study)
    box = page.locator("#comment-2")
    expect(box).to_be_hidden()
    page.locator("#field-2 label.choice").nth(1).click()  # disagree: no explanation required here
    expect(box).to_be_hidden()
    page.locator("#field-2 [data-add-comment]").click()
    expect(box).to_be_focused()
    box.type("Not a standard of care")
    before = page.evaluate(SHIFT)["total"]
    page.locator("#field-4 label.choice").first.click()  # focus leaves the comment: nothing collapses
    expect(box).to_be_visible()
    assert page.evaluate(SHIFT)["total"] == before
    assert page.evaluate(FORM_STATE)[page.locator("#field-4").get_attribute("data-field-id")] == "agree"
    # Let the autosave land before the test's database is flushed under the live server.
    expect(page.locator("#save-status")).to_have_text(re.compile(r"Saved at"))


def test_the_rating_page_costs_no_query_per_criterion(client, admin):
    def queries_for(n_criteria: int) -> int:
        rater = make_user(f"rater_{n_criteria}", role="physician")
        release = make_release(dataset_name="LiveMedBench", label=f"v-q{n_criteria}")
        make_case(release=release, criteria=[(f"criterion {i}", 1, "Accuracy") for i in range(n_criteria)])
        study = study_create(
            name=f"Q{n_criteria}", created_by=admin, task_slugs=["narrative-quality", "criterion-validity"],
            selection=ItemSelection(kind="case", dataset="LiveMedBench", release_label=f"v-q{n_criteria}"),
            raters_per_item=1, seed=1,
        )
        study_add_members(study=study, users=[rater], role=StudyMember.Role.RATER, actor=admin)
        study_start(study=study, actor=admin)
        assignment = assignment_claim_next(study=study, rater=rater)
        client.force_login(rater)
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(f"/review/assignments/{assignment.pk}/").status_code == 200
        return len(ctx.captured_queries)

    assert queries_for(2) == queries_for(12)


def test_submit_and_next_answers_with_the_next_item_claimed_only_by_that_submit(client, admin):
    rater = make_user("flow_rater", role="physician")
    study = _six_criteria_study(admin, rater)
    first = assignment_claim_next(study=study, rater=rater)
    client.force_login(rater)
    url = f"/review/assignments/{first.pk}/submit-next/"
    fields = item_fields(first.item)
    labels = {"seconds_spent": "12", **{f.id: f.categories[0].value for f in fields[:-1]}}

    incomplete = client.post(url, labels, headers={"X-Requested-With": "fetch"})
    assert incomplete.status_code == 400 and "X-Location" not in incomplete
    assert Assignment.objects.filter(rater=rater).count() == 1  # nothing claimed by a failed submit

    labels[fields[-1].id] = fields[-1].categories[0].value
    answer = client.post(url, labels, headers={"X-Requested-With": "fetch"})
    assert answer.status_code == 200
    following = Assignment.objects.filter(rater=rater).exclude(pk=first.pk).get()
    assert answer["X-Location"] == f"/review/assignments/{following.pk}/"
    assert f'data-assignment="{following.pk}"' in answer.content.decode()
    first.refresh_from_db()
    assert first.state == Assignment.State.SUBMITTED
    assert following.state == Assignment.State.CLAIMED

    back = client.post(f"/review/assignments/{following.pk}/submit-next/",
                       {f.id: f.categories[0].value for f in item_fields(following.item)}
                       | {"then": "dashboard"})
    assert back.status_code == 302 and back["Location"] == "/review/"
    assert client.get(url).status_code == 405
