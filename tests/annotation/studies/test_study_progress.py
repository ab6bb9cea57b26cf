"""Who follows a study's progress (admins, its inspectors, researchers under pseudonyms) and what they see."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotation.inspection.services import inspection_return
from annotation.models import Item, ReviewEvent
from annotation.rating.selectors import rater_queue
from annotation.studies.selectors import study_progress
from annotation.studies.services import ItemSelection, study_add_items
from tests.annotation.builders import (
    claim_and_submit,
    events_writable,
    item_of,
    make_cases,
    make_running_study,
    running_study,
)
from tests.conftest import login

pytestmark = pytest.mark.django_db



def test_it_reports_progress_per_rater_and_task_and_stuck_items(admin, physician_a, physician_b, inspector):
    make_cases(3)
    study = running_study(admin, raters=[physician_a, physician_b], inspectors=[inspector])
    a = claim_and_submit(study, physician_a, "2")
    b = claim_and_submit(study, physician_b, "0")
    claim_and_submit(study, physician_a, "1")
    inspection_return(item=item_of(a), inspector=inspector, assignment=b, comment="Look again")
    # Events are append-only (ReviewEventQuerySet.update refuses); backdate one around that rule.
    with events_writable():
        QuerySet.update(ReviewEvent.objects.filter(kind=ReviewEvent.Kind.RETURNED),
                        created_at=timezone.now() - timedelta(days=5))
    progress = study_progress(study=study)
    by_name = {r.name: r for r in progress.per_rater}
    assert by_name["physician_a"].submitted == 2 and by_name["physician_b"].returned == 1
    assert by_name["physician_a"].median_seconds == 30
    assert progress.items_by_status[Item.Status.RETURNED] == 1
    assert progress.items_by_status[Item.Status.OPEN] == 2
    assert progress.per_task[0].first_round_ratings == 3
    assert [i.pk for i in progress.stuck] == [a.item_id]
    assert progress.submissions_per_day == 3


def test_it_bounds_queries_of_queue_and_progress_whatever_the_data_size(
    admin, physician_a, physician_b, django_assert_num_queries
):
    make_cases(2)
    study = running_study(admin, raters=[physician_a, physician_b])
    claim_and_submit(study, physician_a, "2")

    def count(fn) -> int:

        with CaptureQueriesContext(connection) as ctx:
            fn()
        return len(ctx.captured_queries)

    small = (count(lambda: rater_queue(rater=physician_a)), count(lambda: study_progress(study=study)))
    make_cases(6)
    study_add_items(study=study, selection=ItemSelection(kind="case"), actor=admin)
    for _ in range(4):
        claim_and_submit(study, physician_a, "1")
        claim_and_submit(study, physician_b, "1")
    large = (count(lambda: rater_queue(rater=physician_a)), count(lambda: study_progress(study=study)))
    assert small == large
    with django_assert_num_queries(small[0]):
        rater_queue(rater=physician_a)


def test_it_shows_study_progress_per_rater_and_task(client, admin, physician_a, physician_b, inspector):
    study = make_running_study(admin, [physician_a, physician_b], inspectors=[inspector], cases=2)
    claim_and_submit(study, physician_a, seconds_spent=42)
    response = login(client, admin).get(reverse("annotation:study_detail", args=[study.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "physician_a" in page and "physician_b" in page
    assert "Patient narrative &amp; query quality" in page
    assert "median time per item" in page and "42 s" in page
    assert "stuck in revision" in page


def test_it_shows_researchers_pseudonyms_not_names(client, admin, physician_a, physician_b, researcher):
    study = make_running_study(admin, [physician_a, physician_b])
    claim_and_submit(study, physician_a, seconds_spent=42)
    page = login(client, researcher).get(reverse("annotation:study_detail", args=[study.pk])).content.decode()
    assert "R-physician_a" in page
    assert ">physician_a<" not in page
    assert "Add people" not in page
