"""Which Judge run a study's quality check uses (LiveClin Sec. 3.4, issue 20).

Pinned when the study starts (the newest question-set judge run over its sets) and changed only
by an admin (`liveclin.judge_runs.study_judge_run_pin`): a later run is offered, never swapped in
silently, so a set is never judged by verdicts its inspector did not see. Every pin is also a
`judge_run_pinned` review event in the study's audit trail.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone


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
