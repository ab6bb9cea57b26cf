"""Ten physicians claiming and submitting at once on PostgreSQL: no item over its slots, no claim lost."""

from __future__ import annotations

import threading
from collections import defaultdict
from datetime import timedelta
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.db import connection
from django.utils import timezone

from annotation.models import Assignment, Item, Rating
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import (
    labels_for,
    make_cases,
    running_study,
)
from tests.conftest import make_user

pytestmark = pytest.mark.django_db



CLAIMERS = 10


ITEMS = 12


RATERS_PER_ITEM = 2


def _run_threads(target, count: int) -> list[BaseException]:
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def wrapper(i: int) -> None:
        try:
            barrier.wait()
            target(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test, not swallowed
            errors.append(exc)
        finally:
            # Each thread has its own connection; leaving it open blocks the test database teardown.
            connection.close()

    threads = [threading.Thread(target=wrapper, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return errors


@pytest.mark.django_db(transaction=True)
def test_it_never_over_assigns_nor_loses_claims_under_concurrency(postgres_only, admin):
    # An earlier transactional test's flush may have removed the scales and tasks shipped by migration.
    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    make_cases(ITEMS)
    raters = [make_user(f"claimer{i}", role="physician") for i in range(CLAIMERS)]
    study = running_study(admin, raters=raters, raters_per_item=RATERS_PER_ITEM, lease_minutes=30)
    start = timezone.now()
    later = start + timedelta(hours=2)  # every phase-1 lease has lapsed by then
    claims: dict[int, list[tuple[int, int]]] = defaultdict(list)
    lock = threading.Lock()

    def record(i: int, a: Assignment) -> None:
        with lock:
            claims[i].append((a.pk, a.item_id))

    def phase_one(i: int) -> None:
        # Everyone claims at once; half walk away (their leases will lapse), half submit.
        a = assignment_claim_next(study=study, rater=raters[i], now=start)
        assert a is not None
        record(i, a)
        if i % 2:
            rating_submit(assignment=a, rater=raters[i], labels=labels_for(a, "2"), seconds_spent=5, now=start)

    def phase_two(i: int) -> None:
        # After the leases lapsed, everyone works until the study is exhausted.
        while True:
            a = assignment_claim_next(study=study, rater=raters[i], now=later)
            if a is None:
                return
            record(i, a)
            rating_submit(assignment=a, rater=raters[i], labels=labels_for(a, "1"), seconds_spent=5, now=later)

    assert _run_threads(phase_one, CLAIMERS) == []
    # Mid-way: live leases plus submissions never exceed the slots of any item.
    for item in Item.objects.filter(study=study):
        assert Assignment.objects.holding_slot(now=start).filter(item=item).count() <= RATERS_PER_ITEM
    assert _run_threads(phase_two, CLAIMERS) == []

    for item in Item.objects.filter(study=study):
        holders = Assignment.objects.holding_slot(now=later).filter(item=item).count()
        assert holders == RATERS_PER_ITEM, f"item {item.pk} has {holders} slot holders"
        assert Assignment.objects.filter(item=item, state__in=Assignment.FINISHED_STATES).count() == RATERS_PER_ITEM
        assert Rating.objects.filter(assignment__item=item).count() == RATERS_PER_ITEM
    # No claim lost: every claim handed out is a row of that rater on that item.
    for i, handed in claims.items():
        for pk, item_id in handed:
            assert Assignment.objects.filter(pk=pk, item_id=item_id, rater=raters[i]).exists()
        # A claimer gets an item again only as the reuse of its own lapsed row, never a second row.
        rows_by_item: dict[int, set[int]] = defaultdict(set)
        for pk, item_id in handed:
            rows_by_item[item_id].add(pk)
        assert all(len(rows) == 1 for rows in rows_by_item.values())
    assert sum(len(v) for v in claims.values()) >= ITEMS * RATERS_PER_ITEM
    # The abandoned phase-1 claims were reclaimed (expired and reused, or revived by their rater).
    abandoned = [claims[i][0][0] for i in range(0, CLAIMERS, 2)]
    states = set(Assignment.objects.filter(pk__in=abandoned).values_list("state", flat=True))
    assert states <= {Assignment.State.EXPIRED, Assignment.State.SUBMITTED}
