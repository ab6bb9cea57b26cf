"""Calibration and expert groups from the study page (issue 24): calibration items picked from the item
list and answered on a rating-like form (no JSON, no internal keys), the admission threshold there;
raters told an item is a calibration item and, when they wait for admission, told so; expert groups
set on the page, in the API and with a command, and the report's group tables following them."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from agreement.reports import build_report
from agreement.selectors import Selection
from annotation.models import Item, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.agreement.builders import make_study, reliability_study
from tests.annotation.builders import make_running_study
from tests.conftest import login, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(admin, physician_a, physician_b):
    return make_running_study(admin, [physician_a, physician_b], cases=3, tasks=("narrative-quality",))


def _candidate(study):
    return study.items.order_by("pk").first()


def test_it_lists_the_items_that_can_become_calibration_items_without_internal_keys(client, admin, study):
    page = login(client, admin).get(reverse("annotation:study_calibration", args=[study.pk])).content.decode()
    for item in study.items.all():
        assert reverse("annotation:calibration_item", args=[study.pk, item.pk]) in page
    assert "case:" not in page and "JSON" not in page


def test_it_marks_a_calibration_item_from_a_rating_like_form(client, admin, study):
    item = _candidate(study)
    url = reverse("annotation:calibration_item", args=[study.pk, item.pk])
    form = login(client, admin).get(url).content.decode()
    assert 'type="radio" name="label-0" value="2"' in form and "narrative-quality|" not in form
    response = client.post(url, {"label-0": "2", "explanation-0": "Complete history, clear query."})
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.status == Item.Status.CALIBRATION
    assert item.expected == {"narrative-quality|": {"label": "2", "explanation": "Complete history, clear query."}}


def test_it_keeps_what_was_entered_and_marks_the_missing_answer(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=1,
                               tasks=("narrative-quality", "advice-quality"))
    item = _candidate(study)
    url = reverse("annotation:calibration_item", args=[study.pk, item.pk])
    response = login(client, admin).post(url, {"label-0": "1", "explanation-0": "Kept text"})
    page = response.content.decode()
    assert response.status_code == 400
    assert "1 field needs an expected answer; it is marked below." in page
    assert "Choose the expected answer." in page
    assert 'value="1" checked' in page and "Kept text" in page
    item.refresh_from_db()
    assert item.status == Item.Status.OPEN and item.expected == {}


def test_it_sets_and_clears_the_admission_threshold_on_the_page(client, admin, study):
    url = reverse("annotation:calibration_threshold", args=[study.pk])
    login(client, admin).post(url, {"percent": "80"})
    study.refresh_from_db()
    assert study.calibration_threshold == 0.8
    client.post(url, {"percent": "180"})
    study.refresh_from_db()
    assert study.calibration_threshold == 0.8
    client.post(url, {"percent": ""})
    study.refresh_from_db()
    assert study.calibration_threshold is None


def test_it_tells_the_rater_an_item_is_a_calibration_item_and_then_that_they_wait(
    client, admin, study, physician_a
):
    item = _candidate(study)
    login(client, admin).post(reverse("annotation:calibration_item", args=[study.pk, item.pk]), {"label-0": "2"})
    login(client, physician_a)
    response = client.post(reverse("annotation:next_item", args=[study.pk]))
    assignment = assignment_claim_next(study=study, rater=physician_a)
    assert assignment.item_id == item.pk
    assert "Calibration item" in client.get(reverse("annotation:rate", args=[assignment.pk])).content.decode()
    rating_submit(assignment=assignment, rater=physician_a, seconds_spent=5,
                  labels={"narrative-quality|": {"label": "2", "comment": ""}})
    page = client.post(reverse("annotation:next_item", args=[study.pk])).content.decode()
    assert "Waiting for admission" in page and "you have rated every item" not in page
    assert response.status_code in (200, 302)


def test_it_keeps_the_calibration_pages_to_admins(client, study, physician_a, researcher, outsider):
    item = _candidate(study)
    for user, code in ((researcher, 403), (physician_a, 404), (outsider, 404)):
        login(client, user)
        assert client.get(reverse("annotation:calibration_item", args=[study.pk, item.pk])).status_code == code
        assert client.post(reverse("annotation:calibration_threshold", args=[study.pk]),
                           {"percent": "50"}).status_code == code
    item.refresh_from_db()
    assert item.status == Item.Status.OPEN


def test_it_answers_wrong_methods_on_calibration_and_group_pages(client, admin, study):
    login(client, admin)
    assert client.delete(reverse("annotation:calibration_item", args=[study.pk, _candidate(study).pk])).status_code == 405
    assert client.get(reverse("annotation:calibration_threshold", args=[study.pk])).status_code == 405
    assert client.get(reverse("annotation:study_groups", args=[study.pk])).status_code == 405


def test_it_sets_expert_groups_on_the_study_page(client, admin, study, physician_a, physician_b):
    login(client, admin)
    page = client.get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert f'name="group-{physician_a.pk}"' in page
    client.post(reverse("annotation:study_groups", args=[study.pk]),
                {f"group-{physician_a.pk}": "A", f"group-{physician_b.pk}": "B"})
    assert dict(StudyMember.objects.filter(study=study).values_list("user__username", "group")) == {
        "physician_a": "A", "physician_b": "B"}
    response = client.post(reverse("annotation:study_groups", args=[study.pk]), {f"group-{physician_a.pk}": "C"},
                           follow=True)
    assert "a group is A or B" in response.content.decode()


def test_it_keeps_the_groups_to_admins(client, study, physician_a, researcher, outsider):
    for user, code in ((researcher, 403), (physician_a, 404), (outsider, 404)):
        login(client, user)
        assert client.post(reverse("annotation:study_groups", args=[study.pk]),
                           {f"group-{physician_a.pk}": "A"}).status_code == code
        assert client.post(reverse("annotation_api:study_groups", args=[study.pk]), {"groups": {"physician_a": "A"}},
                           content_type="application/json").status_code == code
    assert set(StudyMember.objects.filter(study=study).values_list("group", flat=True)) == {""}


def test_it_sets_expert_groups_through_the_api(client, admin, study):
    login(client, admin)
    url = reverse("annotation_api:study_groups", args=[study.pk])
    response = client.post(url, {"groups": {"physician_a": "A", "physician_b": "B"}}, content_type="application/json")
    assert response.status_code == 200
    assert response.json() == {"groups": {"physician_a": "A", "physician_b": "B"}}
    assert client.get(url).json() == {"groups": {"physician_a": "A", "physician_b": "B"}}
    assert client.post(url, {"groups": {"nobody": "A"}}, content_type="application/json").status_code == 400
    assert client.put(url, {}, content_type="application/json").status_code == 405


def test_it_sets_expert_groups_with_a_command(admin, study):
    out = StringIO()
    call_command("set_groups", str(study.pk), "--admin", "admin", "--group-a", "physician_a",
                 "--group-b", "physician_b", stdout=out)
    assert "physician_a=A, physician_b=B" in out.getvalue()
    with pytest.raises(CommandError, match="not raters of this study"):
        call_command("set_groups", str(study.pk), "--admin", "admin", "--group-a", "admin", stdout=out)


def test_it_shows_the_group_tables_in_the_report_once_groups_are_set_on_the_page(
    client, admin, physician_a, physician_b, inspector
):
    extra = make_user("physician_c", role="physician")
    raters = [physician_a, extra, physician_b, inspector]
    study = make_study()
    for user in raters:
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER)
    reliability_study(raters, n_cases=3, study=study)
    assert build_report(Selection(study_id=study.pk)).table("expert_groups") is None
    login(client, admin).post(reverse("annotation:study_groups", args=[study.pk]), {
        f"group-{physician_a.pk}": "A", f"group-{extra.pk}": "A",
        f"group-{physician_b.pk}": "B", f"group-{inspector.pk}": "B"})
    table = build_report(Selection(study_id=study.pk)).table("expert_groups")
    assert table is not None and "by study design" in table.note


def test_it_does_not_serve_a_cached_report_from_before_the_groups_changed(
    client, admin, physician_a, physician_b, inspector
):
    from agreement.reports import cached_report

    extra = make_user("physician_c", role="physician")
    raters = [physician_a, extra, physician_b, inspector]
    study = make_study()
    for user in raters:
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER)
    reliability_study(raters, n_cases=3, study=study)
    assert cached_report(Selection(study_id=study.pk)).table("expert_groups") is None
    for user, group in zip(raters, "AABB", strict=True):
        StudyMember.objects.filter(study=study, user=user).update(group=group)
    assert cached_report(Selection(study_id=study.pk)).table("expert_groups") is not None


def test_it_tells_a_rater_on_their_queue_that_the_study_starts_with_calibration(client, admin, study, physician_a):
    item = _candidate(study)
    login(client, physician_a)
    assert "starts with a calibration round" not in client.get(reverse("annotation:physician_dashboard")).content.decode()
    login(client, admin).post(reverse("annotation:calibration_item", args=[study.pk, item.pk]), {"label-0": "2"})
    login(client, physician_a)
    assert "starts with a calibration round" in client.get(reverse("annotation:physician_dashboard")).content.decode()
