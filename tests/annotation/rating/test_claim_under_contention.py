"""The claim under contention (issue 9): eight or more physicians pressing "next" at the same moment
on a study with 4 items x 2 free slots all get an item; none is told "nothing left" while a slot
remains, and no item gets more raters than it asks for. PostgreSQL only (row locks)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.db import connection

from annotation.models import Assignment
from annotation.rating.services.queue import assignment_claim_next
from tests.annotation.builders import make_cases, running_study
from tests.conftest import make_user

ROUNDS = 5


def claim_all_at_once(study, raters) -> tuple[list, list[BaseException], float]:
    results: list = [None] * len(raters)
    errors: list[BaseException] = []
    barrier = threading.Barrier(len(raters))

    def claim(i: int) -> None:
        try:
            barrier.wait()
            results[i] = assignment_claim_next(study=study, rater=raters[i])
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(len(raters))]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results, errors, time.monotonic() - started


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("claimers", [8, 10])
def test_every_claimer_gets_an_item_while_slots_remain(postgres_only, admin, claimers: int):
    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    slots = 4 * 2
    for round_ in range(ROUNDS):
        make_cases(4, dataset=f"Contention{round_}")
        raters = [make_user(f"r{round_}-{i}", role="physician") for i in range(claimers)]
        study = running_study(admin, raters=raters, raters_per_item=2, dataset=f"Contention{round_}")
        results, errors, seconds = claim_all_at_once(study, raters)
        assert errors == []
        got = [a for a in results if a is not None]
        assert len(got) == min(claimers, slots), f"round {round_}: {len(got)} of {claimers} got an item"
        per_item = Counter(a.item_id for a in got)
        assert max(per_item.values()) <= 2
        assert Assignment.objects.filter(item__study=study).count() == len(got)
        assert seconds < 10
