"""The benchmark data physicians review: datasets, releases, cases, criteria and model responses.

Imported text is immutable. A case's identity (`Case`) is separate from its text (`CaseRevision`):
re-importing changed text adds a revision, and every rating, response and grader decision points
at the exact revision (and criteria) it was about. What automated graders said lives in `graders`.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from cases.storage import import_storage


class ImportFormat(models.TextChoices):
    LIVEMEDBENCH = "livemedbench", _("LiveMedBench cases")
    LIVEMEDBENCH_RESPONSES = "livemedbench-responses", _("LiveMedBench model responses")
    LIVEMEDBENCH_GRADES = "livemedbench-grades", _("LiveMedBench grader results")
    LIVECLIN = "liveclin", _("LiveClin question sets")
    LIVECLIN_JUDGE = "liveclin-judge", _("LiveClin Judge verdicts (pre-screen)")
    HEALTHBENCH = "healthbench", "HealthBench"
    GENERIC = "generic", _("Generic (ClinConsensus-style)")
    JUDGE_SCORES = "judge-scores", _("Judge scores collected outside medreview (holistic or per axis)")
    PAIRWISE_VERDICTS = "pairwise-verdicts", _("Pairwise verdicts collected outside medreview")
    AI_LABELS = "ai-labels", _("AI labels (taxonomy node, clinical stage, modality), JSONL")
    LIVECLIN_LABELS = "liveclin-labels", _("AI labels carried by a LiveClin release file")


class Dataset(models.Model):
    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Release(models.Model):
    """One imported file. Importing the same bytes again is detected by its SHA-256."""

    class Status(models.TextChoices):
        IMPORTED = "imported", _("Imported")
        SUPERSEDED = "superseded", _("Superseded by a later release")

    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="releases")
    label = models.CharField(max_length=100, help_text="e.g. v202601 or 2025H1")
    format = models.CharField(max_length=32, choices=ImportFormat.choices)
    model_name = models.CharField(
        max_length=200, blank=True, help_text="For response and grade files: the model that answered."
    )
    file_name = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(auto_now_add=True)
    counts = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.IMPORTED)

    class Meta:
        ordering = ["dataset", "-imported_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["dataset", "format", "sha256", "model_name"], name="release_unique_file"
            ),
        ]

    def __str__(self) -> str:
        """Unique and readable in every dropdown: dataset, label, what the file held, date and id
        (several files of one release label, e.g. each model's responses, share dataset and label)."""
        what = {
            ImportFormat.LIVEMEDBENCH_RESPONSES: "responses", ImportFormat.LIVEMEDBENCH_GRADES: "grades",
            ImportFormat.LIVECLIN_JUDGE: "Judge verdicts", ImportFormat.JUDGE_SCORES: "judge scores",
            ImportFormat.PAIRWISE_VERDICTS: "pairwise verdicts", ImportFormat.AI_LABELS: "AI labels",
            ImportFormat.LIVECLIN_LABELS: "AI labels",
        }.get(self.format, "")
        detail = " ".join(p for p in (self.model_name, what) if p)
        date = f"{self.imported_at:%Y-%m-%d}" if self.imported_at else ""
        parts = [f"{self.dataset} {self.label}", detail, date]
        return " · ".join(p for p in parts if p) + (f" (#{self.pk})" if self.pk else "")

    @property
    def names(self) -> str:
        """Only the names people gave (dataset, label, model), for pages that say what the file held
        in the reader's language beside them (`get_format_display`); `str()` is for logs and the admin."""
        return " · ".join(p for p in (f"{self.dataset} {self.label}", self.model_name) if p)


class Specialty(models.Model):
    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "specialties"

    def __str__(self) -> str:
        return self.name


class Theme(models.Model):
    """A task theme (HealthBench `theme:` tags, ClinConsensus task types)."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Case(models.Model):
    """The identity of a case within its dataset; its text lives in revisions."""

    dataset = models.ForeignKey(Dataset, on_delete=models.PROTECT, related_name="cases")
    external_id = models.CharField(max_length=200)
    current_revision = models.ForeignKey(
        "CaseRevision", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["dataset", "external_id"]
        constraints = [
            models.UniqueConstraint(fields=["dataset", "external_id"], name="case_unique_external_id"),
        ]

    def __str__(self) -> str:
        return f"{self.dataset}:{self.external_id}"


class Difficulty(models.TextChoices):
    LOW = "low", _("Low")
    MEDIUM = "medium", _("Medium")
    HIGH = "high", _("High")


class Register(models.TextChoices):
    LAY = "lay", _("Lay-facing")
    PROFESSIONAL = "professional", _("Professional-facing")


class CaseRevisionQuerySet(models.QuerySet["CaseRevision"]):
    def current(self) -> "CaseRevisionQuerySet":
        return self.filter(case__current_revision=models.F("pk"))


class CaseRevision(models.Model):
    """The exact text of a case as imported from one release. Never edited after creation."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="revisions")
    number = models.PositiveIntegerField(help_text="1 for the first import, then 2, 3, ...")
    release = models.ForeignKey(Release, on_delete=models.PROTECT, related_name="case_revisions")
    content_hash = models.CharField(max_length=64, help_text="SHA-256 of the canonical content")
    post_time = models.DateTimeField(null=True, blank=True)
    language = models.CharField(max_length=16, blank=True, help_text="BCP 47 code, e.g. en or zh")
    narrative = models.TextField(blank=True)
    core_request = models.TextField(blank=True, help_text="The patient's query")
    doctor_advice = models.TextField(blank=True, help_text="Reference physician advice / answer")
    conversation = models.JSONField(
        default=list, blank=True, help_text="HealthBench-style turns: [{role, content}, ...]"
    )
    specialties = models.ManyToManyField(Specialty, blank=True, related_name="case_revisions")
    themes = models.ManyToManyField(Theme, blank=True, related_name="case_revisions")
    difficulty = models.CharField(max_length=8, choices=Difficulty.choices, blank=True)
    register = models.CharField(max_length=16, choices=Register.choices, blank=True)
    icd_chapter = models.CharField(max_length=200, blank=True)
    disease_cluster = models.CharField(max_length=200, blank=True)
    rarity = models.CharField(max_length=100, blank=True)
    source = models.CharField(max_length=500, blank=True)
    extra = models.JSONField(default=dict, blank=True, help_text="Source keys medreview has no column for")
    raw = models.JSONField(default=dict, blank=True, help_text="The source record exactly as imported")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = CaseRevisionQuerySet.as_manager()

    class Meta:
        ordering = ["case", "number"]
        constraints = [
            models.UniqueConstraint(fields=["case", "number"], name="caserevision_unique_number"),
            models.UniqueConstraint(fields=["case", "content_hash"], name="caserevision_unique_content"),
        ]
        indexes = [models.Index(fields=["post_time"])]

    def __str__(self) -> str:
        return f"{self.case} r{self.number}"


class RubricCriterion(models.Model):
    revision = models.ForeignKey(CaseRevision, on_delete=models.PROTECT, related_name="criteria")
    order = models.PositiveIntegerField()
    text = models.TextField()
    points = models.SmallIntegerField(help_text="-10..10; negative points are penalties")
    axis = models.CharField(max_length=100, blank=True)
    tags = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["revision", "order"]
        verbose_name_plural = "rubric criteria"
        constraints = [
            models.UniqueConstraint(fields=["revision", "order"], name="criterion_unique_order"),
            models.CheckConstraint(
                condition=Q(points__gte=-10) & Q(points__lte=10), name="criterion_points_range"
            ),
        ]

    def __str__(self) -> str:
        return f"[{self.points:+d}] {self.text[:80]}"

    @property
    def is_penalty(self) -> bool:
        return self.points < 0


class QuestionSet(models.Model):
    """LiveClin: a progressive exam built on one case report (the revision holds the metadata)."""

    revision = models.OneToOneField(CaseRevision, on_delete=models.PROTECT, related_name="question_set")
    scenario = models.TextField()
    scenario_images = models.JSONField(default=list, blank=True)
    scenario_tables = models.JSONField(default=list, blank=True)
    # LiveClin Appendix G's privileged information: only the auditor (factual validation) sees it.
    case_report = models.TextField(blank=True, help_text="The source case report (Markdown); empty when not imported")
    report_source = models.CharField(max_length=16, blank=True, help_text='"record", "side file", or "" (missing)')
    captions = models.JSONField(
        default=list, blank=True, help_text='Image captions: [{"mcq": 0 (scenario) or position, "image", "caption"}]'
    )

    def __str__(self) -> str:
        return f"Question set of {self.revision}"


MCQ_LETTERS = "ABCDEFGHIJ"


class MCQ(models.Model):
    question_set = models.ForeignKey(QuestionSet, on_delete=models.PROTECT, related_name="mcqs")
    order = models.PositiveIntegerField()
    stage = models.CharField(max_length=200, blank=True, help_text="Clinical stage")
    question = models.TextField()
    options = models.JSONField(help_text='{"A": "...", ..., "J": "..."}')
    correct_answer = models.CharField(max_length=1)
    image_details = models.JSONField(default=list, blank=True)
    table_details = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["question_set", "order"]
        verbose_name = "MCQ"
        verbose_name_plural = "MCQs"
        constraints = [
            models.UniqueConstraint(fields=["question_set", "order"], name="mcq_unique_order"),
            models.CheckConstraint(
                condition=Q(correct_answer__in=list(MCQ_LETTERS)), name="mcq_answer_letter"
            ),
        ]

    def __str__(self) -> str:
        return f"MCQ {self.order}: {self.question[:60]}"


class ModelResponse(models.Model):
    """One model's answer to the exact revision of a case it was shown."""

    revision = models.ForeignKey(CaseRevision, on_delete=models.PROTECT, related_name="responses")
    model_name = models.CharField(max_length=200)
    text = models.TextField()
    finish_reason = models.CharField(max_length=50, blank=True)
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.PROTECT, related_name="responses"
    )
    raw = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision", "model_name"]
        constraints = [
            models.UniqueConstraint(fields=["revision", "model_name"], name="response_unique_model"),
        ]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.revision}"


class ImportJobQuerySet(models.QuerySet["ImportJob"]):
    def active(self) -> "ImportJobQuerySet":
        return self.filter(status__in=[ImportJob.Status.QUEUED, ImportJob.Status.RUNNING])


class ImportJob(models.Model):
    """An import started from the browser: the uploaded file, its dry-run report, then the import
    run by a background worker, which reads the file from MEDIA_ROOT."""

    class Status(models.TextChoices):
        VALIDATED = "validated", _("Validated, waiting for confirmation")
        REFUSED = "refused", _("Refused (errors in the file)")
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        DONE = "done", _("Done")
        FAILED = "failed", _("Failed")

    format = models.CharField(max_length=32, choices=ImportFormat.choices)
    dataset_name = models.CharField(max_length=100)
    release_label = models.CharField(max_length=100)
    model_name = models.CharField(max_length=200, blank=True)
    grader_model = models.CharField(max_length=200, blank=True)
    taxonomy = models.CharField(max_length=101, blank=True, help_text="AI labels: the taxonomy (key or key@version)")
    # Stored through STORAGES["imports"] (the database by default), so any worker can read it; deleted
    # when the import ends (refused, imported or failed).
    file = models.FileField(upload_to="imports/%Y/%m/", storage=import_storage, blank=True)
    file_name = models.CharField(max_length=500)
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.VALIDATED)
    stage = models.CharField(max_length=32, blank=True, help_text="parse / write / done")
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    validation = models.JSONField(default=dict, blank=True, help_text="The dry-run report")
    report = models.JSONField(default=dict, blank=True, help_text="The import report")
    release = models.ForeignKey(
        Release, null=True, blank=True, on_delete=models.SET_NULL, related_name="import_jobs"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ImportJobQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Import {self.pk}: {self.file_name} ({self.get_status_display()})"

    @property
    def is_active(self) -> bool:
        return self.status in {self.Status.QUEUED, self.Status.RUNNING}

    @property
    def stage_display(self) -> str:
        """Where a running import is, in the reader's language."""
        stages = {"parse": _("reading the file"), "write": _("writing"), "done": _("done")}
        return str(stages.get(self.stage, self.stage))

    @property
    def percent(self) -> int:
        if self.status == self.Status.DONE:
            return 100
        return int(100 * self.progress_done / self.progress_total) if self.progress_total else 0


class TranslatableField(models.TextChoices):
    """The fields of a revision that may carry translations (`TextTranslation.field`)."""

    NARRATIVE = "narrative", _("Narrative")
    QUERY = "query", _("Query")
    ADVICE = "advice", _("Reference advice")
    CRITERION = "criterion", _("Rubric criterion")
    SCENARIO = "scenario", _("Question-set scenario")
    MCQ_STEM = "mcq_stem", _("MCQ stem")
    MCQ_OPTION = "mcq_option", _("MCQ option")


class TextTranslationQuerySet(models.QuerySet["TextTranslation"]):
    def shown(self) -> "TextTranslationQuerySet":
        """Translations a physician may read: an invalid machine answer never is."""
        return self.filter(status=TextTranslation.Status.VALID)


class TextTranslation(models.Model):
    """One field of a revision in another language (docs/i18n.md). Never edited: a better
    translation is another row (another `variant`), so a rating keeps pointing at what was read.

    `key` names the field within the revision: narrative, query, advice, scenario,
    criterion:<criterion id>, mcq:<mcq id>:stem, mcq:<mcq id>:option:<letter>.
    """

    class Source(models.TextChoices):
        IMPORTED = "imported", _("Imported with a release")
        MACHINE = "machine", _("Machine translation")
        HUMAN = "human", _("Human translation")

    class Status(models.TextChoices):
        VALID = "valid", _("Valid")
        INVALID = "invalid", _("Invalid (empty or not in the target language; never shown)")

    revision = models.ForeignKey(CaseRevision, on_delete=models.PROTECT, related_name="translations")
    field = models.CharField(max_length=16, choices=TranslatableField.choices)
    key = models.CharField(max_length=100)
    language = models.CharField(max_length=16, help_text="BCP 47, e.g. zh-Hans")
    variant = models.CharField(
        max_length=64, default="default", help_text="Which translation, e.g. professional or o3"
    )
    text = models.TextField(blank=True)
    source = models.CharField(max_length=12, choices=Source.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.VALID)
    problem = models.CharField(max_length=200, blank=True, help_text="Why it is invalid")
    engine = models.CharField(max_length=200, blank=True, help_text="Machine output: the model that translated")
    prompt_version = models.CharField(max_length=64, blank=True)
    job_id = models.PositiveIntegerField(null=True, blank=True, help_text="The translation job that wrote it")
    file_name = models.CharField(max_length=500, blank=True, help_text="Imported: the translation file")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TextTranslationQuerySet.as_manager()

    class Meta:
        ordering = ["revision_id", "key", "language", "variant"]
        constraints = [
            models.UniqueConstraint(
                fields=["revision", "key", "language", "variant"], name="translation_unique_variant"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.revision_id}/{self.key} [{self.language}/{self.variant}]"


class StoredFile(models.Model):
    """An uploaded import file kept in the database (cases.storage.DatabaseStorage): web servers
    and workers on different machines read it without a shared filesystem."""

    name = models.CharField(max_length=500, unique=True)
    content = models.BinaryField()
    size = models.PositiveBigIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.size} bytes)"


# Taxonomies and AI labels (LiveClin App. E, I, J) live in their own module of this package; imported
# here so that Django registers them and `from cases.models import Taxonomy` works like for the rest.
from cases.models.taxonomy import AILabel, Taxonomy, TaxonomyLevel, TaxonomyNode  # noqa: E402, F401
