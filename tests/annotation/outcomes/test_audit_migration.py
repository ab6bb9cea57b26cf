"""annotation 0006 runs forward on a database that already has review events: each study's events
are numbered in the order they were written, hashed into a chain that verifies, and keep their rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.apps import apps as current_apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models.chain import verify_lines
from annotation.outcomes.audit import event_records, events_jsonl

BEFORE = [("annotation", "0005_profile_moved_to_accounts"), ("accounts", "0001_initial"),
          ("cases", "0003_grader_output_moved_to_graders")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    loader = MigrationExecutor(connection).loader
    django_apps = [node for node in loader.graph.leaf_nodes() if node[0] in {"auth", "contenttypes"}]
    return loader.project_state([*django_apps, *targets]).apps


def _populate(old: Any) -> tuple[int, int]:
    """Two studies whose events interleave in time (written out of id order on purpose)."""
    User = old.get_model("auth", "User")
    Profile = old.get_model("accounts", "Profile")
    Dataset = old.get_model("cases", "Dataset")
    Release = old.get_model("cases", "Release")
    Case = old.get_model("cases", "Case")
    CaseRevision = old.get_model("cases", "CaseRevision")
    Study = old.get_model("annotation", "Study")
    Item = old.get_model("annotation", "Item")
    ReviewEvent = old.get_model("annotation", "ReviewEvent")
    rater = User.objects.create(username="rater_m")
    Profile.objects.create(user=rater, role="physician", pseudonym="R-m")
    dataset = Dataset.objects.create(name="LiveMedBench")
    release = Release.objects.create(dataset=dataset, label="v1", format="livemedbench", file_name="f.json",
                                     sha256="0" * 64)
    case = Case.objects.create(dataset=dataset, external_id="c1")
    revision = CaseRevision.objects.create(case=case, number=1, release=release, content_hash="h", narrative="n")
    studies = [Study.objects.create(name=f"S{n}") for n in (1, 2)]
    items = [Item.objects.create(study=s, kind="case", key="case:1", revision=revision) for s in studies]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    # (item, minutes after start): ids go 1..5, time order is 2, 1, 3, 5, 4
    for item, minutes in ((0, 2), (1, 1), (0, 3), (1, 9), (0, 5)):
        event = ReviewEvent.objects.create(item=items[item], actor=rater, kind="claimed", data={"n": minutes})
        ReviewEvent.objects.filter(pk=event.pk).update(created_at=start + timedelta(minutes=minutes))
    return studies[0].pk, studies[1].pk


@pytest.mark.django_db(transaction=True)
def test_it_chains_existing_events_per_study_in_the_order_they_were_written() -> None:
    old = _migrate(BEFORE)
    try:
        first, second = _populate(old)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    ReviewEvent = current_apps.get_model("annotation", "ReviewEvent")
    Study = current_apps.get_model("annotation", "Study")
    AuditChainHead = current_apps.get_model("annotation", "AuditChainHead")
    rows = list(ReviewEvent.objects.order_by("study_id", "seq").values_list("study_id", "seq", "data", "actor_pseudonym"))
    assert rows == [(first, 1, {"n": 2}, "R-m"), (first, 2, {"n": 3}, "R-m"), (first, 3, {"n": 5}, "R-m"),
                    (second, 1, {"n": 1}, "R-m"), (second, 2, {"n": 9}, "R-m")]
    for study_id, count in ((first, 3), (second, 2)):
        study = Study.objects.get(pk=study_id)
        result = verify_lines(list(events_jsonl(event_records(study))))
        assert result.ok and result.events == count
        head = AuditChainHead.objects.get(study_id=study_id)
        assert (head.seq, head.hash) == (count, ReviewEvent.objects.get(study_id=study_id, seq=count).hash)
