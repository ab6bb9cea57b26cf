"""Researcher and admin pages outside the review screens at 390 px (a phone held upright): the page
never scrolls sideways; a wide table scrolls inside its own box instead, which a keyboard can reach
(axe-core finds no critical or serious violation on any of them).

Pages: the report index and a report, the import page and an import job, grader configurations (list
and form) and grading jobs (list, form, detail), the releases, a release and a case. Data: the demo
data set with the demo graders run against the local fake endpoint, so every page has its real
content (tables of grader runs, chart images, import reports).
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.models import Study
from cases.models import Case, Release
from cases.services import import_job_create
from demo.graders import DEMO_GRADERS, DEMO_KEY_ENV
from graders import services
from graders.models import GraderConfig, GradingJob
from tests.browser.conftest import sign_in
from tests.browser.narrow import PHONE, narrow_findings
from tests.graders.conftest import fake_server  # noqa: F401  (fixture)

DEMO_PASSWORD = "demo-pass-2026"
DEMO_DATA = Path(__file__).resolve().parents[2] / "demo" / "data"



@pytest.fixture
def demo_site(db, fake_server, monkeypatch, django_capture_on_commit_callbacks):  # noqa: F811
    call_command("load_demo", stdout=StringIO())
    monkeypatch.setenv(DEMO_KEY_ENV, "demo")
    grading = Study.objects.get(name="Demo: grader reliability")
    for name, _kind in DEMO_GRADERS[:2]:  # the rubric grader and the LLM judge grade that study
        config = GraderConfig.objects.get(name=name)
        config.base_url = fake_server.base_url
        config.save(update_fields=["base_url"])
        with django_capture_on_commit_callbacks(execute=True):
            services.grading_job_create(config=config, selection={"study": grading.pk}, created_by=None)
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.get(username="admin1")
    job = import_job_create(user=admin, fmt="generic", data=(DEMO_DATA / "generic_cases.json").read_bytes(),
                            file_name="generic_cases.json", dataset_name="ClinConsensus", release_label="v2")
    release = Release.objects.order_by("pk").first()
    return {
        "report index": reverse("agreement:report_index"),
        "report": reverse("agreement:report", args=[grading.pk]),
        "release report": reverse("agreement:release_report", args=[release.pk]),
        "import page": reverse("cases:import_upload"),
        "import job": reverse("cases:import_job", args=[job.pk]),
        "grader configs": reverse("graders:config_list"),
        "grader config form": reverse("graders:config_edit", args=[GraderConfig.objects.order_by("pk").first().pk]),
        "grading jobs": reverse("graders:job_list"),
        "new grading job": reverse("graders:job_create"),
        "grading job": reverse("graders:job_detail", args=[GradingJob.objects.order_by("pk").first().pk]),
        "releases": reverse("cases:release_list"),
        "release": reverse("cases:release_detail", args=[release.pk]),
        "case": reverse("cases:case_detail", args=[Case.objects.order_by("pk").first().pk]),
    }


def test_researcher_and_admin_pages_do_not_scroll_sideways_at_390_px(chromium, live_server, demo_site):
    context = chromium.new_context(viewport=PHONE, locale="en-US", timezone_id="UTC", has_touch=True,
                                   is_mobile=True)
    page = context.new_page()
    sign_in(page, live_server, "admin1", DEMO_PASSWORD)
    wide, inaccessible = narrow_findings(page, live_server.url, demo_site)
    context.close()
    assert wide == {}, "\n".join(f"{k}: {v}" for k, v in wide.items())
    assert inaccessible == {}, "\n".join(f"{k}: {v}" for k, v in inaccessible.items())
