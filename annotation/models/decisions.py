"""What an inspector decided (`Inspection`) and the label that stands after it (`FinalLabel`).
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models.assignments import Assignment
from annotation.models.studies import Item
from annotation.models.tasks import TaskType
from cases.models import MCQ, RubricCriterion


class Inspection(models.Model):
    class Action(models.TextChoices):
        ACCEPT = "accept", _("Accept")
        ADJUDICATE = "adjudicate", _("Set final label")
        RETURN = "return", _("Return to annotator")
        # LiveClin: the whole question set rejected (wrong scenario, duplicate case), with a reason,
        # beside its per-field final labels.
        REJECT_SET = "reject_set", _("Reject the question set")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="inspections")
    inspector = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    action = models.CharField(max_length=12, choices=Action.choices)
    comment = models.TextField(blank=True)
    returned_to = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.PROTECT, related_name="returns"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.action} on {self.item_id}"


class FinalLabel(models.Model):
    """The label that stands for a resolved item, kept apart from the raters' own ratings.

    Written for every resolved item: by an inspector (accept / adjudicate), or automatically when
    the raters agreed and the policy sent the item to no inspection (`source` consensus, no
    inspection and no deciding user).
    """

    class Source(models.TextChoices):
        CONSENSUS = "consensus", _("Raters agreed (not inspected)")
        ACCEPTED = "accepted", _("Accepted by an inspector")
        ADJUDICATED = "adjudicated", _("Set by an inspector")

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="final_labels")
    task = models.ForeignKey(TaskType, on_delete=models.PROTECT, related_name="+")
    field_key = models.CharField(max_length=100, blank=True)
    criterion = models.ForeignKey(RubricCriterion, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    mcq = models.ForeignKey(MCQ, null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=32)
    reason = models.TextField(blank=True)
    source = models.CharField(max_length=12, choices=Source.choices, default=Source.ADJUDICATED)
    inspection = models.ForeignKey(
        Inspection, null=True, blank=True, on_delete=models.PROTECT, related_name="final_labels"
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "task", "field_key"], name="finallabel_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.item_id}/{self.field_key or '-'}: {self.label}"
