"""A worker process killed mid-job (SIGKILL, no cleanup) and the job resumed: nothing missing, nothing twice."""

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
from graders.models import GraderDecision, GradingChunk, GradingJob, JobStatus
from tests.graders.conftest import API_KEY, API_KEY_ENV, make_config
from tests.graders.test_jobs import build_release

ROOT = Path(__file__).resolve().parents[2]


def _database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_it_resumes_after_the_worker_process_is_killed(postgres_only, monkeypatch):
    monkeypatch.setenv(API_KEY_ENV, API_KEY)
    with FakeOpenAIServer(FakeBehaviour(latency_ms=150)) as server:
        config = make_config(server.base_url, concurrency=2)
        release = build_release(cases=5)  # 5 cases x 2 models x 3 criteria = 30 decisions
        monkeypatch.setattr(services, "_enqueue_runners", lambda job_id, count: None)  # the subprocess runs it
        job = services.grading_job_create(config=config, selection={"release": release.pk}, created_by=None, parallel_tasks=1)
        env = {**os.environ, "DATABASE_URL": _database_url(), "SECRET_KEY": "worker-test", "TASKS_BACKEND": "immediate",
               "DJANGO_SETTINGS_MODULE": "medreview.settings", API_KEY_ENV: API_KEY}
        worker = subprocess.Popen(
            [sys.executable, "manage.py", "grading_job_work", str(job.pk)], cwd=ROOT, env=env,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        try:
            deadline = time.monotonic() + 60
            while GraderDecision.objects.filter(run=job.run).count() < 4:
                assert worker.poll() is None, worker.stderr.read().decode()[-2000:]
                assert time.monotonic() < deadline, "the worker stored nothing"
                time.sleep(0.05)
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)

        job.refresh_from_db()
        stored = GraderDecision.objects.filter(run=job.run).count()
        assert job.status == JobStatus.RUNNING
        assert 4 <= stored < job.total == 30
        assert GradingChunk.objects.filter(job=job, status=GradingChunk.Status.RUNNING).exists()

        # Time passes without a heartbeat: the page now offers Resume.
        past = timezone.now() - timedelta(hours=1)
        GradingJob.objects.filter(pk=job.pk).update(heartbeat_at=past)
        job.refresh_from_db()
        assert job.can_resume
        time.sleep(0.4)  # let the dead worker's last requests reach the server before counting
        asked = len(server.requests)
        monkeypatch.undo()
        monkeypatch.setenv(API_KEY_ENV, API_KEY)
        services.grading_job_resume(job=job)  # autocommit: the runner runs now (immediate backend)

        job.refresh_from_db()
        assert job.status == JobStatus.DONE
        decisions = GraderDecision.objects.filter(run=job.run)
        assert decisions.count() == job.done == 30
        assert not decisions.values("response", "criterion").annotate(n=Count("id")).filter(n__gt=1).exists()
        assert len(server.requests) - asked == 30 - stored
