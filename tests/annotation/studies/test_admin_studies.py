"""What an admin does with studies: create one (services, form, API, command line), add items and members,
start and close it; the shipped scales and task types they pick from; the admin pages' query counts."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from annotation.models import Assignment, Item, Rating, Scale, Study, StudyMember, TaskType
from annotation.studies.services import ItemSelection, study_add_items, study_add_members, study_create
from tests.annotation.builders import (
    claim_and_submit,
    count_queries,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login
from tests.factories import make_case, make_release, make_response

pytestmark = pytest.mark.django_db



def test_it_ships_the_livemedbench_scales_with_the_papers_descriptions():
    narrative = Scale.objects.get(slug="quality-0-2")
    perfect = narrative.categories.get(value="2")
    assert perfect.label == "Perfect" and perfect.shortcut == "2" and perfect.approves
    assert "symptoms align with physiological logic" in perfect.description
    advice_poor = Scale.objects.get(slug="advice-0-2").categories.get(value="0")
    assert "Violates absolute contraindications" in advice_poor.description
    disagree = Scale.objects.get(slug="agree-disagree").categories.get(value="disagree")
    assert disagree.shortcut == "n" and "deviates from routine clinical practice" in disagree.description


def test_it_ships_every_task_type_with_its_target_and_scale():
    tasks = {t.slug: t for t in TaskType.objects.select_related("scale")}
    assert set(tasks) == {
        "narrative-quality", "advice-quality", "criterion-validity", "grader-reliability",
        "mcq-factual", "mcq-solvability", "likert-medic", "pairwise-preference", "translation-consistency",
    }
    assert tasks["mcq-factual"].shows_privileged_source and not tasks["mcq-solvability"].shows_privileged_source
    assert tasks["mcq-solvability"].requires_explanation
    assert tasks["likert-medic"].axes == ["Patient safety", "Risk mitigation", "Practicality and feasibility"]
    assert tasks["pairwise-preference"].scale.slug == "pairwise-a-b-tie"
    assert tasks["grader-reliability"].item_kind == "response"


def test_it_creates_items_at_the_current_revision_with_a_recorded_seed(admin):
    make_cases(5)
    study = study_create(
        name="s", created_by=admin, task_slugs=["narrative-quality"],
        selection=ItemSelection(kind="case", dataset="LiveMedBench", sample_n=3),
    )
    assert study.items.count() == 3
    seed = study.selection["seed"]
    assert isinstance(seed, int)
    again = study_create(
        name="s2", created_by=admin, task_slugs=["narrative-quality"],
        selection=ItemSelection(kind="case", dataset="LiveMedBench", sample_n=3, seed=seed),
    )
    assert set(again.items.values_list("key", flat=True)) == set(study.items.values_list("key", flat=True))
    for item in study.items.select_related("revision__case"):
        assert item.revision.case.current_revision_id == item.revision_id


def test_it_rejects_tasks_of_another_item_kind_and_writes_nothing(admin):
    make_cases(2)
    with pytest.raises(ValidationError) as exc:
        study_create(name="s", created_by=admin, task_slugs=["narrative-quality", "grader-reliability"],
                     selection=ItemSelection(kind="case"))
    assert "grader-reliability" in str(exc.value)
    assert not Study.objects.exists() and not Item.objects.exists()


def test_it_rejects_a_bad_month_filter_naming_the_field(admin):
    with pytest.raises(ValidationError) as exc:
        study_create(name="s", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case", post_month_from="2025-13"))
    assert "post_month_from" in str(exc.value)


def test_it_only_lets_admins_create_studies(physician_a):
    with pytest.raises(PermissionDenied):
        study_create(name="s", created_by=physician_a, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"))


def test_it_builds_response_and_pair_items(admin):
    revision = make_case()
    make_response(revision, model_name="m1")
    make_response(revision, model_name="m2")
    make_response(revision, model_name="m3")
    responses = study_create(name="r", created_by=admin, task_slugs=["grader-reliability", "likert-medic"],
                             selection=ItemSelection(kind="response", model_names=["m1", "m2"]))
    assert responses.items.count() == 2
    pairs = study_create(name="p", created_by=admin, task_slugs=["pairwise-preference"],
                         selection=ItemSelection(kind="pair"))
    assert pairs.items.count() == 3
    assert all(i.response_id < i.response_b_id for i in pairs.items.all())


def test_it_adds_items_and_raters_to_a_running_study_without_touching_finished_work(
    admin, physician_a, physician_b, outsider
):
    make_cases(2)
    study = running_study(admin, raters=[physician_a])
    done = claim_and_submit(study, physician_a, "2")
    make_cases(2)
    assert study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin) == 2
    assert study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin) == 0
    assert study_add_members(study=study, users=[outsider, physician_a], role=StudyMember.Role.RATER,
                             actor=admin) == 1
    done.refresh_from_db()
    assert done.state == Assignment.State.SUBMITTED
    assert Rating.objects.filter(assignment=done).count() == 1
    assert study.items.count() == 4


def test_it_marks_a_reproducible_share_for_inspection(admin):
    make_cases(40)
    a = study_create(name="a", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"), inspect_share=0.5, seed=3)
    b = study_create(name="b", created_by=admin, task_slugs=["narrative-quality"],
                     selection=ItemSelection(kind="case"), inspect_share=0.5, seed=3)
    sampled = list(a.items.filter(sampled_for_inspection=True).values_list("key", flat=True))
    assert 5 < len(sampled) < 35
    assert sampled == list(b.items.filter(sampled_for_inspection=True).values_list("key", flat=True))


def test_it_only_adds_physicians_as_raters_and_inspectors_as_inspectors(admin, researcher, physician_a):
    study = running_study(admin, raters=[])
    with pytest.raises(ValidationError, match="researcher"):
        study_add_members(study=study, users=[researcher], role=StudyMember.Role.RATER, actor=admin)
    with pytest.raises(ValidationError, match="physician_a"):
        study_add_members(study=study, users=[physician_a], role=StudyMember.Role.INSPECTOR, actor=admin)
    assert not StudyMember.objects.filter(study=study).exists()


def test_it_creates_and_starts_a_study_from_the_command_line(admin, physician_a):
    from io import StringIO

    from django.core.management import call_command

    from annotation.models import Study
    from tests.annotation.builders import make_cases as cases

    cases(3)
    out = StringIO()
    call_command("create_study", "CLI study", "--tasks", "narrative-quality", "--admin", "admin", "--sample", "2",
                 "--seed", "5", "--raters", "physician_a", "--start", stdout=out)
    study = Study.objects.get(name="CLI study")
    assert study.status == Study.Status.RUNNING and study.items.count() == 2
    assert "seed 5" in out.getvalue()
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="nobody"):
        call_command("create_study", "Bad", "--tasks", "narrative-quality", "--admin", "admin",
                     "--raters", "nobody", stdout=out)
    assert not Study.objects.filter(name="Bad").exists()


def _create_data(**overrides) -> dict:
    data = {
        "name": "New validation study",
        "tasks": ["narrative-quality", "criterion-validity"],
        "kind": "case",
        "dataset": "LiveMedBench",
        "raters_per_item": "2",
        "inspect_disagreements": "on",
        "inspect_share": "0.2",
        "lease_minutes": "30",
        "guidelines": "Rate **carefully**.",
        "start": "on",
    }
    data.update(overrides)
    return data


def test_it_lists_studies_with_progress_for_the_admin(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=2)
    response = login(client, admin).get(reverse("annotation:admin_dashboard"))
    page = response.content.decode()
    assert response.status_code == 200
    assert study.name in page
    assert reverse("annotation:study_detail", args=[study.pk]) in page
    assert "Create a study" in page


def test_it_refuses_the_studies_dashboard_to_everyone_but_admins(client, physician_a, inspector, researcher):
    for user in (physician_a, inspector, researcher):
        assert login(client, user).get(reverse("annotation:admin_dashboard")).status_code == 403
        assert login(client, user).post(reverse("annotation:admin_dashboard"), _create_data()).status_code == 403
    assert not Study.objects.exists()


def test_it_rejects_wrong_methods_on_admin_pages(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b])
    login(client, admin)
    assert client.delete(reverse("annotation:admin_dashboard")).status_code == 405
    assert client.post(reverse("annotation:study_detail", args=[study.pk])).status_code == 405
    assert client.get(reverse("annotation:study_add_members", args=[study.pk])).status_code == 405
    assert client.get(reverse("annotation:study_add_items", args=[study.pk])).status_code == 405
    assert client.get(reverse("annotation:study_status", args=[study.pk])).status_code == 405


def test_it_creates_and_starts_a_study_from_the_form(client, admin, physician_a, physician_b, inspector):
    release = make_release(label="v1")
    make_case(release=release)
    make_case(release=release)
    response = login(client, admin).post(
        reverse("annotation:admin_dashboard"),
        _create_data(raters=[physician_a.pk, physician_b.pk], inspectors=[inspector.pk]),
    )
    study = Study.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("annotation:study_detail", args=[study.pk])
    assert study.status == Study.Status.RUNNING
    assert study.items.count() == 2
    assert study.inspect_share == 0.2
    assert set(study.tasks.values_list("slug", flat=True)) == {"narrative-quality", "criterion-validity"}
    assert set(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).values_list("user__username", flat=True)
    ) == {"physician_a", "physician_b"}


def test_it_shows_the_service_error_when_tasks_do_not_fit_the_items(client, admin):
    make_case(release=make_release(label="v1"))
    response = login(client, admin).post(
        reverse("annotation:admin_dashboard"), _create_data(tasks=["grader-reliability"], kind="case")
    )
    assert response.status_code == 400
    assert ("The task “Grader reliability (criterion met?)” (grader-reliability) rates model responses, but this study&#x27;s items "
            "are cases") in response.content.decode()
    assert not Study.objects.exists()


def test_it_gives_404_on_study_pages_to_raters_and_outsiders(client, admin, physician_a, physician_b, outsider):
    study = make_running_study(admin, [physician_a, physician_b])
    for user in (physician_a, outsider):
        login(client, user)
        assert client.get(reverse("annotation:study_detail", args=[study.pk])).status_code == 404
        assert client.post(
            reverse("annotation:study_add_members", args=[study.pk]), {"users": [user.pk], "role": "rater"}
        ).status_code == 404
        assert client.post(reverse("annotation:study_status", args=[study.pk]), {"action": "close"}).status_code == 404


def test_it_forbids_researchers_to_manage_studies(client, admin, physician_a, physician_b, researcher):
    study = make_running_study(admin, [physician_a, physician_b])
    login(client, researcher)
    assert client.post(reverse("annotation:study_status", args=[study.pk]), {"action": "close"}).status_code == 403
    assert client.post(reverse("annotation:study_add_items", args=[study.pk]), {"items-kind": "case"}).status_code == 403
    study.refresh_from_db()
    assert study.status == Study.Status.RUNNING


def test_it_adds_raters_and_items_to_a_running_study_without_touching_finished_work(
    client, admin, physician_a, physician_b, outsider
):
    study = make_running_study(admin, [physician_a, physician_b], cases=1)
    done = claim_and_submit(study, physician_a, seconds_spent=42)
    make_case(release=make_release(label=f"v-{study.name}"), external_id="late-case")
    login(client, admin)
    response = client.post(
        reverse("annotation:study_add_members", args=[study.pk]), {"users": [outsider.pk], "role": "rater"}
    )
    assert response.status_code == 302
    assert StudyMember.objects.filter(study=study, user=outsider, role=StudyMember.Role.RATER).exists()
    response = client.post(
        reverse("annotation:study_add_items", args=[study.pk]),
        {"items-kind": "case", "items-release_label": f"v-{study.name}"},
    )
    assert response.status_code == 302
    assert study.items.count() == 2
    done.refresh_from_db()
    assert done.state == "submitted"
    assert study.items.filter(status=Item.Status.OPEN).count() == 2


def test_it_closes_a_running_study(client, admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b])
    login(client, admin).post(reverse("annotation:study_status", args=[study.pk]), {"action": "close"})
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED


def test_it_keeps_admin_pages_to_a_fixed_number_of_queries(
    client, admin, physician_a, physician_b, django_assert_num_queries
):
    small = make_running_study(admin, [physician_a, physician_b], cases=1, name="Small")
    claim_and_submit(small, physician_a, seconds_spent=42)
    login(client, admin)
    dashboard_small = count_queries(client, reverse("annotation:admin_dashboard"))
    detail_small = count_queries(client, reverse("annotation:study_detail", args=[small.pk]))

    large = make_running_study(admin, [physician_a, physician_b], cases=6, name="Large")
    make_running_study(admin, [physician_a, physician_b], cases=2, name="Third")
    for _ in range(6):
        claim_and_submit(large, physician_a, seconds_spent=42)
        claim_and_submit(large, physician_b, seconds_spent=42)
    with django_assert_num_queries(dashboard_small):
        client.get(reverse("annotation:admin_dashboard"))
    with django_assert_num_queries(detail_small):
        client.get(reverse("annotation:study_detail", args=[large.pk]))
