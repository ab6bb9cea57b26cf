"""Issue 20: a study's minimum inspector rank is enforced where people are added, not only when they
act: the service, the study page, the API and the `create_study` command refuse an inspector below
it and say why; nobody is added and no half-made study is left behind."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.models import Rank, Role
from annotation.models import Study, StudyMember
from annotation.studies.services import ItemSelection, study_add_members, study_create
from tests.annotation.builders import api_client_for, make_cases
from tests.conftest import login, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def junior(db):
    return make_user("junior", role=Role.INSPECTOR, rank=Rank.ATTENDING)


@pytest.fixture
def senior_study(admin) -> Study:
    make_cases(1)
    return study_create(name="Senior inspection", created_by=admin, task_slugs=["narrative-quality"],
                        selection=ItemSelection(kind="case"), min_inspector_rank=Rank.ASSOCIATE_CHIEF)


def test_the_service_refuses_an_inspector_below_the_rank_and_says_why(admin, junior, inspector, senior_study):
    with pytest.raises(ValidationError) as error:
        study_add_members(study=senior_study, users=[inspector, junior], role=StudyMember.Role.INSPECTOR,
                          actor=admin)
    message = " ".join(error.value.messages)
    assert "junior" in message and "Attending" in message and "Associate Chief" in message
    assert not StudyMember.objects.filter(study=senior_study).exists()  # not even the senior one
    assert study_add_members(study=senior_study, users=[inspector], role=StudyMember.Role.INSPECTOR,
                             actor=admin) == 1


def test_a_junior_may_still_rate_in_a_senior_study(admin, junior, senior_study):
    assert study_add_members(study=senior_study, users=[junior], role=StudyMember.Role.RATER, actor=admin) == 1


def test_the_study_page_refuses_with_the_reason(client, admin, junior, senior_study):
    response = login(client, admin).post(reverse("annotation:study_add_members", args=[senior_study.pk]),
                                         {"users": [junior.pk], "role": "inspector"}, follow=True)
    page = response.content.decode()
    assert "junior" in page and "Associate Chief" in page
    assert not StudyMember.objects.filter(study=senior_study).exists()


def test_the_api_refuses_with_the_reason_and_creates_no_study(admin, junior, senior_study):
    before = Study.objects.count()
    response = api_client_for(admin).post(reverse("annotation_api:study_list"), {
        "name": "Refused", "task_slugs": ["narrative-quality"], "kind": "case",
        "min_inspector_rank": "associate_chief", "inspectors": ["junior"],
    }, format="json")
    assert response.status_code == 400
    assert "Associate Chief" in response.content.decode()
    assert Study.objects.count() == before


def test_the_command_refuses_with_the_reason_and_creates_no_study(admin, junior):
    make_cases(1)
    with pytest.raises(CommandError, match="Associate Chief"):
        call_command("create_study", "Refused", "--tasks", "narrative-quality", "--admin", "admin",
                     "--min-inspector-rank", "associate_chief", "--inspectors", "junior")
    assert not Study.objects.filter(name="Refused").exists()


def test_the_command_sets_the_studys_options(admin, inspector):
    make_cases(1)
    call_command("create_study", "Senior", "--tasks", "narrative-quality", "--admin", "admin",
                 "--min-inspector-rank", "chief", "--show-prescreen", "--inspectors", "inspector")
    study = Study.objects.get(name="Senior")
    assert study.min_inspector_rank == "chief" and study.show_prescreen


def test_the_inspection_queue_leaves_out_a_study_whose_rank_the_inspector_lacks_and_says_why(
    client, admin, junior, senior_study
):
    # A membership from before the rank was enforced at the door.
    StudyMember.objects.create(study=senior_study, user=junior, role=StudyMember.Role.INSPECTOR)
    page = login(client, junior).get(reverse("annotation:inspector_dashboard")).content.decode()
    assert 'id="rank-notice"' in page and "Senior inspection" in page and "Associate Chief" in page
    assert f'<option value="{senior_study.pk}"' not in page
