"""The rating loop benchmark's in-page measurement (benchmarks/rating_loop_page.js) stops where a
physician can go on: the next case on screen, its first field focused and enabled, its text painted.

It must never stop early (the old item still there, a page with errors), must tell the input that
started it, and its marks must follow the swap in order, so the breakdown it prints adds up.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from annotation.catalogue import CRITERION_VALIDITY, NARRATIVE_QUALITY
from annotation.models import Assignment, StudyMember
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD, make_user

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import rating_loop_items  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ORDER = ["parse_start", "parse_end", "swap", "focus", "usable", "frame", "painted"]
RUN = "n => window.__ratingLoop.runs[n]"


@pytest.fixture
def measured_page(chromium, live_server):
    admin = make_user("loop_admin", role="admin", specialties=[], languages=[])
    rater = make_user("loop_rater", role="physician", languages=["en", "zh"])
    rating_loop_items.import_cases(6)
    study = study_create(
        name="Loop", created_by=admin, task_slugs=[NARRATIVE_QUALITY.slug, CRITERION_VALIDITY.slug],
        selection=ItemSelection(kind="case", dataset=rating_loop_items.DATASET,
                                         release_label=rating_loop_items.RELEASE),
        raters_per_item=1, seed=27,
    )
    study_add_members(study=study, users=[rater], role=StudyMember.Role.RATER, actor=admin)
    study_start(study=study, actor=admin)
    # The app's own Content-Security-Policy stays on: the benchmark measures the production page.
    context = chromium.new_context(viewport={"width": 1440, "height": 900}, locale="en-US", bypass_csp=False)
    context.set_default_timeout(20_000)
    context.add_init_script(path=str(BENCHMARKS / "rating_loop_page.js"))
    page = context.new_page()
    sign_in(page, live_server, "loop_rater", PASSWORD)
    page.goto(f"{live_server.url}/review/")
    with page.expect_navigation():
        page.locator("article.study-card", has_text="Loop").locator("button.next-item").click()
    yield page, rater
    context.close()


def _label_every_field(page, by_mouse: bool) -> None:
    for index in range(page.locator("#rating-form fieldset.field").count()):
        if by_mouse:
            page.locator(f"#field-{index} label.choice").first.click()
        else:
            page.keyboard.press(page.locator(f"#field-{index} input[type=radio]").first.get_attribute("data-shortcut"))


def _submit(page, by_mouse: bool) -> dict:
    n = page.evaluate("() => window.__ratingLoop.runs.length")
    swapped = page.evaluate("() => window.medreviewTiming.items.length")
    if by_mouse:
        page.locator("#submit-rating").click()
    else:
        page.keyboard.press("Enter")
    # Functions, not expressions: Playwright evaluates an expression with eval, which the CSP forbids.
    page.wait_for_function("n => window.medreviewTiming.items.length > n", arg=swapped)
    page.wait_for_function("n => !!(window.__ratingLoop.runs[n] || {}).resource", arg=n)
    return page.evaluate(RUN, n)


@pytest.mark.parametrize("by_mouse", [False, True], ids=["keyboard", "mouse"])
def test_it_times_the_submit_until_the_next_case_is_focused_and_painted(measured_page, by_mouse):
    page, rater = measured_page
    first = page.locator("#rate-page").get_attribute("data-assignment")
    first_case = page.locator(".item-content > p.muted").inner_text()
    _label_every_field(page, by_mouse)
    assert page.evaluate("() => window.__ratingLoop.runs.length") == 0  # picking labels starts no run
    _submit(page, by_mouse)
    page.wait_for_function("() => window.__ratingLoop.runs[0].painted === true")
    run = page.evaluate(RUN, 0)

    following = Assignment.objects.get(rater=rater, state=Assignment.State.CLAIMED)
    assert run["input"] == ("mouse" if by_mouse else "keyboard")
    assert (run["from"], run["to"]) == (first, str(following.pk))
    assert page.locator(".item-content > p.muted").inner_text() != first_case
    marks = [run["marks"][name] for name in ORDER]
    assert marks[0] > 0 and marks == sorted(marks), run["marks"]
    resource = run["resource"]
    assert resource["status"] == 200
    assert 0 <= resource["start"] < resource["end"] <= run["marks"]["parse_start"]
    # What "usable" promised is what the physician gets: the new first field has the keys.
    assert page.evaluate("() => document.activeElement.id") == "field-0"
    assert page.evaluate("() => window.__ratingLoop.runs.length") == 1  # one submit, one run


def test_it_never_counts_a_page_with_errors_as_the_next_item(measured_page):
    page, _ = measured_page
    first = page.locator("#rate-page").get_attribute("data-assignment")
    page.keyboard.press(page.locator("#field-0 input[type=radio]").first.get_attribute("data-shortcut"))
    run = _submit(page, by_mouse=False)  # six criteria left without a label: the same item, with its errors

    assert run["resource"]["status"] == 400
    assert page.locator("#rate-page").get_attribute("data-assignment") == first
    page.wait_for_timeout(300)  # frames after the swap: still not usable
    run = page.evaluate(RUN, 0)
    assert "usable" not in run["marks"] and not run.get("painted")
