"""Workers that heal themselves: a grading job whose worker died is taken over without a person.

Every runner beats a heartbeat on its slot. While a job is active, a *watch* task is queued to run
every GRADERS_STALE_SECONDS (django-tasks `run_after`), so any running `db_worker` picks it up. The
watch finds slots whose runner stopped beating, marks that runner's django-tasks row failed (its
process is gone and will never finish it), frees the slot and queues a new runner; the new runner
takes over the dead one's chunks (their heartbeats are stale too). Stored answers are never asked
again, so nothing is graded twice.

A runner's worker id names its django-tasks row (`host:pid:<row id>`), which is how the watch finds
the row of a runner that died. Backends that cannot defer a task (the immediate backend of tests and
`TASKS_BACKEND=immediate`) run no watch: there, nothing runs in the background to die. The tasks
themselves live in `graders.tasks` (`grading_job_watch`, `schedule_watch`), which imports this module.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from graders.models import STALE_AFTER, GradingChunk, GradingJob, GradingRunnerSlot, JobStatus

logger = logging.getLogger(__name__)
RUNNER_TASK = "graders.tasks.grading_job_run"


class WorkerDied(Exception):
    """Recorded on the django-tasks row of a runner whose process stopped without finishing."""


def runner_identity(task_result_id: object | None) -> str:
    """`host:pid:row` (at most 64 characters): who runs, and which django-tasks row it is running."""
    try:
        row = uuid.UUID(str(task_result_id)).hex
    except ValueError:  # no database row (the immediate backend's ids are not UUIDs): nothing to fail
        row = uuid.uuid4().hex
    return f"{socket.gethostname()[:16]}:{os.getpid()}:{row}"


def task_row_of(worker_id: str) -> str | None:
    row = worker_id.rsplit(":", 1)[-1] if worker_id.count(":") >= 2 else ""
    try:
        return str(uuid.UUID(row))
    except ValueError:
        return None


def watch_interval() -> timedelta:
    return STALE_AFTER


def _fail_task_rows(row_ids: list[str], reason: str) -> int:
    """Mark the django-tasks rows of dead runners failed (only rows still RUNNING)."""
    if not row_ids:
        return 0
    from django_tasks.base import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    return DBTaskResult.objects.filter(pk__in=row_ids, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.FAILED, finished_at=timezone.now(),
        exception_class_path=f"{WorkerDied.__module__}.{WorkerDied.__qualname__}", traceback=reason,
    )


def _silent_runner_rows(job_id: int, live_rows: set[str], now: datetime) -> list[str]:
    """RUNNING runner rows of this job started long ago that hold no live slot: their process died
    before it claimed a slot (or after losing it)."""
    from django_tasks.base import TaskResultStatus
    from django_tasks_db.models import DBTaskResult

    rows = DBTaskResult.objects.filter(
        task_path=RUNNER_TASK, status=TaskResultStatus.RUNNING, started_at__lt=now - STALE_AFTER
    ).values_list("pk", "args_kwargs")
    return [str(pk) for pk, call in rows if (call or {}).get("args") == [job_id] and str(pk) not in live_rows]


def grading_job_heal(
    *, job_id: int, enqueue: Callable[[int, int], None], schedule_next: Callable[[int], object]
) -> str:
    """The watch: free the slots of dead runners, fail their task rows, queue replacements
    (`enqueue(job_id, count)`), and schedule the next watch (`schedule_next(job_id)`) while the job
    is active; both run after commit. Returns what it did, for the task's result."""
    now = timezone.now()
    # Locks the job row: resume, cancel, a runner finishing and other watches wait for this one.
    with transaction.atomic():
        job = GradingJob.objects.select_for_update().get(pk=job_id)
        if job.status not in GradingJob.ACTIVE_STATES:
            return f"job {job.status}"
        slots = list(job.slots.all())
        stale = [s for s in slots if s.worker_id and (s.heartbeat_at is None or s.heartbeat_at < now - STALE_AFTER)]
        live_rows = {task_row_of(s.worker_id) for s in slots if s not in stale and s.worker_id} - {None}
        dead_rows = [r for r in (task_row_of(s.worker_id) for s in stale) if r]
        dead_rows += _silent_runner_rows(job_id, live_rows, now)  # type: ignore[arg-type]
        failed = _fail_task_rows(sorted(set(dead_rows)), f"The worker running grading job {job_id} stopped "
                                 f"beating for more than {int(STALE_AFTER.total_seconds())} s; another worker took over.")
        GradingRunnerSlot.objects.filter(pk__in=[s.pk for s in stale]).update(worker_id="", heartbeat_at=None)
        if job.status == JobStatus.CANCELLING:
            _settle_stale_cancel(job, now)
            replacements = 0
        else:
            replacements = _replacements_needed(job, slots, stale, now)
        if replacements:
            logger.warning("Grading job %s: %d runner(s) stopped; queueing %d replacement(s)", job_id,
                           len(stale), replacements)
            transaction.on_commit(lambda: enqueue(job_id, replacements))
        transaction.on_commit(lambda: schedule_next(job_id))
    return f"freed {len(stale)} slot(s), failed {failed} task row(s), queued {replacements} runner(s)"


def _replacements_needed(job: GradingJob, slots: list, stale: list, now: datetime) -> int:
    """Runners to queue: one per freed slot, or one if the job is running with nobody on it."""
    unfinished = job.chunks.exclude(status=GradingChunk.Status.DONE).exists()
    if not unfinished:
        return 0
    if stale:
        return len(stale)
    held = [s for s in slots if s.worker_id and s.heartbeat_at and s.heartbeat_at >= now - STALE_AFTER]
    quiet = job.heartbeat_at is None or job.heartbeat_at < now - STALE_AFTER
    return 1 if job.status == JobStatus.RUNNING and not held and quiet else 0


def _settle_stale_cancel(job: GradingJob, now: datetime) -> None:
    live = job.chunks.filter(status=GradingChunk.Status.RUNNING, heartbeat_at__gte=now - STALE_AFTER)
    if not live.exists():
        job.chunks.filter(Q(status=GradingChunk.Status.RUNNING)).update(
            status=GradingChunk.Status.PENDING, heartbeat_at=None
        )
        GradingJob.objects.filter(pk=job.pk).update(status=JobStatus.CANCELLED, finished_at=now)

