"""Sealing the audit chain off the rater's path (issues 26 and 27): a request's events are sealed after
its answer is out, or by the process's background sealer in one batch per study; nothing stays
pending, and a reader never sees a pending event."""

from __future__ import annotations

import threading

import pytest
from django.core.signals import request_finished
from django.db import close_old_connections
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory, override_settings

from annotation.models import ReviewEvent, seal_audit_chain
from annotation.models.events import _sealer
from annotation.models.sealer import BatchSealer
from annotation.outcomes.audit import event_records
from medreview.after_response import AfterResponseMiddleware, after_response, in_request
from tests.annotation.outcomes.builders import import_fixture, study_on

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(admin, physician_a, inspector):
    release = import_fixture("livemedbench", "livemedbench_cases.json", dataset="LiveMedBench", label="v202601")
    return study_on(release, admin, tasks=["narrative-quality"], raters=[physician_a],
                    inspectors=[inspector])


def _request_writing_events(study, django_capture_on_commit_callbacks, count: int):
    """A request whose view commits `count` events; returns (response, their ids) before closing."""
    written: list[int] = []

    def view(request: HttpRequest) -> HttpResponse:
        # Inside the request: the commits' on-commit steps run here, as they would in a view.
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(count):
                written.append(ReviewEvent.objects.record(study=study, actor=None, kind=ReviewEvent.Kind.EXPORTED).pk)
        return HttpResponse("answer")

    response = AfterResponseMiddleware(view)(RequestFactory().get("/"))
    return response, written


def _close(response: HttpResponse) -> None:
    """What the WSGI server does after sending the last byte, without closing the test's connection
    (as Django's test client does: request_finished would close it mid-test on PostgreSQL)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


def _pending(ids: list[int]) -> int:
    return ReviewEvent.objects.filter(pk__in=ids, seq__isnull=True).count()


def test_it_seals_a_requests_events_once_its_answer_is_closed(study, django_capture_on_commit_callbacks) -> None:
    seal_audit_chain(study.pk)
    response, ids = _request_writing_events(study, django_capture_on_commit_callbacks, 3)
    assert _pending(ids) == 3  # the answer is ready and nobody has waited for the chain
    _close(response)
    assert _pending(ids) == 0
    seqs = list(ReviewEvent.objects.filter(pk__in=ids).order_by("pk").values_list("seq", flat=True))
    assert seqs == sorted(seqs) and len(set(seqs)) == 3


def test_it_seals_at_once_outside_a_request(study, django_capture_on_commit_callbacks) -> None:
    assert not in_request()
    with django_capture_on_commit_callbacks(execute=True):
        event = ReviewEvent.objects.record(study=study, actor=None, kind=ReviewEvent.Kind.EXPORTED)
    assert ReviewEvent.objects.get(pk=event.pk).seq is not None


@override_settings(AUDIT_SEAL_BATCH_SECONDS=3600)
def test_it_leaves_a_requests_events_to_the_batch_sealer_and_a_reader_never_sees_them_pending(
    study, django_capture_on_commit_callbacks,
) -> None:
    seal_audit_chain(study.pk)
    response, ids = _request_writing_events(study, django_capture_on_commit_callbacks, 2)
    _close(response)
    assert _pending(ids) == 2  # owed to the background sealer, which waits out its interval
    records = list(event_records(study))  # a reader of the trail seals first
    assert _pending(ids) == 0
    assert [r["seq"] for r in records][-2:] == sorted(
        ReviewEvent.objects.filter(pk__in=ids).values_list("seq", flat=True))
    _sealer.flush()


@override_settings(AUDIT_SEAL_BATCH_SECONDS=3600)
def test_it_seals_what_the_batch_sealer_owes_when_flushed(study, django_capture_on_commit_callbacks) -> None:
    response, ids = _request_writing_events(study, django_capture_on_commit_callbacks, 2)
    _close(response)
    assert _pending(ids) == 2
    _sealer.flush()  # what the process does at exit
    assert _pending(ids) == 0


def test_it_seals_owed_studies_in_one_batch_after_the_interval() -> None:
    sealed: list[int] = []
    done = threading.Event()

    def seal(study_id: int) -> None:
        sealed.append(study_id)
        if len(sealed) == 2:
            done.set()

    sealer = BatchSealer(seal, lambda: 0.2)
    for study_id in (7, 3, 7, 7, 3):
        sealer.owe(study_id)
    assert sealed == []  # nothing sealed in the writer's thread
    assert done.wait(5)
    assert sealed == [3, 7]  # each owed study once, however many writes it had


def test_it_logs_a_failed_background_seal_and_goes_on(caplog) -> None:
    sealed: list[int] = []

    def seal(study_id: int) -> None:
        if study_id == 1:
            raise RuntimeError("chain broken")
        sealed.append(study_id)

    sealer = BatchSealer(seal, lambda: 0)
    sealer._owed = {1, 2}
    sealer.flush()
    assert sealed == [2]
    assert "sealing in the background failed" in caplog.text


def test_it_runs_work_after_the_response_once_per_key_and_logs_its_failure(caplog) -> None:
    ran: list[str] = []

    def view(request: HttpRequest) -> HttpResponse:
        after_response("a", lambda: ran.append("a"))
        after_response("a", lambda: ran.append("a again"))
        after_response("b", lambda: 1 / 0)
        after_response("c", lambda: ran.append("c"))
        assert ran == []
        return HttpResponse("answer")

    response = AfterResponseMiddleware(view)(RequestFactory().get("/"))
    assert ran == []
    _close(response)
    assert ran == ["a", "c"]
    assert "work after the response failed" in caplog.text
