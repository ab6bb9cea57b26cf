"""Cached reports are never stale: the cache key follows the study's review events, so a label edited
in place (same rows, same ids) changes the report a researcher sees; a label in another study leaves
the study's report cached."""

from __future__ import annotations

import pytest

from agreement.reports import build_report, cached_report, labels_fingerprint
from agreement.selection import Selection
from annotation.rating.services.editing import rating_edit
from tests.annotation.builders import claim_and_submit, disagree, labels_for, make_running_study

pytestmark = pytest.mark.django_db


def _agreement(report) -> str:
    return report.table("data_quality").frame.to_json()


def test_it_shows_an_edited_label_in_the_cached_report(admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=3)
    disagree(study, physician_a, physician_b)
    # The next item stays open (one rater of two has submitted), so its rater may still edit it
    # (the edit window closes when inspection begins, issue 21).
    a = claim_and_submit(study, physician_a, {"narrative-quality": "2", "criterion-validity": "agree"})
    selection = Selection(study_id=study.pk)
    before = cached_report(selection)
    assert cached_report(selection) is not None and _agreement(cached_report(selection)) == _agreement(before)

    # One label edited in place: the rating keeps its row and id, only its label changes.
    rating_edit(assignment=a, rater=physician_a, labels=labels_for(a, {"narrative-quality": "0",
                                                                       "criterion-validity": "agree"}))
    after = cached_report(selection)
    assert _agreement(after) != _agreement(before)
    assert _agreement(after) == _agreement(build_report(selection))


def test_it_keeps_a_studys_report_cached_when_another_study_gets_labels(admin, physician_a, physician_b):
    study = make_running_study(admin, [physician_a, physician_b], cases=2, name="First")
    other = make_running_study(admin, [physician_a, physician_b], cases=2, name="Second")
    claim_and_submit(study, physician_a)
    selection = Selection(study_id=study.pk)
    fingerprint = labels_fingerprint(selection)
    claim_and_submit(other, physician_a)
    assert labels_fingerprint(selection) == fingerprint
    claim_and_submit(study, physician_b)
    assert labels_fingerprint(selection) != fingerprint


def test_it_follows_a_change_of_expert_group(admin, physician_a, physician_b):
    from annotation.models import StudyMember

    study = make_running_study(admin, [physician_a, physician_b], cases=1)
    selection = Selection(study_id=study.pk)
    fingerprint = labels_fingerprint(selection)
    StudyMember.objects.filter(study=study, user=physician_a).update(group="A")
    assert labels_fingerprint(selection) != fingerprint
