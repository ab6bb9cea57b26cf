from typing import Any

from django.apps import AppConfig
from django.db.models.signals import m2m_changed, post_delete, post_save


def _tasks_changed(sender: Any, **kwargs: Any) -> None:
    from annotation.fields import forget_study_tasks

    forget_study_tasks()


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = "Physician review"

    def ready(self) -> None:
        from annotation import checks  # noqa: F401 - registers the deploy check
        from annotation.models import Scale, ScaleCategory, Study, TaskType

        # The per-process cache of a study's tasks (annotation/fields.py) forgets them when a task,
        # a scale, a category or a study's list of tasks changes in this process; other processes
        # read them again within STUDY_TASKS_CACHE_SECONDS.
        for model in (TaskType, Scale, ScaleCategory):
            post_save.connect(_tasks_changed, sender=model, dispatch_uid=f"study_tasks_saved_{model.__name__}")
            post_delete.connect(_tasks_changed, sender=model, dispatch_uid=f"study_tasks_deleted_{model.__name__}")
        m2m_changed.connect(_tasks_changed, sender=Study.tasks.through, dispatch_uid="study_tasks_m2m")
