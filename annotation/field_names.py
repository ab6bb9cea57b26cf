"""Fields named in the rater's words ("Question 2, factual check"), for error messages and pages.

A field's id (`narrative-quality|`, `mcq-factual|mcq:7`) is how the code and the form find it; a
physician reads its title. Numbers follow the rating screen: MCQs by their order in the question
set, criteria by their position in the item, 1-based.
"""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import TaskTarget
from annotation.selectors import Field

# What a task checks, in a few words, by what its fields are. MCQ tasks split by what they show:
# the factual check sees the privileged source, the solvability check only what an examinee sees.
# (Marked with gettext_noop; translated when a title is made, in the rater's language.)
_SHORT = {
    TaskTarget.NARRATIVE: gettext_noop("narrative and query quality"),
    TaskTarget.ADVICE: gettext_noop("physician advice quality"),
    TaskTarget.CRITERION: gettext_noop("validity"),
    TaskTarget.RESPONSE_CRITERION: gettext_noop("met by the response"),
    TaskTarget.RESPONSE_AXIS: gettext_noop("score"),
    TaskTarget.PAIRWISE: gettext_noop("preference"),
    TaskTarget.TRANSLATION: gettext_noop("consistency"),
}


def task_short_name(field: Field) -> str:
    if field.task.target == TaskTarget.MCQ:
        return _("factual check") if field.task.shows_privileged_source else _("solvability check")
    short = _SHORT.get(field.task.target)
    return _(short) if short else field.task.shown_name


def field_title(field: Field, number: int) -> str:
    """`number`: the field's 1-based position among its task's fields on this item."""
    short = task_short_name(field)
    if field.mcq is not None:
        return _("Question %(number)s, %(check)s") % {"number": field.mcq.order, "check": short}
    if field.criterion is not None:
        return _("Criterion %(number)s, %(check)s") % {"number": number, "check": short}
    if field.task.target in (TaskTarget.RESPONSE_AXIS, TaskTarget.TRANSLATION):
        return _("%(axis)s, %(check)s") % {"axis": field.label, "check": short}
    return short[:1].upper() + short[1:]


def field_titles(fields: list[Field]) -> dict[str, str]:
    """{Field.id: title} for the fields of one item, numbered per task."""
    seen: dict[int, int] = {}
    titles = {}
    for f in fields:
        seen[f.task.pk] = seen.get(f.task.pk, 0) + 1
        titles[f.id] = field_title(f, seen[f.task.pk])
    return titles


def choices_text(field: Field) -> str:
    """"Yes or No", "Perfect, Good or Poor": the field's choices as a rater reads them."""
    labels = [c.shown_label for c in field.categories]
    if len(labels) < 2:
        return "".join(labels)
    return _("%(first)s or %(last)s") % {"first": _(", ").join(labels[:-1]), "last": labels[-1]}
