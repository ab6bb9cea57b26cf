"""Hot reads compiled once per process (medreview/db/precompiled.py): each call gives exactly what its
queryset would, for the ids of that call, in one query, and refuses what would change the SQL."""

from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from cases.models import Case, CaseRevision, RubricCriterion
from medreview.db.precompiled import PrecompiledQuery
from tests.factories import make_case

pytestmark = pytest.mark.django_db


def _revision_with_case(pk: int):
    return CaseRevision.objects.select_related("case", "case__dataset").defer("raw", "extra").filter(pk=pk)


REVISION_WITH_CASE: PrecompiledQuery[CaseRevision] = PrecompiledQuery(_revision_with_case)
CRITERIA: PrecompiledQuery[RubricCriterion] = PrecompiledQuery(
    lambda revision_id: RubricCriterion.objects.filter(revision_id=revision_id).order_by("order"))
CRITERION_TEXTS: PrecompiledQuery[tuple[int, str]] = PrecompiledQuery(
    lambda revision_id, above: RubricCriterion.objects.filter(revision_id=revision_id, order__gt=above)
    .order_by("-order").values_list("order", "text"))


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields
            if f.attname not in obj.get_deferred_fields()}


def test_it_gives_the_same_instances_as_the_queryset_with_joined_and_deferred_fields():
    revision = make_case(narrative="Fever for three days.")
    make_case(narrative="Another case entirely.")
    expected = _revision_with_case(revision.pk).get()
    got = REVISION_WITH_CASE.first(pk=revision.pk)
    assert got == expected and _fields(got) == _fields(expected)
    assert got.get_deferred_fields() == expected.get_deferred_fields() == {"raw", "extra"}
    with CaptureQueriesContext(connection) as joined:
        assert got.case.dataset.name == expected.case.dataset.name == "LiveMedBench"
    assert joined.captured_queries == []  # case and dataset came in the same row
    assert got._state.db == "default" and not got._state.adding


def test_it_runs_with_each_calls_own_ids_in_one_query():
    first, second = make_case(), make_case(criteria=[("Only one criterion", 3, "Safety")])
    with CaptureQueriesContext(connection) as ctx:
        a = CRITERIA.all(revision_id=first.pk)
        b = CRITERIA.all(revision_id=second.pk)
    assert len(ctx.captured_queries) == 2
    assert [c.text for c in a] == [c.text for c in RubricCriterion.objects.filter(revision=first).order_by("order")]
    assert [c.text for c in b] == ["Only one criterion"]
    assert CRITERIA.all(revision_id=10**9) == []


def test_it_converts_every_calls_values_as_the_queryset_does_on_each_connection():
    """The columns' converters are worked out once per connection and reused: the JSON tags, the
    dates and the joined rows of a later call still come back as Python values."""
    first = make_case(criteria=[("Asks about allergies", 2, "Safety")])
    second = make_case(criteria=[("Mentions the dose", 5, "Accuracy")])
    RubricCriterion.objects.filter(revision=second).update(tags=["dose", "剂量"])
    for revision in (first, second, first):
        expected = _revision_with_case(revision.pk).get()
        got = REVISION_WITH_CASE.first(pk=revision.pk)
        assert _fields(got) == _fields(expected) and got.case.created_at == expected.case.created_at
        assert [_fields(c) for c in CRITERIA.all(revision_id=revision.pk)] == [
            _fields(c) for c in RubricCriterion.objects.filter(revision_id=revision.pk).order_by("order")]
    assert CRITERIA.first(revision_id=second.pk).tags == ["dose", "剂量"]


@pytest.mark.django_db(transaction=True)
def test_it_converts_the_values_of_a_query_run_on_another_threads_connection(postgres_only):
    revision = make_case(criteria=[("Mentions the dose", 5, "Accuracy")])
    RubricCriterion.objects.filter(revision=revision).update(tags=["dose", "剂量"])
    assert CRITERIA.first(revision_id=revision.pk).tags == ["dose", "剂量"]  # converters of this connection
    seen: list[object] = []

    def in_another_thread() -> None:
        try:
            seen.append(CRITERIA.first(revision_id=revision.pk).tags)
        finally:
            connections.close_all()

    thread = threading.Thread(target=in_another_thread)
    thread.start()
    thread.join()
    assert seen == [["dose", "剂量"]]


def test_it_gives_values_list_rows_and_puts_each_keyword_in_its_place():
    revision = make_case()
    assert CRITERION_TEXTS.all(revision_id=revision.pk, above=1) == list(
        RubricCriterion.objects.filter(revision=revision, order__gt=1).order_by("-order").values_list("order", "text"))
    assert CRITERION_TEXTS.all(above=2, revision_id=revision.pk) == [(3, "Recommends antibiotics")]
    # Beyond the column's own integer type (PostgreSQL: int4): compared, not an overflow error.
    assert CRITERION_TEXTS.all(revision_id=revision.pk, above=2**40) == []
    assert len(CRITERION_TEXTS.all(revision_id=revision.pk, above=-(2**40))) == 3


def test_it_takes_a_text_named_as_such_and_refuses_one_it_would_transform():
    make_case(external_id="LMB-0001")
    make_case(external_id="LMB-0002")
    by_key = PrecompiledQuery(lambda external_id: Case.objects.filter(external_id=external_id), text=("external_id",))
    assert [c.external_id for c in by_key.all(external_id="LMB-0002")] == ["LMB-0002"]
    assert by_key.all(external_id="lmb-0002") == []
    with pytest.raises(TypeError, match="external_id must be a text, not int"):
        by_key.all(external_id=2)
    containing = PrecompiledQuery(lambda part: Case.objects.filter(external_id__contains=part), text=("part",))
    with pytest.raises(ImproperlyConfigured, match="part does not reach the query"):
        containing.all(part="0001")  # LIKE wraps the text in % signs: not the value as given


def test_it_answers_nothing_for_an_id_no_column_can_hold_without_asking_the_database():
    make_case()
    with CaptureQueriesContext(connection) as ctx:
        assert CRITERIA.all(revision_id=2**63) == []
        assert REVISION_WITH_CASE.first(pk=-(2**63) - 1) is None
    assert ctx.captured_queries == []


def test_it_refuses_values_that_are_not_whole_numbers_and_missing_or_extra_keywords():
    with pytest.raises(TypeError, match="revision_id must be a whole number, not str"):
        CRITERIA.all(revision_id="1")
    with pytest.raises(TypeError, match="revision_id must be a whole number, not bool"):
        CRITERIA.all(revision_id=True)
    with pytest.raises(TypeError, match="expected the keywords revision_id, above, got revision_id"):
        CRITERION_TEXTS.all(revision_id=1)


def test_it_refuses_a_query_whose_keyword_does_not_reach_the_sql_as_its_own_parameter():
    shifted = PrecompiledQuery(lambda revision_id: RubricCriterion.objects.filter(revision_id=revision_id + 1))
    with pytest.raises(ImproperlyConfigured, match="revision_id does not reach the query as a parameter"):
        shifted.all(revision_id=1)
    prefetching = PrecompiledQuery(lambda pk: Case.objects.filter(pk=pk).prefetch_related("revisions"))
    with pytest.raises(ImproperlyConfigured, match="prefetch_related"):
        prefetching.all(pk=1)


@pytest.mark.django_db(transaction=True)
def test_it_locks_rows_only_inside_a_transaction(postgres_only):
    revision = make_case()
    locking = PrecompiledQuery(lambda pk: CaseRevision.objects.select_for_update().filter(pk=pk))
    with transaction.atomic(), CaptureQueriesContext(connection) as ctx:
        assert locking.first(pk=revision.pk) == revision
    assert ctx.captured_queries[-1]["sql"].endswith("FOR UPDATE")
    with pytest.raises(TransactionManagementError):
        locking.first(pk=revision.pk)  # compiled now, and still refused outside a transaction
