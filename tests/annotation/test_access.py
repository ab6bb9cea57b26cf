"""annotation.access: who may fetch which study, assignment and item (404 hides, 403 forbids writes)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from annotation import access
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import (
    claim_and_submit,
    make_cases,
    running_study,
)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db



@pytest.fixture
def study(admin, physician_a, physician_b, inspector):
    make_cases(2)
    return running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])


def test_it_lists_studies_by_membership(study, admin, researcher, physician_a, inspector, outsider):
    assert list(access.access_studies_for_listing(physician_a)) == [study]
    assert list(access.access_studies_for_listing(inspector)) == [study]
    assert list(access.access_studies_for_listing(admin)) == [study]
    assert list(access.access_studies_for_listing(researcher)) == [study]
    assert list(access.access_studies_for_listing(outsider)) == []
    assert list(access.access_studies_for_listing(AnonymousUser())) == []


def test_it_gives_study_admin_access_only_to_admins(study, admin, researcher, physician_a):
    assert access.access_study_for_management(admin, study.pk) == study
    with pytest.raises(PermissionDenied):
        access.access_study_for_management(researcher, study.pk)
    with pytest.raises(Http404):
        access.access_study_for_management(physician_a, study.pk)
    with pytest.raises(Http404):
        access.access_study_for_management(admin, study.pk + 1000)


def test_it_gives_rater_access_only_to_rater_members(study, physician_a, inspector, researcher, outsider):
    assert access.access_study_for_rating(physician_a, study.pk) == study
    for user in (inspector, outsider):
        with pytest.raises(Http404):
            access.access_study_for_rating(user, study.pk)
    with pytest.raises(PermissionDenied):
        access.access_study_for_rating(researcher, study.pk)
    with pytest.raises(Http404):
        access.access_study_for_rating(AnonymousUser(), study.pk)


def test_it_gives_an_assignment_only_to_its_own_rater(study, admin, physician_a, physician_b, inspector, researcher):
    mine = assignment_claim_next(study=study, rater=physician_a)
    assert access.access_assignment_for_rating(physician_a, mine.pk) == mine
    for user in (physician_b, inspector, admin):
        with pytest.raises(Http404):
            access.access_assignment_for_rating(user, mine.pk)
    with pytest.raises(PermissionDenied):
        access.access_assignment_for_rating(researcher, mine.pk)


def test_it_gives_items_to_the_studys_inspectors_and_admins(study, admin, physician_a, physician_b, inspector,
                                                            researcher):
    done = claim_and_submit(study, physician_a, "2")
    item_pk = done.item_id
    assert access.access_item_for_inspection(inspector, item_pk).pk == item_pk
    assert access.access_item_for_inspection(admin, item_pk).pk == item_pk
    foreign = make_user("foreign_inspector", role="inspector")
    for user in (physician_a, physician_b, foreign):
        with pytest.raises(Http404):
            access.access_item_for_inspection(user, item_pk)
    with pytest.raises(PermissionDenied):
        access.access_item_for_inspection(researcher, item_pk)
    assert access.access_study_for_inspection(inspector, study.pk) == study
    with pytest.raises(Http404):
        access.access_study_for_inspection(foreign, study.pk)


def test_it_lets_readers_be_researchers_admins_and_members(study, admin, researcher, physician_a, outsider):
    for user in (admin, researcher, physician_a):
        assert access.access_study_for_listing(user, study.pk) == study
    with pytest.raises(Http404):
        access.access_study_for_listing(outsider, study.pk)


def test_it_shows_progress_to_admins_researchers_and_inspectors_only(study, admin, researcher, inspector,
                                                                     physician_a, outsider):
    for user in (admin, researcher, inspector):
        assert access.access_study_for_progress(user, study.pk) == study
    for user in (physician_a, outsider):
        with pytest.raises(Http404):
            access.access_study_for_progress(user, study.pk)
