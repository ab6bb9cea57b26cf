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
