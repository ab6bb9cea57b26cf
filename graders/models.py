"""Grader configurations and grading jobs (see graders/services.py).

The decisions a job makes live in cases (GraderRun, GraderDecision, JudgeScore, PairwiseJudgement) so
the agreement reports read imported and job-made grader output alike. This app keeps how a grader is
called (`GraderConfig`, immutable `PromptTemplate` versions) and how far a job got (`GradingJob`,
`GradingChunk`).
"""

import os
import re
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone

from cases.models import GraderKind, GraderRun

ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

# A runner writes its heartbeat about every second while it works; after this long without one the job (or a
# chunk) is considered abandoned by a killed worker and may be resumed or taken over.
STALE_AFTER = timedelta(seconds=getattr(settings, "GRADERS_STALE_SECONDS", 30))


def validate_env_name(value: str) -> None:
    if not ENV_NAME_RE.match(value):
        raise ValidationError(
            "Enter the NAME of an environment variable (letters, digits and _, not starting with a digit), "
            "never the key itself."
        )


class PromptTemplate(models.Model):
    """One version of a grader prompt. Never edited: a changed text is a new version."""

    kind = models.CharField(max_length=20, choices=GraderKind.choices)
    version = models.CharField(max_length=100)
    text = models.TextField(
        help_text="System prompt, a line '<<<USER>>>', then the user prompt; {placeholders} are filled in"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["kind", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "version"], name="prompttemplate_unique_version"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.version}"


class GraderConfig(models.Model):
    """How to call one automated grader. The API key is read from `api_key_env` at call time."""

    name = models.CharField(max_length=200, unique=True)
    kind = models.CharField(max_length=20, choices=GraderKind.choices)
    base_url = models.URLField(max_length=500, help_text="OpenAI-compatible endpoint, e.g. http://host:8000/v1")
    model = models.CharField(max_length=200, help_text="Model name sent to the endpoint")
    temperature = models.FloatField(default=0.0, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)])
    max_tokens = models.PositiveIntegerField(default=512, validators=[MinValueValidator(1)])
    concurrency = models.PositiveSmallIntegerField(
        default=8, validators=[MinValueValidator(1), MaxValueValidator(256)],
        help_text="Most requests in flight for one job, across all workers",
    )
    timeout_seconds = models.FloatField(default=60.0, validators=[MinValueValidator(0.01)])
    max_attempts = models.PositiveSmallIntegerField(
        default=5, validators=[MinValueValidator(1), MaxValueValidator(20)],
        help_text="Calls per decision before it is recorded as failed",
    )
    backoff_base_seconds = models.FloatField(
        default=1.0, validators=[MinValueValidator(0.0)],
        help_text="Retry n waits a random time in [0, base * 2^n] (exponential backoff, full jitter)",
    )
    price_input_per_1k = models.DecimalField(
        max_digits=12, decimal_places=6, null=True, blank=True, help_text="Price per 1,000 input tokens"
    )
    price_output_per_1k = models.DecimalField(
        max_digits=12, decimal_places=6, null=True, blank=True, help_text="Price per 1,000 output tokens"
    )
    api_key_env = models.CharField(
        max_length=100, validators=[validate_env_name],
        help_text="Name of the environment variable holding the API key (the key is never stored)",
    )
    prompt = models.ForeignKey(PromptTemplate, on_delete=models.PROTECT, related_name="configs")
    axes = models.JSONField(default=list, blank=True, help_text="Likert judge: the axes to score, by name")
    structured_output = models.BooleanField(
        default=True, help_text="Ask for JSON-schema structured output (falls back to parsing if rejected)"
    )
    structured_output_rejected = models.BooleanField(
        default=False, help_text="Set when the endpoint refused response_format json_schema; reset on edit"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(concurrency__gte=1), name="graderconfig_concurrency_min"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.prompt_id and self.kind and self.prompt.kind != self.kind:
            raise ValidationError({"prompt": f"This is a {self.prompt.kind} prompt; the grader is a {self.kind}."})

    @property
    def prompt_version(self) -> str:
        return self.prompt.version

    @property
    def key_available(self) -> bool:
        """Whether this process has the key variable set (workers need it; the value is never read out)."""
        return bool(os.environ.get(self.api_key_env))

    @property
    def uses_structured_output(self) -> bool:
        return self.structured_output and not self.structured_output_rejected


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    CANCELLING = "cancelling", "Cancelling"
    CANCELLED = "cancelled", "Cancelled"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class GradingJobQuerySet(models.QuerySet["GradingJob"]):
    def active(self) -> "GradingJobQuerySet":
        return self.filter(status__in=GradingJob.ACTIVE_STATES)


class GradingJob(models.Model):
    """One grader applied to a selection; writes into exactly one GraderRun (resume continues it)."""

    ACTIVE_STATES = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.CANCELLING)
    RESUMABLE_STATES = (JobStatus.CANCELLED, JobStatus.FAILED)

    config = models.ForeignKey(GraderConfig, on_delete=models.PROTECT, related_name="jobs")
    run = models.OneToOneField(GraderRun, on_delete=models.PROTECT, related_name="grading_job")
    selection = models.JSONField(
        help_text='{"study": id} | {"release": id} | {"dataset": id, "models": [names]}'
    )
    selection_label = models.CharField(max_length=500, blank=True)
    prompt = models.ForeignKey(PromptTemplate, on_delete=models.PROTECT, related_name="jobs")
    snapshot = models.JSONField(
        default=dict, blank=True,
        help_text="The grader's settings when the job was created (never the key); resume uses these",
    )
    status = models.CharField(max_length=12, choices=JobStatus.choices, default=JobStatus.QUEUED)
    parallel_tasks = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(1), MaxValueValidator(64)],
        help_text="Background tasks that share the job; each uses concurrency / parallel_tasks threads",
    )
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0, help_text="Stored decisions, including invalid and failed")
    invalid = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    retries = models.PositiveIntegerField(default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    # Prices are copied from the config when the job is created so later edits do not rewrite history.
    price_input_per_1k = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    price_output_per_1k = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    objects = GradingJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"Job {self.pk}: {self.config} on {self.selection_label}"

    @property
    def estimated_cost(self) -> Decimal | None:
        """Cost of the tokens used so far, or None when the grader has no prices."""
        if self.price_input_per_1k is None and self.price_output_per_1k is None:
            return None
        cost = Decimal(self.input_tokens) * (self.price_input_per_1k or 0) / 1000
        cost += Decimal(self.output_tokens) * (self.price_output_per_1k or 0) / 1000
        return cost.quantize(Decimal("0.0001"))

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else (100 if self.status == JobStatus.DONE else 0)

    @property
    def is_stale(self) -> bool:
        """Running (or cancelling) but no runner has reported for a while: its worker died."""
        if self.status not in (JobStatus.RUNNING, JobStatus.CANCELLING, JobStatus.QUEUED):
            return False
        last = self.heartbeat_at or self.created_at
        return last is not None and timezone.now() - last > STALE_AFTER

    @property
    def can_cancel(self) -> bool:
        return self.status in (JobStatus.QUEUED, JobStatus.RUNNING) or (
            self.status == JobStatus.CANCELLING and self.is_stale
        )

    @property
    def can_resume(self) -> bool:
        return self.status in self.RESUMABLE_STATES or (
            self.status in (JobStatus.RUNNING, JobStatus.QUEUED) and self.is_stale
        )


class GradingChunk(models.Model):
    """A slice of a job's work units that one runner claims at a time.

    `units` are unit keys (see graders.units). A chunk claimed by a runner that stopped reporting is
    taken over by another runner or on resume; stored decisions are never asked again.
    """

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        RUNNING = "running", "Running"
        DONE = "done", "Done"

    job = models.ForeignKey(GradingJob, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    units = models.JSONField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    claimed_by = models.CharField(max_length=64, blank=True)
    claims = models.PositiveSmallIntegerField(default=0)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="gradingchunk_unique_index"),
        ]
        indexes = [models.Index(fields=["job", "status"])]

    def __str__(self) -> str:
        return f"job {self.job_id} chunk {self.index} ({self.status})"


class GradingRunnerSlot(models.Model):
    """One of a job's `parallel_tasks` runner slots.

    A runner works only while it holds a slot (its heartbeat fresh), so however many runner tasks get
    queued (resumes, retries), at most parallel_tasks x (concurrency // parallel_tasks) requests are in
    flight: the config's concurrency is a limit for the whole job across workers.
    """

    job = models.ForeignKey(GradingJob, on_delete=models.CASCADE, related_name="slots")
    index = models.PositiveSmallIntegerField()
    worker_id = models.CharField(max_length=64, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["job", "index"]
        constraints = [
            models.UniqueConstraint(fields=["job", "index"], name="gradingrunnerslot_unique_index"),
        ]

    def __str__(self) -> str:
        return f"job {self.job_id} slot {self.index}"
