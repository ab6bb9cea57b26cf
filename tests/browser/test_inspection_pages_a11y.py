"""Issue 20's pages in Chromium, in English and Chinese, at 1440x900 and 390x844 (touch): the
inspection page of a LiveClin set (with the Judge's verdicts) and of a pair, the summary an inspector
confirms, the inspection queue with its rank notice, the study page with its options and a later
Judge run, the release's quality report and the 403 page: no critical or serious axe-core
violation, a `lang` on the document, no sideways scrolling on a phone, and in Chinese the page's
own words in Chinese."""

from __future__ import annotations

import pytest

from accounts.models import Rank, Role
from annotation.fields import item_fields
from annotation.models import Item, StudyMember
from cases.services import release_import
from tests.annotation.builders import claim_and_submit
from tests.browser.axe import blocking_violations
from tests.browser.conftest import sign_in
from tests.browser.inspection_items import pairwise
from tests.conftest import PASSWORD, make_user
from tests.liveclin.builders import import_liveclin, jsonl, judge_block, liveclin_study

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"desktop": {"viewport": {"width": 1440, "height": 900}},
             "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}}
LOCALES = {"en": "en-US", "zh-hans": "zh-CN"}
# A word of each page's own interface that must not stay English in Chinese.
ENGLISH_ONLY = ("Final label", "Check before storing", "Options", "Not allowed", "Judge run and study options")


@pytest.fixture
def pages(admin, physician_a, physician_b, inspector, researcher) -> dict[str, tuple[str, str, dict | None]]:
    """name -> (username, path, POST data or None)."""
    release = import_liveclin(1, judge=[{"pmc": "PMC-QC-1", "judge": [judge_block(False, why="flagged"), judge_block()]}])
    study = liveclin_study(admin, [physician_a, physician_b], inspectors=[inspector], min_inspector_rank=Rank.CHIEF)
    claim_and_submit(study, physician_a, "yes")
    claim_and_submit(study, physician_b, "no", comment="Not in the report")
    item = Item.objects.get(study=study)
    release_import(fmt="liveclin-judge", data=jsonl([{"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]}]),
                   file_name="again.jsonl", dataset_name="LiveClin", release_label="2025H1-judge-2", grader_model="o4")
    pair = pairwise(admin, [physician_a, physician_b], inspector)
    junior = make_user("junior", role=Role.INSPECTOR, rank=Rank.ATTENDING)
    StudyMember.objects.create(study=study, user=junior, role=StudyMember.Role.INSPECTOR)  # from before the rule
    adjudication = {"action": "reject_set", "set_reason": "Duplicate case"}
    adjudication.update({f"final:{f.id}": "yes" for f in item_fields(item)})
    return {
        "inspect (LiveClin, Judge shown)": ("inspector", f"/review/inspection/items/{item.pk}/", None),
        "inspect (pair)": ("inspector", f"/review/inspection/items/{pair.pk}/", None),
        "summary (reject set)": ("inspector", f"/review/inspection/items/{item.pk}/", adjudication),
        "inspection queue (rank notice)": ("junior", "/review/inspection/", None),
        "study page (options, later run)": ("admin", f"/review/studies/{study.pk}/", None),
        "quality report": ("researcher", f"/reports/release/{release.pk}/quality/", None),
        "403": ("researcher", "/review/inspection/", None),
    }


def _open(page, live_server, path: str, data: dict | None):
    if data is None:
        return page.goto(f"{live_server.url}{path}")
    page.goto(f"{live_server.url}{path}")
    for key, value in data.items():
        if key.startswith("final:"):
            page.locator(f"select[name='{key}']").select_option(value)
    page.locator("#id_set_reason").fill(data["set_reason"])
    with page.expect_navigation() as navigation:
        page.locator("#reject-set-button").click()
    return navigation.value


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("viewport", VIEWPORTS)
def test_the_pages_of_issue_20_pass_axe_fit_a_phone_and_read_in_both_languages(
    live_server, chromium, pages, viewport, language
):
    problems: dict[str, list[str]] = {}
    signed_in: dict[str, object] = {}
    try:
        for name, (username, path, data) in pages.items():
            if username not in signed_in:
                context = chromium.new_context(locale=LOCALES[language], timezone_id="UTC", **VIEWPORTS[viewport])
                signed_in[username] = context.new_page()
                sign_in(signed_in[username], live_server, username, PASSWORD)
            page = signed_in[username]
            response = _open(page, live_server, path, data)
            assert response.status == (403 if name == "403" else 200), (name, response.status)
            found = blocking_violations(page)
            if not page.evaluate("document.documentElement.lang"):
                found.append("the document has no lang")
            overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            if viewport == "phone" and overflow > 0:
                found.append(f"sideways scrolling: {overflow}px wider than the screen")
            if language == "zh-hans":
                text = page.locator("main").inner_text()
                found.extend(f"English left: {word!r}" for word in ENGLISH_ONLY if word in text)
            if found:
                problems[name] = found
    finally:
        for page in signed_in.values():
            page.context.close()
    assert not problems, "\n".join(f"{name}:\n  " + "\n  ".join(lines) for name, lines in problems.items())
