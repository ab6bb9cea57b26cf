"""Browser imports: an upload is validated (a dry run), confirmed by the admin, and run by a worker.

The worker's task is declared here, beside the services that queue and run it, so no module imports
one that imports it back.
"""

from __future__ import annotations

import logging
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from cases.models import ImportJob
from cases.services.imports import DEFAULT_GRADER_MODEL, release_import

log = logging.getLogger(__name__)


def import_job_create(
    *,
    user: AbstractBaseUser,
    fmt: str,
    data: bytes,
    file_name: str,
    dataset_name: str,
    release_label: str,
    model_name: str = "",
    grader_model: str = DEFAULT_GRADER_MODEL,
    taxonomy: str = "",
) -> ImportJob:
    """Validate the upload (a dry run) so the admin sees the report before confirming, and keep the
    file (STORAGES["imports"]: the database by default) only if it can be confirmed. One row is
    written, after the dry run; no lock needed."""
    validation = release_import(
        fmt=fmt, data=data, file_name=file_name, dataset_name=dataset_name, release_label=release_label,
        model_name=model_name, grader_model=grader_model, user=user, dry_run=True, taxonomy=taxonomy,
    )
    job = ImportJob(
        format=fmt, dataset_name=dataset_name, release_label=validation.release_label,
        model_name=model_name, grader_model=grader_model, taxonomy=taxonomy, file_name=file_name,
        sha256=validation.sha256, created_by=user, validation=validation.to_dict(),
        status=ImportJob.Status.VALIDATED if validation.ok else ImportJob.Status.REFUSED,
    )
    if validation.ok:  # a refused upload is never imported: nothing to keep
        job.file.save(Path(file_name).name or "upload", ContentFile(data), save=False)
    job.save()
    return job


def _discard_upload(job: ImportJob) -> None:
    """The import has ended: its data is in the database (or refused); the file is not kept."""
    if job.file:
        job.file.delete(save=False)
        ImportJob.objects.filter(pk=job.pk).update(file="")


def import_job_confirm(*, job: ImportJob) -> bool:
    """Queue a validated job. Returns False if it was not waiting for confirmation (e.g. a double
    click): the compare-and-swap on status makes sure a job is queued once."""
    # One row, claimed by a conditional UPDATE whose row count says whether we won.
    with transaction.atomic():
        moved = ImportJob.objects.filter(pk=job.pk, status=ImportJob.Status.VALIDATED).update(
            status=ImportJob.Status.QUEUED
        )
        if moved:
            transaction.on_commit(lambda: run_import_job.enqueue(job.pk))
    return bool(moved)


def import_job_run(*, job_id: int) -> str:
    """Run a queued job (called by the worker). Progress is written to the job row between
    stages; the writing itself is one transaction, so the page shows it as one step."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING, stage="parse"
    )
    if not claimed:
        return "skipped"
    job = ImportJob.objects.get(pk=job_id)

    def progress(stage: str, done: int, total: int) -> None:
        # Inside the import's transaction an UPDATE would only become visible at commit.
        if not transaction.get_connection().in_atomic_block:
            ImportJob.objects.filter(pk=job_id).update(stage=stage, progress_done=done, progress_total=total)

    try:
        with job.file.open("rb") as handle:
            data = handle.read()
        report = release_import(
            fmt=job.format, data=data, file_name=job.file_name, dataset_name=job.dataset_name,
            release_label=job.release_label, model_name=job.model_name,
            grader_model=job.grader_model or DEFAULT_GRADER_MODEL, user=job.created_by, progress=progress,
            taxonomy=job.taxonomy,
        )
    except Exception as exc:  # the worker must record the failure on the job, whatever it is
        log.exception("import job %s failed", job_id)
        ImportJob.objects.filter(pk=job_id).update(
            status=ImportJob.Status.FAILED, stage="done", finished_at=timezone.now(),
            report={"status": "failed", "errors": [{"file": job.file_name, "record": None, "field": None,
                                                    "message": f"internal error: {exc.__class__.__name__}"}]},
        )
        _discard_upload(job)
        return "failed"
    ImportJob.objects.filter(pk=job_id).update(
        status=ImportJob.Status.DONE if report.ok else ImportJob.Status.REFUSED,
        stage="done", report=report.to_dict(), release_id=report.release_id, finished_at=timezone.now(),
        progress_done=1, progress_total=1,
    )
    _discard_upload(job)
    return report.status


@task(queue_name="imports")
def run_import_job(job_id: int) -> str:
    """The worker's entry point for a confirmed browser import (`manage.py db_worker`)."""
    return import_job_run(job_id=job_id)
