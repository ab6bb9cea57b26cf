"""Issue 24 in the browser: the study wizard refuses 0 items and tasks of another kind in words, an
invitation is sent, accepted and used, a calibration round is set up and a rater admitted without
JSON, expert groups set on the study page appear in the report; and the new pages at 390 px."""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.urls import reverse

from annotation.models import Item, Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.agreement.builders import make_study, reliability_study
from tests.annotation.builders import make_running_study
from tests.browser.conftest import sign_in
from tests.browser.narrow import PHONE, narrow_findings
from tests.conftest import PASSWORD, make_user
from tests.factories import make_case, make_release


def _swapped(page, action, *, requests: int) -> None:
    """Do `action` and wait until the wizard's htmx answers to it have arrived and settled."""
    answers: list = []

    def finished(request) -> None:
        answers.append(request)

    page.on("requestfinished", finished)
    action()
    for _ in range(100):
        if sum("/studies/new/preview/" in r.url for r in answers) >= requests:
            break
        page.wait_for_timeout(100)
    page.wait_for_timeout(200)  # htmx settles the swapped element (its default settle delay is 20 ms)
    page.remove_listener("requestfinished", finished)


@pytest.fixture
def admin_user(transactional_db):
    return make_user("admin", role="admin")


def test_the_wizard_refuses_0_items_and_tasks_of_another_kind(new_page, live_server, admin_user):
    release = make_release(label="walk-V1")
    make_case(release=release)
    make_case(release=release)
    make_release(label="walk-V2")  # imported, but holds no case of its own
    page = new_page()
    sign_in(page, live_server, "admin", PASSWORD)
    page.goto(f"{live_server.url}{reverse('annotation:study_new')}")
    page.fill("#id_name", "Typo study")
    _swapped(page, lambda: page.select_option("#id_dataset", "LiveMedBench"), requests=2)  # count, releases
    page.locator("#release-choice select").select_option("walk-V2")
    preview = page.locator("#study-preview")
    preview.get_by_text("No items match these filters").wait_for()
    page.check("input[name=tasks][value=narrative-quality]")
    page.click("button[type=submit].primary")
    page.get_by_text("No items match this selection").wait_for()
    assert not Study.objects.exists()

    page.locator("#release-choice select").select_option("walk-V1")
    preview.get_by_text("2 items match these filters.").wait_for()
    _swapped(page, lambda: page.select_option("#id_kind", "response"), requests=2)  # the tasks follow the kind
    page.locator("#task-choices input[value=grader-reliability]").wait_for()
    assert page.locator("#task-choices input[value=narrative-quality]").is_checked()  # chosen, so still shown
    page.click("button[type=submit].primary")
    page.get_by_text("rates cases, but this study's items are model responses").wait_for()
    assert not Study.objects.exists()

    _swapped(page, lambda: page.select_option("#id_kind", "case"), requests=2)
    page.locator("#task-choices input[value=grader-reliability]").wait_for(state="detached")
    page.click("button[type=submit].primary")
    page.get_by_text("created with 2 items").wait_for()
    assert Study.objects.get().items.count() == 2


def test_an_invitation_is_sent_accepted_and_used(new_page, live_server, admin_user):
    page = new_page()
    sign_in(page, live_server, "admin", PASSWORD)
    page.goto(f"{live_server.url}{reverse('accounts:people')}")
    page.fill("#id_email", "li.wei@hospital.example")
    page.select_option("#id_role", "physician")
    page.select_option("#id_rank", "attending")
    page.check("input[name=languages][value=zh]")
    page.fill("#id_other_specialties", "Cardiology")
    page.click("text=Send the invitation")
    page.get_by_text("Invitation e-mailed to li.wei@hospital.example").wait_for()
    assert page.locator("td", has_text="li.wei").first.is_visible()  # pending
    link = re.search(r"(/accounts/invitation/\S+)", mail.outbox[-1].body).group(1)

    invitee = new_page()
    invitee.goto(f"{live_server.url}{link}")
    invitee.fill("#id_new_password1", "a-long-Passphrase-2026")
    invitee.fill("#id_new_password2", "a-long-Passphrase-2026")
    invitee.click("button:has-text('Set password')")
    invitee.wait_for_url(re.compile(r"/accounts/login/"))
    sign_in(invitee, live_server, "li.wei", "a-long-Passphrase-2026")
    invitee.get_by_role("link", name="My queue").wait_for()
    page.goto(f"{live_server.url}{reverse('accounts:people')}")
    page.get_by_text("No pending invitations.").wait_for()


def test_a_calibration_round_is_set_up_and_a_rater_admitted_without_json(new_page, live_server, admin_user):
    physician = make_user("physician_a", role="physician")
    study = make_running_study(admin_user, [physician], cases=2, tasks=("narrative-quality",), raters_per_item=1)
    admin = new_page()
    sign_in(admin, live_server, "admin", PASSWORD)
    admin.goto(f"{live_server.url}{reverse('annotation:study_calibration', args=[study.pk])}")
    assert "JSON" not in admin.content() and "case:" not in admin.content()
    admin.get_by_role("link", name="Make it a calibration item").first.click()
    admin.click("button:has-text('Save the expected answers')")  # nothing chosen: refused, marked
    admin.get_by_text("1 field needs an expected answer; it is marked below.").wait_for()
    admin.locator("input[name=label-0][value='2']").check()
    admin.fill("#explanation-0", "Complete history and a clear question.")
    admin.click("button:has-text('Save the expected answers')")
    admin.get_by_text("is a calibration item now").wait_for()
    assert study.items.filter(status=Item.Status.CALIBRATION).count() == 1

    rater = new_page()
    sign_in(rater, live_server, "physician_a", PASSWORD)
    assignment = assignment_claim_next(study=study, rater=physician)
    rater.goto(f"{live_server.url}{reverse('annotation:rate', args=[assignment.pk])}")
    rater.get_by_text("Calibration item", exact=True).wait_for()
    rating_submit(assignment=assignment, rater=physician, seconds_spent=5,
                  labels={"narrative-quality|": {"label": "2", "comment": ""}})
    rater.goto(f"{live_server.url}{reverse('annotation:physician_dashboard')}")
    rater.locator(f"form[action='{reverse('annotation:next_item', args=[study.pk])}'] button").first.click()
    rater.get_by_text("Waiting for admission").wait_for()

    admin.goto(f"{live_server.url}{reverse('annotation:study_calibration', args=[study.pk])}")
    admin.fill("#id_percent", "")
    admin.click("button:has-text('Admit')")
    admin.get_by_text("admitted to the main queue").wait_for()
    assert StudyMember.objects.get(study=study, user=physician).admitted_at is not None
    rater.goto(f"{live_server.url}{reverse('annotation:physician_dashboard')}")
    rater.locator(f"form[action='{reverse('annotation:next_item', args=[study.pk])}'] button").first.click()
    rater.wait_for_url(re.compile(r"/review/assignments/\d+/"))
    assert "Calibration item" not in rater.locator(".rate-page").inner_text()


def test_groups_set_on_the_study_page_appear_in_the_report(new_page, live_server, admin_user):
    raters = [make_user(f"physician_{n}", role="physician") for n in "abcd"]
    study = make_study()
    for user in raters:
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER)
    reliability_study(raters, n_cases=3, study=study)
    page = new_page()
    sign_in(page, live_server, "admin", PASSWORD)
    page.goto(f"{live_server.url}{reverse('agreement:report', args=[study.pk])}")
    assert page.locator("#table-expert_groups").count() == 0
    page.goto(f"{live_server.url}{reverse('annotation:study_detail', args=[study.pk])}")
    for user, group in zip(raters, "AABB", strict=True):
        page.select_option(f"#group-{user.pk}", group)
    page.click("button:has-text('Save the groups')")
    page.get_by_text("4 raters' groups changed.").wait_for()
    page.goto(f"{live_server.url}{reverse('agreement:report', args=[study.pk])}")
    table = page.locator("#table-expert_groups")
    table.wait_for()
    assert "by study design" in table.inner_text()


def test_the_new_admin_pages_do_not_scroll_sideways_at_390_px(chromium, live_server, admin_user):
    physician = make_user("physician_a", role="physician")
    study = make_running_study(admin_user, [physician], cases=2, tasks=("narrative-quality",), raters_per_item=1)
    item = study.items.order_by("pk").first()
    pages = {
        "wizard": reverse("annotation:study_new"), "studies": reverse("annotation:admin_dashboard"),
        "study": reverse("annotation:study_detail", args=[study.pk]),
        "calibration": reverse("annotation:study_calibration", args=[study.pk]),
        "expected answers": reverse("annotation:calibration_item", args=[study.pk, item.pk]),
        "people": reverse("accounts:people"), "effort": reverse("annotation:effort_overview"),
    }
    context = chromium.new_context(viewport=PHONE, locale="en-US", timezone_id="UTC", has_touch=True, is_mobile=True)
    page = context.new_page()
    sign_in(page, live_server, "admin", PASSWORD)
    wide, inaccessible = narrow_findings(page, live_server.url, pages)
    context.close()
    assert wide == {}, "\n".join(f"{k}: {v}" for k, v in wide.items())
    assert inaccessible == {}, "\n".join(f"{k}: {v}" for k, v in inaccessible.items())
