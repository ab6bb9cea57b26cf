"""The translation job's background task moved from `graders.translation_tasks` to
`graders.translation.tasks` (issue 19). A queued task is stored with its module path, so tasks queued
before the move are pointed at the new path and a worker runs them as before."""

from django.db import migrations

OLD = "graders.translation_tasks.translation_job_task"
NEW = "graders.translation.tasks.translation_job_task"


def _repoint(apps, old: str, new: str) -> None:
    task_result = apps.get_model("django_tasks_database", "DBTaskResult")
    task_result.objects.filter(task_path=old).update(task_path=new)


def forward(apps, schema_editor):
    _repoint(apps, OLD, NEW)


def backward(apps, schema_editor):
    _repoint(apps, NEW, OLD)


class Migration(migrations.Migration):
    dependencies = [
        ("graders", "0005_translation_jobs"),
        ("django_tasks_database", "0021_conditional_partial_index_ordering"),
    ]

    operations = [migrations.RunPython(forward, backward)]
