"""Running a translation job: what is left to translate, the calls, and what is stored (docs/i18n.md).

Called by the background task (`graders.translation.tasks`); imports neither it nor the services
that queue it. Each call is retried with backoff by `graders.endpoints.client.complete`; a call that still
fails is counted and left for a resume; an answer that is empty or not in the target language is
stored as an invalid translation, which physicians never see.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from annotation.models import Study
from cases.models import CaseRevision, Release, TextTranslation
from cases.translations import language_problem, same_language, source_texts
from graders.endpoints.client import Endpoint, MissingApiKey, complete, make_client
from graders.models import JobStatus, TranslationJob

PROMPT_VERSION = "translate-v1"
LANGUAGE_NAMES = {"zh": "Simplified Chinese", "en": "English"}

SYSTEM_PROMPT = (
    "You are a professional medical translator. Translate the clinical text you are given into {language}, "
    "faithfully and completely: keep every symptom, value, unit, drug, dose, diagnosis and time expression; "
    "add nothing and explain nothing. Answer with the translation only."
)
USER_PROMPT = "Field: {field}\n<source_text>\n{text}\n</source_text>"


def selection_revisions(selection: dict) -> tuple[list[CaseRevision], str]:
    """The revisions a job translates and a label for it; ValidationError for a bad selection."""
    if "study" in selection:
        study = Study.objects.filter(pk=selection["study"]).first()
        if study is None:
            raise ValidationError({"selection": _("No such study.")})
        ids = study.items.values_list("revision_id", flat=True).distinct()
        return list(CaseRevision.objects.filter(pk__in=ids).order_by("pk")), f"study {study.name}"
    if "release" in selection:
        release = Release.objects.filter(pk=selection["release"]).select_related("dataset").first()
        if release is None:
            raise ValidationError({"selection": _("No such release.")})
        return list(CaseRevision.objects.filter(release=release).order_by("pk")), f"release {release}"
    raise ValidationError({"selection": _('Give {"study": id} or {"release": id}.')})


@dataclass(frozen=True)
class Unit:
    revision: CaseRevision
    key: str
    field: str
    text: str


def pending_units(job: TranslationJob) -> list[Unit]:
    """Fields of the selection without a translation of this job's language and variant yet."""
    revisions, _label = selection_revisions(job.selection)
    done = set(
        TextTranslation.objects.filter(revision__in=revisions, language=job.language, variant=job.variant)
        .values_list("revision_id", "key")
    )
    return [
        Unit(revision=r, key=key, field=field, text=text)
        for r in revisions
        if not same_language(r.language, job.language)
        for key, (field, text) in source_texts(r).items()
        if text.strip() and (r.pk, key) not in done
    ]


def _endpoint(job: TranslationJob) -> Endpoint:
    return Endpoint(
        base_url=job.base_url, model=job.model, api_key_env=job.api_key_env, temperature=0.0,
        max_tokens=job.max_tokens, timeout_seconds=job.timeout_seconds, max_attempts=job.max_attempts,
        backoff_base_seconds=job.backoff_base_seconds,
    )


def _messages(job: TranslationJob, unit: Unit) -> list[dict[str, str]]:
    language = LANGUAGE_NAMES.get(job.language.split("-")[0].lower(), job.language)
    return [
        {"role": "system", "content": SYSTEM_PROMPT.format(language=language)},
        {"role": "user", "content": USER_PROMPT.format(field=unit.field, text=unit.text)},
    ]


def translation_job_run(*, job_id: int, sleep: Callable[[float], None] = time.sleep) -> str:
    """Translate what is missing, one field at a time; stops early when the job is cancelled."""
    job = TranslationJob.objects.get(pk=job_id)
    if job.status not in (JobStatus.QUEUED, JobStatus.RUNNING):
        return f"job {job_id} is {job.status}"
    endpoint = _endpoint(job)
    try:
        client = make_client(endpoint)
    except MissingApiKey as exc:
        TranslationJob.objects.filter(pk=job_id).update(status=JobStatus.FAILED, error=str(exc), finished_at=timezone.now())
        return str(exc)
    TranslationJob.objects.filter(pk=job_id).update(status=JobStatus.RUNNING, started_at=timezone.now(), failed=0)
    for unit in pending_units(job):
        if TranslationJob.objects.filter(pk=job_id, status=JobStatus.CANCELLING).exists():
            TranslationJob.objects.filter(pk=job_id).update(status=JobStatus.CANCELLED, finished_at=timezone.now())
            return f"job {job_id} cancelled"
        _translate_one(job, client, endpoint, unit, sleep)
    job.refresh_from_db()
    status = JobStatus.FAILED if job.failed else JobStatus.DONE
    error = f"{job.failed} field(s) failed after every retry; resume to try them again." if job.failed else ""
    TranslationJob.objects.filter(pk=job_id).update(status=status, error=error, finished_at=timezone.now())
    return f"job {job_id}: {job.done} stored, {job.invalid} invalid, {job.failed} failed"


def _translate_one(job: TranslationJob, client: object, endpoint: Endpoint, unit: Unit, sleep: Callable) -> None:
    result = complete(client, endpoint, _messages(job, unit), sleep=sleep)
    counters = {"retries": F("retries") + result.retries, "heartbeat_at": timezone.now(),
                "input_tokens": F("input_tokens") + (result.input_tokens or 0),
                "output_tokens": F("output_tokens") + (result.output_tokens or 0)}
    if not result.ok:
        TranslationJob.objects.filter(pk=job.pk).update(failed=F("failed") + 1, **counters)
        return
    problem = language_problem(result.text, job.language)
    # One field: the translation and the job's counters move together.
    with transaction.atomic():
        _translation, created = TextTranslation.objects.get_or_create(
            revision=unit.revision, key=unit.key, language=job.language, variant=job.variant,
            defaults={
                "field": unit.field, "text": result.text.strip(), "source": TextTranslation.Source.MACHINE,
                "status": TextTranslation.Status.INVALID if problem else TextTranslation.Status.VALID,
                "problem": problem, "engine": job.model, "prompt_version": job.prompt_version, "job_id": job.pk,
            },
        )
        if created:
            counters["done"] = F("done") + 1
            if problem:
                counters["invalid"] = F("invalid") + 1
        TranslationJob.objects.filter(pk=job.pk).update(**counters)
