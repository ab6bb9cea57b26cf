"""Workers that heal themselves (issue 9): two real `db_worker` processes on PostgreSQL; the one
running a grading job is killed with SIGKILL; the other takes the job over and finishes it with no
decision asked twice, no duplicate stored, no person pressing Resume, and the dead runner's
django-tasks row marked failed. The watch logic itself is also tested in-process (SQLite too)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from devtools.fake_openai import FakeBehaviour, FakeOpenAIServer
from graders import services
from graders.jobs import healing
from graders.models import GraderDecision, GradingChunk, GradingJob, GradingRunnerSlot, JobStatus
from tests.graders.conftest import API_KEY, API_KEY_ENV, make_config
from tests.graders.test_jobs import build_release

ROOT = Path(__file__).resolve().parents[2]
DB_TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "grading", "imports"]}}


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def _start_worker(env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--queue-name", "*", "--interval", "0.2", "--no-startup-delay"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )


def _stop(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_second_worker_finishes_the_job_of_a_killed_one(postgres_only, settings, monkeypatch):
    from django_tasks.base import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    settings.TASKS = DB_TASKS  # the test enqueues into the database queue the workers poll
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    env = {**os.environ, "DATABASE_URL": _database_url(), "SECRET_KEY": "worker-test", "TASKS_BACKEND": "db",
           "DJANGO_SETTINGS_MODULE": "medreview.settings", API_KEY_ENV: API_KEY, "GRADERS_STALE_SECONDS": "2",
           "GRADER_ALLOWED_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING"}
    with FakeOpenAIServer(FakeBehaviour(latency_ms=200)) as server:
        config = make_config(server.base_url, concurrency=2)
        release = build_release(cases=8)  # 8 cases x 2 models x 3 criteria = 48 decisions
        workers = [_start_worker(env), _start_worker(env)]
        try:
            job = services.grading_job_create(config=config, selection={"release": release.pk}, created_by=None,
                                              parallel_tasks=1)
            deadline = time.monotonic() + 60
            while GraderDecision.objects.filter(run=job.run).count() < 6:
                assert all(w.poll() is None for w in workers), workers[0].stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "no worker stored anything"
                time.sleep(0.05)
            slot = GradingRunnerSlot.objects.get(job=job)
            pid = int(slot.worker_id.split(":")[1])
            dead_row = healing.task_row_of(slot.worker_id)
            victim = next(w for w in workers if w.pid == pid)
            _stop(victim)  # SIGKILL: no cleanup, its chunk and slot stay claimed
            survivor = next(w for w in workers if w is not victim)

            deadline = time.monotonic() + 90
            while GradingJob.objects.get(pk=job.pk).status != JobStatus.DONE:
                assert survivor.poll() is None, survivor.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "the job was not taken over"
                time.sleep(0.1)
        finally:
            for worker in workers:
                _stop(worker)

    job.refresh_from_db()
    decisions = GraderDecision.objects.filter(run=job.run)
    assert decisions.count() == job.done == job.total == 48
    assert not decisions.values("response", "criterion").annotate(n=Count("id")).filter(n__gt=1).exists()
    assert DBTaskResult.objects.get(pk=dead_row).status == TaskResultStatus.FAILED
    assert not GradingChunk.objects.filter(job=job).exclude(status=GradingChunk.Status.DONE).exists()


# --- the watch, in-process ----------------------------------------------------------------------


@pytest.fixture
def stalled_job(db, monkeypatch, fake_server, api_key):
    config = make_config(fake_server.base_url, concurrency=2)
    monkeypatch.setattr(services, "_enqueue_runners", lambda job_id, count: None)
    job = services.grading_job_create(config=config, selection={"release": build_release(cases=1).pk},
                                      created_by=None, parallel_tasks=1)
    long_ago = timezone.now() - timedelta(hours=1)
    GradingJob.objects.filter(pk=job.pk).update(status=JobStatus.RUNNING, heartbeat_at=long_ago)
    GradingRunnerSlot.objects.filter(job=job).update(worker_id=healing.runner_identity(None), heartbeat_at=long_ago)
    GradingChunk.objects.filter(job=job).update(status=GradingChunk.Status.RUNNING, heartbeat_at=long_ago)
    return job


def test_the_watch_frees_a_dead_runners_slot_and_queues_a_replacement(stalled_job, django_capture_on_commit_callbacks):
    queued, watched = [], []
    with django_capture_on_commit_callbacks(execute=True):
        outcome = healing.grading_job_heal(job_id=stalled_job.pk, enqueue=lambda job_id, n: queued.append((job_id, n)),
                                           schedule_next=watched.append)
    assert "freed 1 slot" in outcome
    assert queued == [(stalled_job.pk, 1)] and watched == [stalled_job.pk]
    assert GradingRunnerSlot.objects.get(job=stalled_job).worker_id == ""


def test_the_watch_leaves_a_live_runner_alone(stalled_job, django_capture_on_commit_callbacks):
    GradingRunnerSlot.objects.filter(job=stalled_job).update(heartbeat_at=timezone.now())
    queued = []
    with django_capture_on_commit_callbacks(execute=True):
        healing.grading_job_heal(job_id=stalled_job.pk, enqueue=lambda job_id, n: queued.append(n),
                                 schedule_next=lambda job_id: None)
    assert queued == []


def test_the_watch_stops_when_the_job_is_over(stalled_job):
    GradingJob.objects.filter(pk=stalled_job.pk).update(status=JobStatus.DONE)
    assert healing.grading_job_heal(job_id=stalled_job.pk, enqueue=None, schedule_next=None) == "job done"


def test_a_runner_names_its_task_row() -> None:
    row = "6f1c1a52-6d8e-4c55-9f0a-0d4b7f6c2a11"
    identity = healing.runner_identity(row)
    assert len(identity) <= 64 and healing.task_row_of(identity) == row
    assert healing.task_row_of("old-style-worker-id") is None
