"""The report reads the physicians' ratings and the graders' labels at once on PostgreSQL (issue 26):
the same report as reading them one after the other, and each worker's connection closed."""

from __future__ import annotations

import pytest
from django.db import connection

from agreement.reports import build_report, loading
from agreement.selectors import Selection
from tests.agreement.builders import reliability_study


def _tables(report) -> dict[str, list[dict]]:
    return {t.key: t.frame.round(12).astype(str).to_dict("records") for t in report.tables}


@pytest.mark.django_db(transaction=True)
def test_it_reads_ratings_and_grader_labels_at_once_with_the_same_report(postgres_only, physician_a, physician_b,
                                                                          inspector, monkeypatch) -> None:
    data = reliability_study([physician_a, physician_b, inspector], n_cases=3, n_runs=2, invalid_every=5)
    selection = Selection(study_id=data.study.pk, group_by="rank")
    assert loading._reads_in_parallel()
    threads: list[str] = []
    read = loading._in_own_connection

    def spy(selection: Selection):
        import threading

        threads.append(threading.current_thread().name)
        return read(selection)

    monkeypatch.setattr(loading, "_in_own_connection", spy)
    parallel = build_report(selection)
    assert threads and threads[0].startswith("report-load")
    monkeypatch.setattr(loading, "_reads_in_parallel", lambda: False)
    sequential = build_report(selection)
    assert parallel.counts == sequential.counts
    assert parallel.counts["grader_decisions"] > 0 and parallel.counts["ratings_round_1"] > 0
    assert _tables(parallel) == _tables(sequential)
    # The worker closed its connection: only this thread's stays open.
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert cursor.fetchone()[0] == 0


def test_it_reads_one_after_the_other_inside_a_transaction(db) -> None:
    # A test's transaction (or any atomic block): a second connection would not see its rows.
    assert not loading._reads_in_parallel()
