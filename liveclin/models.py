"""Which Judge run a study's quality check uses (LiveClin Sec. 3.4, issue 20).

Pinned when the study starts (the newest question-set judge run over its sets) and changed only
by an admin (`liveclin.judge_runs.study_judge_run_pin`): a later run is offered, never swapped in
silently, so a set is never judged by verdicts its inspector did not see. Every pin is also a
`judge_run_pinned` review event in the study's audit trail.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class StudyJudgeRun(models.Model):
    study = models.OneToOneField("annotation.Study", on_delete=models.CASCADE, primary_key=True,
                                 related_name="judge_pin")
    run = models.ForeignKey("graders.GraderRun", on_delete=models.PROTECT, related_name="study_pins")
    pinned_at = models.DateTimeField(default=timezone.now)
    pinned_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")

    class Meta:
        verbose_name = "study Judge run"

    def __str__(self) -> str:
        return f"study {self.study_id} uses Judge run {self.run_id}"


# --- Physician tasks over the AI's labels (LiveClin App. E and J; `liveclin.labelling`) ---------


class LabelTask(models.Model):
    """One physician task over a release's cases and the AI labels imported for them.

    - *Assignment* (App. E): each unit is a case; experts pick level 1, 2 and 3 of `taxonomy` without
      seeing the AI's label, which is compared afterwards.
    - *Audit* (App. J): each unit is one AI label (an image's or table's modality); the physician sees
      the item and the label and marks it correct, or corrects it.
    A unit whose raters disagree, or whose AI label a physician corrected, goes to inspection."""

    class Kind(models.TextChoices):
        ASSIGNMENT = "assignment", _("Blind taxonomy assignment")
        AUDIT = "audit", _("AI label audit")

    class Status(models.TextChoices):
        OPEN = "open", _("Open for answers")
        CLOSED = "closed", _("Closed")

    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    taxonomy = models.ForeignKey("cases.Taxonomy", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="label_tasks", help_text="Assignment tasks: the taxonomy experts pick from")
    ai_model = models.CharField(max_length=200, blank=True,
                                help_text="The model whose labels are compared or audited (empty: any)")
    raters_per_unit = models.PositiveSmallIntegerField(default=1)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(raters_per_unit__gte=1), name="labeltask_raters_min"),
            models.CheckConstraint(condition=~Q(kind="assignment") | Q(taxonomy__isnull=False),
                                   name="labeltask_assignment_taxonomy"),
        ]

    def __str__(self) -> str:
        return self.name


class LabelTaskMember(models.Model):
    class Role(models.TextChoices):
        RATER = "rater", _("Rater")
        INSPECTOR = "inspector", _("Inspector")

    task = models.ForeignKey(LabelTask, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="label_memberships")
    role = models.CharField(max_length=10, choices=Role.choices)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["task", "user", "role"], name="labeltaskmember_unique")]

    def __str__(self) -> str:
        return f"{self.user} as {self.role} in {self.task}"


class LabelUnit(models.Model):
    """One thing to label: a case (assignment) or one AI label (audit)."""

    class Status(models.TextChoices):
        OPEN = "open", _("Collecting answers")
        INSPECTION = "inspection", _("Awaiting inspection")
        RESOLVED = "resolved", _("Resolved")

    task = models.ForeignKey(LabelTask, on_delete=models.CASCADE, related_name="units")
    revision = models.ForeignKey("cases.CaseRevision", on_delete=models.PROTECT, related_name="label_units")
    ai_label = models.ForeignKey("cases.AILabel", null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="label_units", help_text="Audit tasks: the label audited")
    order = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)

    class Meta:
        ordering = ["task", "order"]
        constraints = [
            models.UniqueConstraint(fields=["task", "order"], name="labelunit_unique_order"),
            models.UniqueConstraint(fields=["task", "revision", "ai_label"], name="labelunit_unique_target"),
        ]

    def __str__(self) -> str:
        return f"unit {self.order} of {self.task}"


class LabelAnswer(models.Model):
    """One physician's answer. Assignment: `node` is the level-3 node picked (levels 1 and 2 are its
    ancestors, so a path can never be inconsistent). Audit: `verdict`, and `value` when corrected."""

    class Verdict(models.TextChoices):
        CORRECT = "correct", _("Correct")
        EDITED = "edited", _("Correct with edit")

    unit = models.ForeignKey(LabelUnit, on_delete=models.CASCADE, related_name="answers")
    rater = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="label_answers")
    node = models.ForeignKey("cases.TaxonomyNode", null=True, blank=True, on_delete=models.PROTECT,
                             related_name="+")
    verdict = models.CharField(max_length=8, choices=Verdict.choices, blank=True)
    value = models.CharField(max_length=500, blank=True, help_text="Audit: the right label when corrected")
    comment = models.TextField(blank=True)
    seconds = models.PositiveIntegerField(null=True, blank=True)
    submitted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["unit", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["unit", "rater"], name="labelanswer_one_per_rater"),
            models.CheckConstraint(
                condition=(Q(node__isnull=False, verdict="") | Q(node__isnull=True, verdict="correct", value="")
                           | (Q(node__isnull=True, verdict="edited") & ~Q(value=""))),
                name="labelanswer_shape",
            ),
        ]

    def __str__(self) -> str:
        return f"answer of {self.rater_id} on {self.unit}"


class LabelDecision(models.Model):
    """An inspector's final label for a unit sent to inspection (the final label, like every task)."""

    unit = models.OneToOneField(LabelUnit, on_delete=models.CASCADE, related_name="decision")
    inspector = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    node = models.ForeignKey("cases.TaxonomyNode", null=True, blank=True, on_delete=models.PROTECT,
                             related_name="+")
    verdict = models.CharField(max_length=8, choices=LabelAnswer.Verdict.choices, blank=True)
    value = models.CharField(max_length=500, blank=True)
    reason = models.TextField(blank=True)
    decided_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"decision on {self.unit}"


# --- Expert-guided consolidation (LiveClin App. I, J; `liveclin.consolidation`) -------------------


class Consolidation(models.Model):
    """One version of a mapping that groups granular labels (a question's clinical stage, an image's
    or table's modality) into intermediate categories (level 2) and final ones (level 1), by keyword
    rules and explicit mappings. A version is never edited once physicians review it: a change is a
    new version (`based_on`), and reports name the version they used."""

    class Kind(models.TextChoices):
        STAGE = "stage", _("Clinical stage")
        MODALITY = "modality", _("Modality")

    class Status(models.TextChoices):
        REVIEW = "review", _("In physician review")
        APPROVED = "approved", _("Approved")

    key = models.SlugField(max_length=50)
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    name = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.REVIEW)
    based_on = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    note = models.TextField(blank=True, help_text="What changed from the version it is based on")
    reviewers = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="consolidations_to_review")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    approved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["key", "-version"]
        constraints = [models.UniqueConstraint(fields=["key", "version"], name="consolidation_unique_version")]

    def __str__(self) -> str:
        return f"{self.key} v{self.version}"


class ConsolidationCategory(models.Model):
    """A final category (level 1) or an intermediate one (level 2, under a final one)."""

    consolidation = models.ForeignKey(Consolidation, on_delete=models.CASCADE, related_name="categories")
    level = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=50)
    name = models.CharField(max_length=200)
    name_zh = models.CharField(max_length=200, blank=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.CASCADE, related_name="children")
    order = models.PositiveIntegerField()

    class Meta:
        ordering = ["consolidation", "order"]
        verbose_name_plural = "consolidation categories"
        constraints = [
            models.UniqueConstraint(fields=["consolidation", "code"], name="consolidationcategory_unique_code"),
            models.CheckConstraint(condition=Q(level=1, parent__isnull=True) | Q(level=2, parent__isnull=False),
                                   name="consolidationcategory_levels"),
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class ConsolidationRule(models.Model):
    """A keyword rule (the label contains the keyword, any case) or an explicit mapping (the label,
    exactly, any case), placing labels in an intermediate category. Mappings win over keywords;
    keywords are tried in order."""

    class Kind(models.TextChoices):
        KEYWORD = "keyword", _("Keyword")
        MAPPING = "mapping", _("Explicit mapping")

    consolidation = models.ForeignKey(Consolidation, on_delete=models.CASCADE, related_name="rules")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    pattern = models.CharField(max_length=500)
    category = models.ForeignKey(ConsolidationCategory, on_delete=models.CASCADE, related_name="rules")
    order = models.PositiveIntegerField()
    note = models.TextField(blank=True, help_text="Why (a physician's reason for a move)")

    class Meta:
        ordering = ["consolidation", "order"]
        constraints = [models.UniqueConstraint(fields=["consolidation", "kind", "pattern"],
                                               name="consolidationrule_unique_pattern")]

    def __str__(self) -> str:
        return f"{self.kind} {self.pattern!r} -> {self.category.code}"


class ConsolidationReview(models.Model):
    """A physician's review of one label's place: accept it, or move it (with a reason)."""

    class Action(models.TextChoices):
        ACCEPT = "accept", _("Accept")
        MOVE = "move", _("Move")

    consolidation = models.ForeignKey(Consolidation, on_delete=models.CASCADE, related_name="reviews")
    label = models.CharField(max_length=500)
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=8, choices=Action.choices)
    category = models.ForeignKey(ConsolidationCategory, null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="+")
    reason = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["consolidation", "label", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["consolidation", "label", "reviewer"], name="consolidationreview_one"),
            models.CheckConstraint(condition=Q(action="accept", category__isnull=True)
                                   | (Q(action="move", category__isnull=False) & ~Q(reason="")),
                                   name="consolidationreview_move_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.label!r} in {self.consolidation}"


class ModelAnswer(models.Model):
    """A benchmarked model's answer to one MCQ, from an imported score file (`import_model_scores`):
    the per-category results of LiveClin Fig. 7A, 7C and 8 are shares of these that are correct."""

    mcq = models.ForeignKey("cases.MCQ", on_delete=models.PROTECT, related_name="model_answers")
    revision = models.ForeignKey("cases.CaseRevision", on_delete=models.PROTECT, related_name="+")
    model_name = models.CharField(max_length=200)
    answer = models.CharField(max_length=1, blank=True, help_text="The letter the model chose (empty: none)")
    correct = models.BooleanField()
    file_name = models.CharField(max_length=500)
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision", "mcq", "model_name"]
        constraints = [models.UniqueConstraint(fields=["mcq", "model_name"], name="modelanswer_one_per_model")]

    def __str__(self) -> str:
        return f"{self.model_name} on {self.mcq_id}: {self.answer or '-'}"
