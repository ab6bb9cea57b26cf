"""The background task of a translation job (`manage.py db_worker --queue-name grading`)."""

from django_tasks import task

from graders.translation.runner import translation_job_run


@task(queue_name="grading")
def translation_job_task(job_id: int) -> str:
    return translation_job_run(job_id=job_id)
