"""Criterion rows worded by the criterion's sign (issue 21).

LiveMedBench Table 10 asks whether a criterion is a medically necessary, correct check for the
case, and keeps the labels Agree (1) / Disagree (0). On a penalty criterion ("Recommends
pioglitazone, -7") a physician who disagrees with pioglitazone would press Disagree, and the curated
release would drop a valid check; so every criterion row asks the paper's question, says what the
criterion does to a response (penalises or rewards it), and says what each choice means for this
sign. For grader reliability, "met" on a penalty criterion means the error is present. Only the
wording changes: the stored labels (agree / disagree, met / not_met) and the reports do not.
"""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from annotation.fields import Field
from annotation.models import TaskTarget

register = template.Library()


def _is_penalty(field: Field) -> bool:
    return field.criterion is not None and field.criterion.is_penalty


@register.simple_tag
def criterion_lead(field: Field) -> str:
    """The row's question, by the criterion's sign, read just before the criterion's text (its
    points are in the badge after it). One short phrase, so a case with six criteria still fits one
    screen; Table 10's full question is the lead's tooltip (`criterion_question`) and in the task's
    instructions."""
    if field.criterion is None:
        return ""
    penalty = _is_penalty(field)
    if field.task.target == TaskTarget.RESPONSE_CRITERION:
        return _("Met = the response makes this error:") if penalty else _("Met = the response does this:")
    if field.task.target == TaskTarget.CRITERION:
        return (_("A valid check? Penalises a response that:") if penalty
                else _("A valid check? Rewards a response that:"))
    return _("Penalises a response that:") if penalty else _("Rewards a response that:")


@register.simple_tag
def criterion_question(field: Field) -> str:
    """The paper's question in full, with what each choice means for this criterion's sign."""
    if field.criterion is None:
        return ""
    if field.task.target == TaskTarget.CRITERION:
        if _is_penalty(field):
            return _("Is this a medically necessary, correct check for this case? Agree: it is right to "
                     "penalise a response for this. Disagree: the check itself is wrong or irrelevant.")
        return _("Is this a medically necessary, correct check for this case? Agree: it is right to reward "
                 "a response for this. Disagree: the check itself is wrong or irrelevant.")
    if field.task.target == TaskTarget.RESPONSE_CRITERION:
        if _is_penalty(field):
            return _("Does the response make this error? Met: the error is present. Not met: the response "
                     "avoids it.")
        return _("Does the response do this? Met: it does. Not met: it does not.")
    return ""


@register.simple_tag
def choice_meaning(field: Field, value: str) -> str:
    """A choice's meaning on this row, for screen readers (the question above says it for everyone)."""
    if field.criterion is None:
        return ""
    penalty = _is_penalty(field)
    meanings = {
        (TaskTarget.CRITERION, True, "agree"): _("a valid penalty check"),
        (TaskTarget.CRITERION, True, "disagree"): _("not a valid penalty check"),
        (TaskTarget.CRITERION, False, "agree"): _("a valid check"),
        (TaskTarget.CRITERION, False, "disagree"): _("not a valid check"),
        (TaskTarget.RESPONSE_CRITERION, True, "met"): _("the error is present"),
        (TaskTarget.RESPONSE_CRITERION, True, "not_met"): _("the error is absent"),
        (TaskTarget.RESPONSE_CRITERION, False, "met"): _("the response does this"),
        (TaskTarget.RESPONSE_CRITERION, False, "not_met"): _("the response does not do this"),
    }
    return meanings.get((field.task.target, penalty, value), "")
