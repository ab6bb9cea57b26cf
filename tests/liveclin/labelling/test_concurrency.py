"""Three raters answering a two-rater unit at the same moment: exactly two answers are stored, the
third is refused, and the unit leaves "open" once (PostgreSQL row locks)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from liveclin.labelling.services import label_answer_submit
from liveclin.models import LabelAnswer, LabelUnit
from medreview.errors import ConflictError
from tests.conftest import make_user
from tests.liveclin.labelling.builders import assignment_task, node_ids


@pytest.mark.django_db(transaction=True)
def test_it_stores_exactly_the_answers_a_unit_takes_when_raters_race(postgres_only, admin, physician_a, physician_b):
    third = make_user("physician_c", role="physician")
    task = assignment_task(admin, [physician_a, physician_b, third], raters_per_unit=2)
    unit = task.units.get(order=1)
    path = node_ids("2", "C40-C41", "C41")
    outcomes: list[str] = []
    start = threading.Barrier(3)

    def worker(rater) -> None:
        try:
            start.wait()
            label_answer_submit(unit=LabelUnit.objects.select_related("task__taxonomy").get(pk=unit.pk), rater=rater,
                                path=path)
            outcomes.append("stored")
        except ConflictError:
            outcomes.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(r,)) for r in (physician_a, physician_b, third)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused", "stored", "stored"]
    assert LabelAnswer.objects.filter(unit=unit).count() == 2
    unit.refresh_from_db()
    assert unit.status == LabelUnit.Status.RESOLVED
