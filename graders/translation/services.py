"""Machine translation of case text through any OpenAI-compatible endpoint (docs/i18n.md): planning
a job over a release or a study, and resuming it. The work itself is `graders.translation.runner`,
run by a background task (`graders.translation.tasks`); a resumed job asks only for what is missing.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from graders.endpoints.policy import check_grader_target
from graders.models import JobStatus, TranslationJob
from graders.translation.runner import (
    PROMPT_VERSION,
    pending_units,
    selection_revisions,
    translation_job_run,
)
from graders.translation.tasks import translation_job_task

__all__ = ["translation_job_create", "translation_job_resume", "translation_job_run"]


def translation_job_create(
    *, selection: dict, base_url: str, model: str, api_key_env: str, created_by: AbstractBaseUser | None,
    language: str = "zh-Hans", variant: str = "", price_input_per_1k: object = None,
    price_output_per_1k: object = None, max_attempts: int = 5, backoff_base_seconds: float = 1.0,
    enqueue: bool = True,
) -> TranslationJob:
    """Plan a translation job (the key's variable and the host are checked; the key is not read)."""
    check_grader_target(base_url=base_url, api_key_env=api_key_env)
    _revisions, label = selection_revisions(selection)
    job = TranslationJob(
        selection=selection, selection_label=label[:500], language=language, variant=variant or f"machine:{model}",
        base_url=base_url, model=model, api_key_env=api_key_env, prompt_version=PROMPT_VERSION,
        price_input_per_1k=price_input_per_1k, price_output_per_1k=price_output_per_1k,
        max_attempts=max_attempts, backoff_base_seconds=backoff_base_seconds, created_by=created_by,
    )
    job.total = len(pending_units(job))
    if job.total == 0:
        raise ValidationError({"selection": _("Nothing to translate: every field already has this translation.")})
    # One row: the job exists before its task is queued (on commit).
    with transaction.atomic():
        job.save()
        if enqueue:
            transaction.on_commit(lambda: _enqueue(job.pk))
    return job


def _enqueue(job_id: int) -> None:
    translation_job_task.enqueue(job_id=job_id)


def translation_job_resume(*, job: TranslationJob, enqueue: bool = True) -> TranslationJob:
    """Queue a stopped job again; it translates only what is still missing."""
    TranslationJob.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED, error="", finished_at=None)
    if enqueue:
        transaction.on_commit(lambda: _enqueue(job.pk))
    job.refresh_from_db()
    return job
