"""Ten physicians claiming and submitting at once on PostgreSQL: every event is sealed into one
unbroken chain per study after its commit, without review writes waiting for the chain."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps as django_apps

from annotation.models import AuditChainHead, ReviewEvent
from annotation.models.chain import verify_lines
from annotation.outcomes.audit import event_records, events_jsonl
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from tests.annotation.builders import labels_for, make_cases, running_study
from tests.annotation.rating.test_physician_claiming_concurrently import _run_threads
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

CLAIMERS = 10


@pytest.mark.django_db(transaction=True)
def test_it_seals_every_concurrent_event_into_one_chain(postgres_only, admin) -> None:
    import_module("annotation.migrations.0003_shipped_scales_and_tasks").ship(django_apps, None)
    make_cases(12)
    raters = [make_user(f"chainer{i}", role="physician") for i in range(CLAIMERS)]
    study = running_study(admin, raters=raters, raters_per_item=2)

    def work(i: int) -> None:
        for _ in range(2):
            a = assignment_claim_next(study=study, rater=raters[i])
            assert a is not None
            rating_submit(assignment=a, rater=raters[i], labels=labels_for(a, "2"), seconds_spent=5)

    assert _run_threads(work, CLAIMERS) == []
    # Every transaction committed, so every event was sealed by its own writer's on-commit step.
    assert not ReviewEvent.objects.filter(study=study, seq__isnull=True).exists()
    count = ReviewEvent.objects.filter(study=study).count()
    assert count >= CLAIMERS * 2 * 2
    seqs = sorted(ReviewEvent.objects.filter(study=study).values_list("seq", flat=True))
    assert seqs == list(range(1, count + 1))
    assert AuditChainHead.objects.get(study=study).seq == count
    result = verify_lines(list(events_jsonl(event_records(study))))
    assert result.ok, result.problems
