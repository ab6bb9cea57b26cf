"""Background tasks (django-tasks): workers run them with `manage.py db_worker --queue-name grading`.

`graders.services` enqueues these on commit; they call `graders.jobs.runner`, which never imports either.
"""

from django.utils import timezone
from django_tasks import DEFAULT_TASK_BACKEND_ALIAS, TaskContext, task, task_backends

from graders.jobs import healing, runner


@task(queue_name="grading", takes_context=True)
def grading_job_run(context: TaskContext, job_id: int) -> str:
    """One runner of a grading job; a job queues `parallel_tasks` of these and they share its chunks.
    Its worker id names its django-tasks row, so a watch can mark the row failed if the worker dies."""
    worker = healing.runner_identity(context.task_result.id)
    return runner.grading_job_work(job_id=job_id, worker_id=worker)


@task(queue_name="grading")
def grading_job_watch(job_id: int) -> str:
    """Replace the dead runners of an active job; re-queues itself until the job ends."""
    return healing.grading_job_heal(job_id=job_id, enqueue=enqueue_replacements, schedule_next=schedule_watch)


def enqueue_replacements(job_id: int, count: int) -> None:
    for _ in range(count):
        grading_job_run.enqueue(job_id)


def schedule_watch(job_id: int) -> bool:
    """Queue the next watch of `job_id` (any live worker runs it); False when the backend cannot
    run a task later (immediate backend: nothing runs in the background to die)."""
    if not task_backends[DEFAULT_TASK_BACKEND_ALIAS].supports_defer:
        return False
    grading_job_watch.using(run_after=timezone.now() + healing.watch_interval()).enqueue(job_id)
    return True
