"""Admin pages: the studies dashboard with its create form, study progress, adding people and items."""

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotation.models import Item, Study, StudyMember
from tests.annotation.test_views_support import claim_and_submit, make_running_study
from tests.conftest import login
from tests.factories import make_case, make_release


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
    assert "rate items of another kind" in response.content.decode()
    assert not Study.objects.exists()


def test_it_shows_study_progress_per_rater_and_task(client, admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=2)
    claim_and_submit(study, physician_a)
    response = login(client, admin).get(reverse("annotation:study_detail", args=[study.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "physician_a" in page and "physician_b" in page
    assert "Patient narrative &amp; query quality" in page
    assert "median time per item" in page and "42 s" in page
    assert "stuck in revision" in page


def test_it_shows_researchers_pseudonyms_not_names(client, admin, physician_a, physician_b, researcher):
    study = make_running_study(admin, [physician_a, physician_b])
    claim_and_submit(study, physician_a)
    page = login(client, researcher).get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert "R-physician_a" in page
    assert ">physician_a<" not in page
    assert "Add people" not in page


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
    done = claim_and_submit(study, physician_a)
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


def _count(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_it_keeps_admin_pages_to_a_fixed_number_of_queries(
    client, admin, physician_a, physician_b, django_assert_num_queries
):
    small = make_running_study(admin, [physician_a, physician_b], cases=1, name="Small")
    claim_and_submit(small, physician_a)
    login(client, admin)
    dashboard_small = _count(client, reverse("annotation:admin_dashboard"))
    detail_small = _count(client, reverse("annotation:study_detail", args=[small.pk]))

    large = make_running_study(admin, [physician_a, physician_b], cases=6, name="Large")
    make_running_study(admin, [physician_a, physician_b], cases=2, name="Third")
    for _ in range(6):
        claim_and_submit(large, physician_a)
        claim_and_submit(large, physician_b)
    with django_assert_num_queries(dashboard_small):
        client.get(reverse("annotation:admin_dashboard"))
    with django_assert_num_queries(detail_small):
        client.get(reverse("annotation:study_detail", args=[large.pk]))
