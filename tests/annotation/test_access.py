"""annotation.access: who may fetch which study, assignment and item (404 hides, 403 forbids writes)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotation import access
from annotation.services import assignment_claim_next
from tests.annotation.test_services_fixtures import claim_and_submit, make_cases, running_study
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    make_cases(2)
    return running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])


def test_it_lists_studies_by_membership(study, admin, researcher, physician_a, inspector, outsider):
    assert list(access.studies_for_user(physician_a)) == [study]
    assert list(access.studies_for_user(inspector)) == [study]
    assert list(access.studies_for_user(admin)) == [study]
    assert list(access.studies_for_user(researcher)) == [study]
    assert list(access.studies_for_user(outsider)) == []
    assert list(access.studies_for_user(AnonymousUser())) == []


def test_it_gives_study_admin_access_only_to_admins(study, admin, researcher, physician_a):
    assert access.study_for_admin(admin, study.pk) == study
    with pytest.raises(PermissionDenied):
        access.study_for_admin(researcher, study.pk)
    with pytest.raises(Http404):
        access.study_for_admin(physician_a, study.pk)
    with pytest.raises(Http404):
        access.study_for_admin(admin, study.pk + 1000)


def test_it_gives_rater_access_only_to_rater_members(study, physician_a, inspector, researcher, outsider):
    assert access.study_for_rater(physician_a, study.pk) == study
    for user in (inspector, outsider):
        with pytest.raises(Http404):
            access.study_for_rater(user, study.pk)
    with pytest.raises(PermissionDenied):
        access.study_for_rater(researcher, study.pk)
    with pytest.raises(Http404):
        access.study_for_rater(AnonymousUser(), study.pk)


def test_it_gives_an_assignment_only_to_its_own_rater(study, admin, physician_a, physician_b, inspector, researcher):
    mine = assignment_claim_next(study=study, rater=physician_a)
    assert access.assignment_for_rater(physician_a, mine.pk) == mine
    for user in (physician_b, inspector, admin):
        with pytest.raises(Http404):
            access.assignment_for_rater(user, mine.pk)
    with pytest.raises(PermissionDenied):
        access.assignment_for_rater(researcher, mine.pk)


def test_it_gives_items_to_the_studys_inspectors_and_admins(study, admin, physician_a, physician_b, inspector,
                                                            researcher):
    done = claim_and_submit(study, physician_a, "2")
    item_pk = done.item_id
    assert access.item_for_inspector(inspector, item_pk).pk == item_pk
    assert access.item_for_inspector(admin, item_pk).pk == item_pk
    foreign = make_user("foreign_inspector", role="inspector")
    for user in (physician_a, physician_b, foreign):
        with pytest.raises(Http404):
            access.item_for_inspector(user, item_pk)
    with pytest.raises(PermissionDenied):
        access.item_for_inspector(researcher, item_pk)
    assert access.study_for_inspector(inspector, study.pk) == study
    with pytest.raises(Http404):
        access.study_for_inspector(foreign, study.pk)


def test_it_lets_readers_be_researchers_admins_and_members(study, admin, researcher, physician_a, outsider):
    for user in (admin, researcher, physician_a):
        assert access.study_for_reader(user, study.pk) == study
    with pytest.raises(Http404):
        access.study_for_reader(outsider, study.pk)


def test_it_shows_progress_to_admins_researchers_and_inspectors_only(study, admin, researcher, inspector,
                                                                     physician_a, outsider):
    for user in (admin, researcher, inspector):
        assert access.study_for_progress(user, study.pk) == study
    for user in (physician_a, outsider):
        with pytest.raises(Http404):
            access.study_for_progress(user, study.pk)
