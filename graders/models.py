"""Automated graders: what they said, how they are called and how far a grading job got.

Grader output (`GraderRun` with its `GraderDecision`, `JudgeScore` and `PairwiseJudgement` rows) is
written alike by imported `livemedbench-grades` files and by grading jobs, so the agreement reports
read both the same way; its tables were created by `cases` and keep their names. This app also keeps
how a grader is called (`GraderConfig`, immutable `PromptTemplate` versions) and how far a job got
(`GradingJob`, `GradingChunk`, `GradingRunnerSlot`; see graders/services.py and graders/jobs/runner.py).
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
from django.utils.translation import gettext_lazy as _

from cases.models import ModelResponse, QuestionSet, Release, RubricCriterion
from graders.endpoints.policy import check_grader_target


class GraderKind(models.TextChoices):
    RUBRIC_GRADER = "rubric-grader", _("Rubric grader (one criterion per call)")
    LLM_JUDGE = "llm-judge", _("LLM-as-judge (holistic score)")
    LIKERT_JUDGE = "likert-judge", _("Likert judge (1-5 per axis)")
    PAIRWISE_JUDGE = "pairwise-judge", _("Pairwise judge (A / B / tie)")
    QUESTION_SET_JUDGE = "question-set-judge", _("Question-set judge (LiveClin pre-screen, per MCQ)")


class GraderRun(models.Model):
    """One automated grader applied to responses: imported from a file or run by a grading job."""

    name = models.CharField(max_length=200, help_text="Shown in reports, e.g. 'GPT-4.1 rubric grader'")
    kind = models.CharField(max_length=20, choices=GraderKind.choices)
    grader_model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=100, blank=True)
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.PROTECT, related_name="grader_runs",
        help_text="Set when the decisions were imported from a file",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "cases_graderrun"  # created by `cases`; kept when the model moved here
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name


class Verdict(models.TextChoices):
    MET = "met", _("Met")
    NOT_MET = "not_met", _("Not met")
    INVALID = "invalid", _("Invalid output")
    FAILED = "failed", _("Failed (no answer after retries)")


class GraderOutputFields(models.Model):
    """What every automated judgement keeps: the raw output is never dropped."""

    raw_output = models.TextField(blank=True)
    reasoning = models.TextField(blank=True, help_text="Reasoning or the quoted evidence")
    error = models.TextField(blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True


class GraderDecision(GraderOutputFields):
    """A grader's verdict on one criterion for one response."""

    run = models.ForeignKey(GraderRun, on_delete=models.CASCADE, related_name="decisions")
    response = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="grader_decisions")
    criterion = models.ForeignKey(RubricCriterion, on_delete=models.PROTECT, related_name="grader_decisions")
    verdict = models.CharField(max_length=8, choices=Verdict.choices)

    class Meta:
        db_table = "cases_graderdecision"  # created by `cases`; kept when the model moved here
        ordering = ["run", "response", "criterion"]
        constraints = [
            models.UniqueConstraint(fields=["run", "response", "criterion"], name="decision_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.criterion_id} on {self.response_id}: {self.verdict}"

    @property
    def met(self) -> bool | None:
        return {Verdict.MET: True, Verdict.NOT_MET: False}.get(self.verdict)


class JudgeScore(GraderOutputFields):
    """A judge's score for one response: holistic (axis "") or on one named axis (Likert)."""

    run = models.ForeignKey(GraderRun, on_delete=models.CASCADE, related_name="scores")
    response = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="judge_scores")
    axis = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=8, choices=Verdict.choices, default=Verdict.MET,
                              help_text="met = a valid score; invalid / failed otherwise")
    raw_score = models.FloatField(null=True, blank=True)
    normalized_score = models.FloatField(null=True, blank=True, help_text="In [0, 1]")

    class Meta:
        db_table = "cases_judgescore"  # created by `cases`; kept when the model moved here
        ordering = ["run", "response", "axis"]
        constraints = [
            models.UniqueConstraint(fields=["run", "response", "axis"], name="judgescore_unique"),
            models.CheckConstraint(
                condition=Q(normalized_score__isnull=True)
                | (Q(normalized_score__gte=0) & Q(normalized_score__lte=1)),
                name="judgescore_normalized_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.response_id} {self.axis or 'overall'}: {self.normalized_score}"


class PairwiseVerdict(models.TextChoices):
    A = "A", _("A is better")
    B = "B", _("B is better")
    TIE = "tie", _("Tie")
    INVALID = "invalid", _("Invalid output")
    FAILED = "failed", _("Failed")


class PairwiseJudgement(GraderOutputFields):
    """A pairwise judge's verdict; each pair is asked in both orders to measure position bias.

    `verdict` is expressed in terms of `response_a` / `response_b` regardless of `order`.
    """

    class Order(models.TextChoices):
        AB = "ab", _("A shown first")
        BA = "ba", _("B shown first")

    run = models.ForeignKey(GraderRun, on_delete=models.CASCADE, related_name="pairwise")
    response_a = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="+")
    response_b = models.ForeignKey(ModelResponse, on_delete=models.PROTECT, related_name="+")
    order = models.CharField(max_length=2, choices=Order.choices)
    verdict = models.CharField(max_length=8, choices=PairwiseVerdict.choices)

    class Meta:
        db_table = "cases_pairwisejudgement"  # created by `cases`; kept when the model moved here
        constraints = [
            models.UniqueConstraint(
                fields=["run", "response_a", "response_b", "order"], name="pairwise_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.response_a_id} vs {self.response_b_id} ({self.order}): {self.verdict}"


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


class QuestionSetJudgement(GraderOutputFields):
    """LiveClin's Judge agent on one question set (Appendix G): per MCQ a factual validation and a
    logical solvability verdict. `checks` holds one block per MCQ the answer covered:
    {"mcq": MCQ id, "position": 1.., "factual": true/false/null, "factual_explanation",
    "solvability": true/false/null, "solvability_explanation"} (null: not a boolean, invalid).
    `verdict`: met = every check of every MCQ passed (the set passed the pre-screen), not_met = the
    Judge flagged something, invalid = the answer could not be read whole, failed = no answer."""

    run = models.ForeignKey(GraderRun, on_delete=models.CASCADE, related_name="question_set_judgements")
    question_set = models.ForeignKey(QuestionSet, on_delete=models.PROTECT, related_name="judgements")
    verdict = models.CharField(max_length=8, choices=Verdict.choices)
    checks = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["run", "question_set"]
        constraints = [
            models.UniqueConstraint(fields=["run", "question_set"], name="questionsetjudgement_unique"),
        ]

    def __str__(self) -> str:
        return f"Judge on {self.question_set_id}: {self.verdict}"


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
            raise ValidationError({"prompt": _("This is a %(prompt)s prompt; the grader is a %(grader)s.")
                                   % {"prompt": self.prompt.kind, "grader": self.kind}})
        # Which variable may hold the key and which hosts may receive it (the worker checks again).
        check_grader_target(base_url=self.base_url or "", api_key_env=self.api_key_env or "")

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
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    CANCELLING = "cancelling", _("Cancelling")
    CANCELLED = "cancelled", _("Cancelled")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class JobProgress:
    """Progress and cost of a background job over OpenAI-compatible calls (grading, translation):
    derived from the counters and prices its model stores, so both kinds show them alike."""

    done: int
    total: int
    status: str
    input_tokens: int
    output_tokens: int
    price_input_per_1k: Decimal | None
    price_output_per_1k: Decimal | None

    @property
    def estimated_cost(self) -> Decimal | None:
        """Cost of the tokens used so far, or None when the endpoint has no prices."""
        if self.price_input_per_1k is None and self.price_output_per_1k is None:
            return None
        cost = Decimal(self.input_tokens) * (self.price_input_per_1k or 0) / 1000
        cost += Decimal(self.output_tokens) * (self.price_output_per_1k or 0) / 1000
        return cost.quantize(Decimal("0.0001"))

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else (100 if self.status == JobStatus.DONE else 0)


class GradingJobQuerySet(models.QuerySet["GradingJob"]):
    def active(self) -> "GradingJobQuerySet":
        return self.filter(status__in=GradingJob.ACTIVE_STATES)


class GradingJob(JobProgress, models.Model):
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

    `units` are unit keys (see graders.jobs.units). A chunk claimed by a runner that stopped reporting is
    taken over by another runner or on resume; stored decisions are never asked again.
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")

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



class TranslationJob(JobProgress, models.Model):
    """A machine-translation job: a release's or a study's case text translated through an
    OpenAI-compatible endpoint into `cases.TextTranslation` rows (graders/translation/services.py, docs/i18n.md).
    The key is read from the environment variable named here and never stored."""

    ACTIVE_STATES = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.CANCELLING)

    selection = models.JSONField(help_text='{"study": id} | {"release": id}')
    selection_label = models.CharField(max_length=500, blank=True)
    language = models.CharField(max_length=16, default="zh-Hans", help_text="Target language (BCP 47)")
    variant = models.CharField(max_length=64, help_text="Stored as the translations' variant, e.g. machine:o3")
    base_url = models.URLField(max_length=500)
    model = models.CharField(max_length=200)
    api_key_env = models.CharField(max_length=100, validators=[validate_env_name])
    prompt_version = models.CharField(max_length=64)
    max_tokens = models.PositiveIntegerField(default=2048)
    timeout_seconds = models.FloatField(default=120.0)
    max_attempts = models.PositiveSmallIntegerField(default=5, validators=[MinValueValidator(1), MaxValueValidator(20)])
    backoff_base_seconds = models.FloatField(default=1.0)
    price_input_per_1k = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    price_output_per_1k = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    status = models.CharField(max_length=12, choices=JobStatus.choices, default=JobStatus.QUEUED)
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0, help_text="Stored translations, valid or invalid")
    invalid = models.PositiveIntegerField(default=0, help_text="Empty or not in the target language")
    failed = models.PositiveIntegerField(default=0, help_text="Calls that failed after every retry")
    retries = models.PositiveIntegerField(default=0)
    input_tokens = models.PositiveBigIntegerField(default=0)
    output_tokens = models.PositiveBigIntegerField(default=0)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"Translation job {self.pk}: {self.selection_label} -> {self.language}"
