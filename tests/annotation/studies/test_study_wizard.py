"""What an admin meets creating a study (issue 24): lists instead of typing, a live item count, tasks
that fit the items, and the same refusals (0 items, tasks of another kind) on the page, in the API
and in `create_study`; groups, calibration threshold and hourly rate set at creation everywhere."""

from __future__ import annotations

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotation.models import Item, Study, StudyMember
from tests.conftest import login
from tests.factories import make_case, make_release

pytestmark = pytest.mark.django_db

NO_ITEMS = "No items match this selection"


def _wizard_data(**overrides) -> dict:
    data = {
        "name": "Wizard study", "tasks": ["narrative-quality"], "kind": "case", "dataset": "LiveMedBench",
        "release_label": "v1", "raters_per_item": "2", "inspect_disagreements": "on", "inspect_share": "0",
        "lease_minutes": "30", "currency": "EUR",
    }
    data.update(overrides)
    return data


@pytest.fixture
def two_cases(db):
    release = make_release(label="v1")
    return [make_case(release=release), make_case(release=release)]


def test_it_refuses_a_study_of_0_items_on_the_page_and_writes_nothing(client, admin, two_cases):
    make_release(label="walk-V2")  # a release with no cases: the typo of the issue, now picked from a list
    response = login(client, admin).post(reverse("annotation:study_new"),
                                         _wizard_data(release_label="walk-V2", start="on"))
    assert response.status_code == 400
    assert NO_ITEMS in response.content.decode()
    assert "release=&#x27;walk-V2&#x27;" in response.content.decode()
    assert not Study.objects.exists() and not Item.objects.exists()


def test_it_refuses_a_study_of_0_items_in_the_api(client, admin, two_cases):
    response = login(client, admin).post(
        reverse("annotation_api:study_list"),
        {"name": "Empty", "task_slugs": ["narrative-quality"], "kind": "case", "release_label": "nope"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert NO_ITEMS in str(response.json())
    assert not Study.objects.exists()


def test_it_refuses_a_study_of_0_items_in_the_command(admin, two_cases):
    with pytest.raises(CommandError, match=NO_ITEMS):
        call_command("create_study", "Empty", "--tasks", "narrative-quality", "--admin", "admin",
                     "--release", "walk-V2", "--start", stdout=StringIO())
    assert not Study.objects.exists()


def test_it_refuses_tasks_of_another_kind_in_the_api_in_words(client, admin, two_cases):
    response = login(client, admin).post(
        reverse("annotation_api:study_list"),
        {"name": "Mixed", "task_slugs": ["narrative-quality", "grader-reliability"], "kind": "case"},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "rates model responses, but this study's items are cases" in str(response.json())
    assert "ItemKind" not in str(response.json())
    assert not Study.objects.exists()


def test_it_offers_only_the_tasks_that_rate_the_chosen_kind(client, admin, two_cases):
    login(client, admin)
    page = client.get(reverse("annotation:study_new")).content.decode()
    assert 'value="narrative-quality"' in page and 'value="grader-reliability"' not in page
    preview = client.get(reverse("annotation:study_new_preview"), {"kind": "response"}).content.decode()
    assert 'value="grader-reliability"' in preview and 'value="narrative-quality"' not in preview
    # Translation consistency rates the translation of any item.
    assert 'value="translation-consistency"' in preview


def test_it_counts_the_items_the_filters_give_as_they_change(client, admin, two_cases):
    make_case(release=make_release(label="v2"))
    login(client, admin)
    url = reverse("annotation:study_new_preview")
    assert "3 items match these filters." in client.get(url, {"kind": "case"}).content.decode()
    assert "2 items match these filters." in client.get(url, {"kind": "case", "release_label": "v1"}).content.decode()
    assert "1 item matches these filters." in client.get(url, {"kind": "case", "sample_n": "1"}).content.decode()
    assert "No items match these filters" in client.get(url, {"kind": "response"}).content.decode()


def test_it_lists_the_releases_of_the_chosen_dataset(client, admin, two_cases):
    make_release(dataset_name="ClinConsensus", label="cc-2025")
    login(client, admin)
    url = reverse("annotation:study_new_preview")
    everything = client.get(url, {"kind": "case"}).content.decode()
    assert 'value="v1"' in everything and 'value="cc-2025"' in everything
    clin = client.get(url, {"kind": "case", "dataset": "ClinConsensus"}).content.decode()
    assert 'value="cc-2025"' in clin and 'value="v1"' not in clin


def test_it_creates_a_study_with_groups_calibration_and_cost_from_the_wizard(
    client, admin, physician_a, physician_b, inspector, two_cases
):
    response = login(client, admin).post(reverse("annotation:study_new"), _wizard_data(
        group_a=[physician_a.pk], group_b=[physician_b.pk], inspectors=[inspector.pk],
        calibration_percent="80", hourly_rate="24.50", start="on",
    ))
    study = Study.objects.get()
    assert response.status_code == 302
    assert study.items.count() == 2 and study.status == Study.Status.RUNNING
    assert study.calibration_threshold == 0.8
    assert study.hourly_rate == Decimal("24.50") and study.currency == "EUR"
    groups = dict(StudyMember.objects.filter(study=study, role="rater").values_list("user__username", "group"))
    assert groups == {"physician_a": "A", "physician_b": "B"}


def test_it_refuses_one_person_in_both_groups(client, admin, physician_a, two_cases):
    response = login(client, admin).post(reverse("annotation:study_new"), _wizard_data(
        group_a=[physician_a.pk], group_b=[physician_a.pk]))
    assert response.status_code == 400
    assert "physician_a cannot be in both groups." in response.content.decode()
    assert not Study.objects.exists()


def test_it_sets_groups_threshold_and_rate_through_the_api(client, admin, physician_a, physician_b, two_cases):
    response = login(client, admin).post(
        reverse("annotation_api:study_list"),
        {"name": "API study", "task_slugs": ["narrative-quality"], "kind": "case",
         "raters": ["physician_a", "physician_b"], "groups": {"physician_a": "A", "physician_b": "B"},
         "calibration_threshold": 0.75, "hourly_rate": "30.00", "currency": "CNY"},
        content_type="application/json",
    )
    assert response.status_code == 201, response.json()
    study = Study.objects.get()
    assert (study.calibration_threshold, study.hourly_rate, study.currency) == (0.75, Decimal("30.00"), "CNY")
    assert set(StudyMember.objects.filter(study=study).values_list("group", flat=True)) == {"A", "B"}


def test_it_refuses_a_group_for_someone_who_does_not_rate_in_the_api(client, admin, physician_a, two_cases):
    response = login(client, admin).post(
        reverse("annotation_api:study_list"),
        {"name": "API study", "task_slugs": ["narrative-quality"], "kind": "case", "groups": {"physician_a": "A"}},
        content_type="application/json",
    )
    assert response.status_code == 400
    assert "physician_a must be raters of the study" in str(response.json())
    assert not Study.objects.exists()


def test_it_sets_groups_threshold_and_rate_from_the_command(admin, physician_a, physician_b, two_cases):
    call_command("create_study", "CLI groups", "--tasks", "narrative-quality", "--admin", "admin",
                 "--group-a", "physician_a", "--group-b", "physician_b", "--calibration-threshold", "0.9",
                 "--hourly-rate", "20", "--currency", "GBP", stdout=StringIO())
    study = Study.objects.get()
    assert (study.calibration_threshold, study.hourly_rate, study.currency) == (0.9, Decimal("20"), "GBP")
    assert dict(study.memberships.values_list("user__username", "group")) == {"physician_a": "A", "physician_b": "B"}


def test_it_keeps_the_wizard_to_admins(client, physician_a, inspector, researcher, two_cases):
    for user in (physician_a, inspector, researcher):
        login(client, user)
        assert client.get(reverse("annotation:study_new")).status_code == 403
        assert client.post(reverse("annotation:study_new"), _wizard_data()).status_code == 403
        assert client.get(reverse("annotation:study_new_preview"), {"kind": "case"}).status_code == 403
    assert not Study.objects.exists()


def test_it_answers_wrong_methods_on_the_wizard_with_405(client, admin):
    login(client, admin)
    assert client.delete(reverse("annotation:study_new")).status_code == 405
    assert client.post(reverse("annotation:study_new_preview")).status_code == 405


def test_it_picks_rater_languages_and_specialties_from_lists_and_shows_ranks(client, admin, inspector, two_cases):
    login(client, admin)
    page = client.get(reverse("annotation:study_new")).content.decode()
    assert 'name="required_languages" value="zh"' in page and "inspector · " in page
    client.post(reverse("annotation:study_new"), _wizard_data(required_languages=["zh"],
                                                              required_specialties=["Internal Medicine"]))
    study = Study.objects.get()
    assert (study.required_languages, study.required_specialties) == (["zh"], ["Internal Medicine"])


def test_it_takes_the_same_reading_choices_in_the_api_and_the_command(client, admin, two_cases):
    response = login(client, admin).post(
        reverse("annotation_api:study_list"),
        {"name": "API reading", "task_slugs": ["narrative-quality"], "kind": "case", "text_display": "both",
         "translation_language": "zh-Hans"}, content_type="application/json")
    assert response.status_code == 201
    assert Study.objects.get(name="API reading").text_display == "both"
    call_command("create_study", "CLI reading", "--tasks", "narrative-quality", "--admin", "admin",
                 "--text-display", "translation", "--required-languages", "en,zh", "--lease-minutes", "45",
                 stdout=StringIO())
    cli = Study.objects.get(name="CLI reading")
    assert (cli.text_display, cli.required_languages, cli.lease_minutes) == ("translation", ["en", "zh"], 45)
