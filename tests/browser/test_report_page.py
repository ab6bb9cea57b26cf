"""The agreement report page at 1280 px: every table fits without sideways scrolling, headers are
words, and the MEDIC and ClinConsensus tables show. With MEDREVIEW_SCREENSHOTS=1 it also writes
docs/screenshots/agreement-report.png (how the screenshot in docs/agreement.md was made)."""

from __future__ import annotations

import os
from pathlib import Path

from annotation.catalogue import LIKERT_MEDIC, MEDIC_AXES
from annotation.models import TaskType
from graders.models import GraderKind, GraderRun, JudgeScore
from tests.agreement.builders import rate, reliability_study
from tests.browser.conftest import sign_in
from tests.conftest import PASSWORD

SCREENSHOT = Path(__file__).resolve().parents[2] / "docs" / "screenshots" / "agreement-report.png"


def _likert_labels(study, raters) -> None:
    """Each response of the study also rated 1-5 on the MEDIC axes, and scored by a Likert judge."""
    task = TaskType.objects.get(slug=LIKERT_MEDIC.slug)
    study.tasks.add(task)
    judge = GraderRun.objects.create(name="Llama-3.1-70B Likert judge", kind=GraderKind.LIKERT_JUDGE,
                                     grader_model="llama-3.1-70b")
    items = list(study.items.filter(response__isnull=False).select_related("response"))
    for n, item in enumerate(items):
        for r, rater in enumerate(raters):
            for a, axis in enumerate(MEDIC_AXES):
                rate(item, rater, task, str(1 + (n + r + 2 * a) % 5), field_key=f"axis:{axis}")
        for a, axis in enumerate(MEDIC_AXES):
            raw = 1 + (n + a + 1) % 5
            JudgeScore.objects.create(run=judge, response=item.response, axis=axis, raw_score=raw,
                                      normalized_score=(raw - 1) / 4)


def test_the_report_page_fits_1280_px_with_readable_headers(
    new_page, live_server, researcher, physician_a, physician_b, inspector
):
    raters = [physician_a, physician_b, inspector]
    data = reliability_study(raters, n_cases=6, n_runs=2)
    _likert_labels(data.study, raters)

    page = new_page()
    sign_in(page, live_server, "researcher", PASSWORD)
    page.goto(f"{live_server.url}/reports/study/{data.study.pk}/?tau=2")
    page.wait_for_load_state("networkidle")
    html = page.content()
    for title in ("Grader reliability", "Judge minus clinician per axis", "Coverage per model",
                  "Sensitivity of the ranking to tau"):
        assert title in html
    assert "ac1 ci low" not in html and "Gwet's AC1 [95% CI], p" in html
    # Each table fits its box at 1280 px (below 1000 px the box scrolls: test_researcher_pages_narrow).
    overflowing = page.evaluate("""() => [...document.querySelectorAll('.agreement-table, .table-fit')]
        .filter(s => s.scrollWidth > s.clientWidth + 1).map(s => s.closest('section').id)""")
    assert overflowing == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    if os.environ.get("MEDREVIEW_SCREENSHOTS") == "1":
        page.evaluate("document.querySelector('#table-data_quality').scrollIntoView()")
        page.screenshot(path=str(SCREENSHOT), full_page=False)
        page.evaluate("document.querySelector('#table-judge_vs_clinician').scrollIntoView()")
        page.screenshot(path=str(SCREENSHOT.with_name("agreement-report-medic.png")), full_page=False)
