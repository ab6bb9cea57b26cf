"""Background tasks (django-tasks): workers run them with `manage.py db_worker --queue-name grading`."""

import socket

from django_tasks import task

from graders import services


@task(queue_name="grading")
def grading_job_run(job_id: int) -> str:
    """One runner of a grading job; a job queues `parallel_tasks` of these and they share its chunks."""
    worker = f"{socket.gethostname()}-{services.uuid.uuid4().hex[:8]}"
    return services.grading_job_work(job_id=job_id, worker_id=worker)
