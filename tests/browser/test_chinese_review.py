"""A physician switches the interface to 中文 and completes a LiveMedBench item in the Chinese
interface, reading the Chinese original and its English translation side by side; the stored
ratings record the text version read (issue 12). Chinese renders with Debian's fonts-noto-cjk.

MEDREVIEW_SCREENSHOTS=1 also writes docs/screenshots/rating-zh.png (the README's screenshot).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from annotation.models import Assignment, Rating
from cases.models import TextTranslation
from medreview.i18n.msgfmt import compile_all
from tests.annotation.builders import running_study
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD
from tests.i18n.builders import NARRATIVE_ZH, chinese_case, english_translations, import_translations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def compiled_catalogues() -> None:
    compile_all(ROOT / "locale")


@pytest.fixture
def study(admin, physician_a):
    chinese_case()
    import_translations(english_translations())
    study = running_study(admin, raters=[physician_a], tasks=["narrative-quality", "criterion-validity"],
                          guidelines="请评估病例本身，而不是患者。")
    study.translation_language = "en"
    study.save(update_fields=["translation_language"])
    return study


def test_a_physician_rates_a_livemedbench_item_in_the_chinese_interface(live_server, new_page, study, physician_a):
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    page.get_by_role("button", name="中文").click()
    page.wait_for_load_state("domcontentloaded")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    expect(page.locator("header.topbar")).to_contain_text("我的队列")
    physician_a.profile.refresh_from_db()
    assert physician_a.profile.language == "zh-hans"

    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    # Original (Chinese) and translation (English) side by side, each with its own language.
    original = page.locator(".bilingual .original [lang=zh]").first
    translation = page.locator(".bilingual .translation [lang=en]").first
    expect(original).to_contain_text(NARRATIVE_ZH[:10])
    expect(translation).to_contain_text("three days of fever")
    left, right = original.bounding_box(), translation.bounding_box()
    assert right["x"] > left["x"] + left["width"] - 1 and abs(right["y"] - left["y"]) < 40
    # The scale reads in Chinese (data, not code).
    expect(page.locator("#field-0")).to_contain_text("完全合格")
    # The running clock, once the page has ticked it, counts in Chinese too (issue 23: "1 s").
    page.wait_for_timeout(1500)
    expect(page.locator("#time-spent")).to_have_text(re.compile(r"^\d+ 秒$"))
    if os.environ.get("MEDREVIEW_SCREENSHOTS"):
        page.screenshot(path=str(ROOT / "docs" / "screenshots" / "rating-zh.png"), full_page=False)

    page.locator("#field-0").focus()
    page.keyboard.press("2")
    for _ in range(3):
        page.keyboard.press("y")
    page.keyboard.press("Enter")
    # Submitting swaps in the next page ("nothing left" here), in Chinese.
    expect(page.locator("main")).not_to_contain_text(NARRATIVE_ZH[:10])
    assignment = Assignment.objects.get(rater=physician_a)
    assert assignment.state == Assignment.State.SUBMITTED
    ids = sorted(TextTranslation.objects.values_list("pk", flat=True))
    versions = [r.text_version for r in Rating.objects.filter(assignment=assignment)]
    assert len(versions) == 4
    assert all(v == {"display": "both", "original_language": "zh", "translation_language": "en",
                     "translations": ids} for v in versions)


def test_a_physician_reviews_a_liveclin_set_in_the_chinese_interface(live_server, new_page, admin, physician_a,
                                                                       physician_b):
    from tests.i18n.test_liveclin_translations import _records
    from tests.liveclin.builders import import_liveclin, liveclin_study

    import_liveclin(1)
    from cases.translations import translations_import

    translations_import(dataset="LiveClin", release="2025H1", records=_records("o3", "第 1 组第 1 题：应选哪一项？"),
                        file_name="zh.jsonl", user=None)
    liveclin_study(admin, [physician_a, physician_b])
    physician_a.profile.language = "zh-hans"
    physician_a.profile.save(update_fields=["language"])
    page = new_page()
    sign_in(page, live_server, "physician_a", PASSWORD)
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")  # remembered on the profile
    page.focus("button.next-item")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/review/assignments/\d+/$"))
    phase = page.locator("#liveclin-phase")
    expect(phase).to_have_attribute("data-phase", "auditor")
    expect(phase).to_contain_text("第 1 阶段")
    expect(page.locator(".bilingual .translation [lang=zh-Hans]").first).to_contain_text("情境 1")
    expect(page.locator("#field-0 .bilingual .translation").first).to_contain_text("应选哪一项")
    expect(page.locator("#field-0")).to_contain_text("是")
    for english in ("Phase 1", "Submit", "My queue", "Scale", "Instructions"):
        expect(page.locator("main")).not_to_contain_text(english)
    page.locator("#field-0").focus()
    page.keyboard.press("y")
    page.keyboard.press("y")
    page.keyboard.press("Enter")
    expect(page.locator("#liveclin-phase")).to_have_attribute("data-phase", "examinee")
    expect(page.locator("#liveclin-phase")).to_contain_text("第 2 阶段")
    page.locator("#field-0").focus()
    page.keyboard.press("y")
    page.keyboard.press("y")
    page.keyboard.press("Enter")
    expect(page.locator("#liveclin-phase")).to_have_count(0)
    assignment = Assignment.objects.get(rater=physician_a)
    assert assignment.state == Assignment.State.SUBMITTED
    ids = sorted(TextTranslation.objects.values_list("pk", flat=True))
    assert {r.text_version["display"] for r in Rating.objects.filter(assignment=assignment)} == {"both"}
    assert all(r.text_version["translations"] == ids for r in Rating.objects.filter(assignment=assignment))
