"""Background work for imports started in the browser (django-tasks; `manage.py db_worker`)."""

from django_tasks import task

from cases.services import import_job_run


@task(queue_name="imports")
def run_import_job(job_id: int) -> str:
    return import_job_run(job_id=job_id)
