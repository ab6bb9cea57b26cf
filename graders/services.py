"""Writes of the graders app: prompt versions, grader configs, and the life cycle of grading jobs
(create, cancel, resume, retry). How a job runs is in `graders/jobs/runner.py`; the worker's entry point is
`graders/tasks.py`. Imports go services -> tasks -> runner, never back, so none of them form a cycle.

A job is planned here: every work unit of the selection, split into `GradingChunk`s, and `parallel_tasks`
runner tasks enqueued on commit. Cancel is a status flag runners check after every batch; resume re-queues
the unfinished chunks of the same job (and GraderRun): only the units without a stored answer are asked
again.
"""

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from graders.jobs.runner import answer_models, reconcile
from graders.jobs.units import all_units, selection_label, selection_responses
from graders.kinds import prompts, question_set_judge
from graders.models import (
    GraderConfig,
    GraderKind,
    GraderRun,
    GradingChunk,
    GradingJob,
    GradingRunnerSlot,
    JobStatus,
    JudgeScore,
    PromptTemplate,
    Verdict,
)
from medreview.errors import ConflictError

UNITS_PER_THREAD = 16  # chunk size = threads x this, so a chunk's tail wastes at most 1/16 of it
MAX_CHUNK = 1000


# ------------------------------------------------------------------------------------------ prompts


def prompt_template_get_or_create(
    *, kind: str, version: str, text: str, created_by: AbstractBaseUser | None = None
) -> PromptTemplate:
    """The template for (kind, version); a version that exists with another text is refused."""
    version = version.strip()
    problems = prompts.validate_template(kind, text)
    if not version:
        problems.append(_("Give the prompt a version."))
    if problems:
        raise ValidationError({"prompt_text": problems})
    # One transaction so two admins saving the same new version cannot both create it.
    with transaction.atomic():
        existing = PromptTemplate.objects.select_for_update().filter(kind=kind, version=version).first()
        if existing is not None:
            if existing.text.replace("\r\n", "\n").strip() != text.replace("\r\n", "\n").strip():
                raise ValidationError({"prompt_version": _(
                    "Version %(version)s of the %(kind)s prompt exists with a different text; prompt versions are "
                    "immutable, so give the edited prompt a new version.") % {"version": version, "kind": kind}})
            return existing
        return PromptTemplate.objects.create(kind=kind, version=version, text=text, created_by=created_by)


def prompt_template_default(*, kind: str) -> PromptTemplate:
    """The built-in prompt for a kind (version v1), created on first use."""
    return prompt_template_get_or_create(
        kind=kind, version=prompts.DEFAULT_VERSION, text=prompts.DEFAULT_PROMPTS[kind]
    )


# ------------------------------------------------------------------------------------------ configs

CONFIG_FIELDS = (
    "name", "kind", "base_url", "model", "temperature", "max_tokens", "concurrency", "timeout_seconds",
    "max_attempts", "backoff_base_seconds", "price_input_per_1k", "price_output_per_1k", "api_key_env",
    "axes", "structured_output",
)


def grader_config_save(
    *,
    config: GraderConfig | None,
    data: dict[str, Any],
    prompt_text: str,
    prompt_version: str,
    user: AbstractBaseUser | None,
) -> GraderConfig:
    """Create or update a grader config; an edited prompt text must come with a new version."""
    kind = data.get("kind") or (config.kind if config else "")
    # One transaction: the prompt version and the config that points at it are saved together.
    with transaction.atomic():
        template = prompt_template_get_or_create(
            kind=kind, version=prompt_version, text=prompt_text, created_by=user
        )
        config = config or GraderConfig()
        endpoint_changed = config.pk is not None and (
            config.base_url != data.get("base_url", config.base_url) or config.model != data.get("model", config.model)
        )
        for name in CONFIG_FIELDS:
            if name in data:
                setattr(config, name, data[name])
        if config.kind == GraderKind.LIKERT_JUDGE and not config.axes:
            config.axes = list(prompts.LIKERT_AXES)
        if endpoint_changed or not config.structured_output:
            config.structured_output_rejected = False  # a new endpoint deserves a new try
        config.prompt = template
        config.full_clean()
        config.save()
    return config


def grader_config_delete(*, config: GraderConfig) -> None:
    """Delete a grader that never ran; its jobs (and their runs) keep it alive."""
    # Locks the config row so a job cannot be created for it between the check and the delete.
    with transaction.atomic():
        locked = GraderConfig.objects.select_for_update().get(pk=config.pk)
        if GradingJob.objects.filter(config=locked).exists():
            raise ConflictError(_("This grader has grading jobs; it cannot be deleted."))
        locked.delete()


# ------------------------------------------------------------------------------------------ jobs


def _snapshot(config: GraderConfig) -> dict[str, Any]:
    return {
        "name": config.name, "kind": config.kind, "base_url": config.base_url, "model": config.model,
        "temperature": config.temperature, "max_tokens": config.max_tokens, "concurrency": config.concurrency,
        "timeout_seconds": config.timeout_seconds, "max_attempts": config.max_attempts,
        "backoff_base_seconds": config.backoff_base_seconds, "api_key_env": config.api_key_env,
        "axes": list(config.axes or []), "structured_output": config.structured_output,
    }


def _enqueue_runners(job_id: int, count: int) -> None:
    from graders.tasks import grading_job_run, schedule_watch

    for _runner in range(count):
        grading_job_run.enqueue(job_id)
    # A watch follows the job while it is active, so a runner whose worker dies is replaced by
    # whichever worker is alive (graders/jobs/healing.py); no one has to press Resume.
    schedule_watch(job_id)


def chunk_sizes(total: int, *, threads: int, parallel_tasks: int) -> list[int]:
    """How many units each chunk holds, in the order runners claim them: large first, then shrinking.

    A runner claims a whole chunk, so the job ends when the last chunk's calls do; with equal chunks
    of threads x UNITS_PER_THREAD one runner could still be on its last 16 rounds of calls while the
    others sit idle. Guided self-scheduling gives each chunk a share of what is left (left / (2 x
    runners)), between one round of every thread (at least 16 units) and the full size, so the last
    chunks take one round each and all runners finish within about a round of each other.
    """
    big = max(16, min(MAX_CHUNK, threads * UNITS_PER_THREAD))
    small = min(big, max(16, threads))
    sizes, left = [], total
    while left > 0:
        size = min(left, big, max(small, -(-left // (2 * max(1, parallel_tasks)))))
        sizes.append(size)
        left -= size
    return sizes


def grading_job_create(
    *,
    config: GraderConfig,
    selection: dict[str, Any],
    created_by: AbstractBaseUser | None,
    parallel_tasks: int = 2,
) -> GradingJob:
    """Plan a job over a selection and queue its runners (after commit)."""
    if config.kind == GraderKind.QUESTION_SET_JUDGE:
        # LiveClin's Judge grades question sets, not model responses: one unit per set.
        units = question_set_judge.all_units(selection)
    else:
        axes = list(config.axes or prompts.LIKERT_AXES) if config.kind == GraderKind.LIKERT_JUDGE else []
        units = all_units(config.kind, selection_responses(selection), axes=axes)
    if not units:
        raise ValidationError({"selection": _("The selection has nothing to grade (no responses, criteria, pairs "
                                              "or question sets).")})
    parallel_tasks = max(1, min(parallel_tasks, config.concurrency))
    threads = max(1, config.concurrency // parallel_tasks)
    sizes = chunk_sizes(len(units), threads=threads, parallel_tasks=parallel_tasks)
    chunks = len(sizes)
    # A small job has fewer chunks than runners: fewer runners then each get a bigger share of threads.
    parallel_tasks = min(parallel_tasks, chunks)
    label = selection_label(selection)
    # One transaction: the run, the job and all its chunks exist together or not at all.
    with transaction.atomic():
        run = GraderRun.objects.create(
            name=f"{config.name} ({timezone.now():%Y-%m-%d %H:%M})", kind=config.kind,
            grader_model=config.model, prompt_version=config.prompt.version,
        )
        job = GradingJob.objects.create(
            config=config, run=run, selection=selection, selection_label=label[:500], prompt=config.prompt,
            snapshot=_snapshot(config), parallel_tasks=parallel_tasks, total=len(units),
            price_input_per_1k=config.price_input_per_1k, price_output_per_1k=config.price_output_per_1k,
            created_by=created_by,
        )
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        GradingChunk.objects.bulk_create(
            GradingChunk(job=job, index=i, units=[list(u) for u in units[start : start + size]])
            for i, (start, size) in enumerate(zip(starts, sizes, strict=True))
        )
        GradingRunnerSlot.objects.bulk_create(GradingRunnerSlot(job=job, index=i) for i in range(parallel_tasks))
        transaction.on_commit(lambda: _enqueue_runners(job.pk, parallel_tasks))
    return job


def grading_job_cancel(*, job: GradingJob) -> GradingJob:
    """Ask the runners to stop; a job nobody is running is cancelled at once."""
    # Locks the job row so cancel, resume and a runner finishing cannot interleave.
    with transaction.atomic():
        job = GradingJob.objects.select_for_update().get(pk=job.pk)
        if not job.can_cancel:
            raise ConflictError(_("A job in the state “%(status)s” cannot be cancelled.")
                                % {"status": job.get_status_display()})
        if job.status == JobStatus.QUEUED or job.is_stale:
            job.chunks.filter(status=GradingChunk.Status.RUNNING).update(
                status=GradingChunk.Status.PENDING, heartbeat_at=None
            )
            job.status = JobStatus.CANCELLED
            job.finished_at = timezone.now()
        else:
            job.status = JobStatus.CANCELLING
        job.save(update_fields=["status", "finished_at"])
    return job


def grading_job_resume(*, job: GradingJob) -> GradingJob:
    """Queue the job's unfinished chunks again; stored answers are kept and never asked again."""
    # Locks the job row (and its chunks) so two resumes cannot start two sets of runners.
    with transaction.atomic():
        job = GradingJob.objects.select_for_update().get(pk=job.pk)
        if not job.can_resume:
            raise ConflictError(_("A job in the state “%(status)s” cannot be resumed.")
                                % {"status": job.get_status_display()})
        # Only a stopped or stalled job gets here, so no live runner holds a chunk or a slot.
        job.chunks.filter(status=GradingChunk.Status.RUNNING).update(
            status=GradingChunk.Status.PENDING, heartbeat_at=None
        )
        job.slots.update(worker_id="", heartbeat_at=None)
        pending = job.chunks.exclude(status=GradingChunk.Status.DONE).count()
        job.status = JobStatus.QUEUED
        job.error = ""
        job.finished_at = None
        job.heartbeat_at = timezone.now()
        job.save(update_fields=["status", "error", "finished_at", "heartbeat_at"])
        runners = max(1, min(job.parallel_tasks, pending))
        transaction.on_commit(lambda: _enqueue_runners(job.pk, runners))
    return job


def grading_job_retry_failed(*, job: GradingJob) -> GradingJob:
    """Forget the answers that failed after all retries and ask those units again."""
    # Locks the job row: the failed answers are deleted and the job re-queued as one step.
    with transaction.atomic():
        job = GradingJob.objects.select_for_update().get(pk=job.pk)
        if job.status in GradingJob.ACTIVE_STATES and not job.is_stale:
            raise ConflictError(_("Wait until the job has stopped before retrying its failed decisions."))
        for model in answer_models(job.run.kind):
            status_field = "status" if model is JudgeScore else "verdict"
            model.objects.filter(run=job.run, **{status_field: Verdict.FAILED}).delete()
        reconcile(job)
        job.chunks.update(status=GradingChunk.Status.PENDING, heartbeat_at=None)
        job.slots.update(worker_id="", heartbeat_at=None)
        job.status = JobStatus.QUEUED
        job.error = ""
        job.finished_at = None
        job.heartbeat_at = timezone.now()
        job.save()
        runners = max(1, min(job.parallel_tasks, job.chunks.count()))
        transaction.on_commit(lambda: _enqueue_runners(job.pk, runners))
    return job
