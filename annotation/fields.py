"""An item's fields: one per task and criterion, MCQ, axis or translation; their ids and their names.

A field's id (`narrative-quality|`, `mcq-factual|mcq:7`) is how the code and the form find it; a
physician reads its title ("Question 2, factual check"). Numbers follow the rating screen: MCQs by
their order in the question set, criteria by their position in the item, 1-based. Every workflow
(rating, inspection, calibration, outcomes) builds its screens and checks from these.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Prefetch
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from annotation.models import (
    Item,
    ScaleCategory,
    Study,
    TaskTarget,
    TaskType,
    field_id,
)
from cases.models import MCQ, RubricCriterion, TextTranslation
from cases.translations import translation_pairs
from medreview.db.precompiled import PrecompiledQuery


@dataclass(frozen=True)
class Field:
    """One thing a rater labels on an item: a whole-case judgement, one criterion, one MCQ, one axis."""

    task: TaskType
    key: str
    label: str
    criterion: RubricCriterion | None = None
    mcq: MCQ | None = None
    categories: list[ScaleCategory] = field(default_factory=list, hash=False, compare=False)
    # Translation consistency: the two translations compared (shown as 1 and 2, never their source).
    translations: tuple[TextTranslation, TextTranslation] | None = field(default=None, hash=False, compare=False)

    @property
    def id(self) -> str:
        return field_id(self.task.slug, self.key)

    def category(self, value: str) -> ScaleCategory | None:
        return next((c for c in self.categories if c.value == value), None)

    @property
    def values(self) -> list[str]:
        return [c.value for c in self.categories]

    @property
    def anchors(self) -> list[tuple[str, str]]:
        """(score, meaning) of a shipped Likert axis, shown beside its choices."""
        return axis_anchors(self.key.removeprefix("axis:")) if self.key.startswith("axis:") else []


# study id -> (monotonic time read, the study's tasks with their scales and categories). Every claim,
# draft and submit needs them (to build or check the fields) and they change only when an admin edits
# a study, a task or a scale: each server process keeps them STUDY_TASKS_CACHE_SECONDS. An edit made
# in this process is seen at once (`forget_study_tasks`, wired to the models' signals in
# annotation.apps); in the other processes within that many seconds.
_PROCESS_TASKS: dict[int, tuple[float, tuple[TaskType, ...]]] = {}
_PROCESS_TASKS_LOCK = threading.Lock()


def forget_study_tasks() -> None:
    with _PROCESS_TASKS_LOCK:
        _PROCESS_TASKS.clear()


def _read_study_tasks(study: Study) -> tuple[TaskType, ...]:
    return tuple(
        study.tasks.select_related("scale")
        .prefetch_related(Prefetch("scale__categories", queryset=ScaleCategory.objects.order_by("order")))
        .order_by("order", "slug")
    )


def _process_study_tasks(study: Study) -> tuple[TaskType, ...]:
    ttl = float(getattr(settings, "STUDY_TASKS_CACHE_SECONDS", 5))
    if ttl <= 0:
        return _read_study_tasks(study)
    kept = _PROCESS_TASKS.get(study.pk)
    if kept is not None and time.monotonic() - kept[0] < ttl:
        return kept[1]
    # The time is taken before the read: an edit committed while reading is never kept longer than ttl.
    started = time.monotonic()
    tasks = _read_study_tasks(study)
    with _PROCESS_TASKS_LOCK:
        _PROCESS_TASKS[study.pk] = (started, tasks)
    return tasks


def study_tasks(study: Study) -> list[TaskType]:
    """The study's task types in display order, with their scale categories (2 queries, at most once
    per Study instance and, in a server process, once per STUDY_TASKS_CACHE_SECONDS).

    The task rows are shared by the requests of a process: read them, never set attributes on them.
    """
    cached = study.__dict__.get("_study_tasks")
    if cached is None:
        cached = _process_study_tasks(study)
        study.__dict__["_study_tasks"] = cached
    return list(cached)


def item_fields(item: Item, *, tasks: list[TaskType] | None = None) -> list[Field]:
    """The fields a rater fills for `item`, in display order (at most 4 queries; 2 with `tasks`).

    Computed once per Item instance and language (the titles are translated): a submit checks the
    labels against the fields, the service checks them again and the next page shows them.
    """
    if tasks is not None:
        return _item_fields(item, tasks)
    memo = item.__dict__.setdefault("_item_fields", {})
    language = get_language()
    if language not in memo:
        memo[language] = _item_fields(item, study_tasks(item.study))
    return list(memo[language])


# Read by every step of a rater (claim, draft, submit): compiled once per process.
_CRITERIA: PrecompiledQuery[RubricCriterion] = PrecompiledQuery(
    lambda revision_id: RubricCriterion.objects.filter(revision_id=revision_id).order_by("order")
)
_MCQS: PrecompiledQuery[MCQ] = PrecompiledQuery(
    lambda question_set_id: MCQ.objects.filter(question_set_id=question_set_id).order_by("order")
)


def _item_fields(item: Item, tasks: list[TaskType]) -> list[Field]:
    targets = {t.target for t in tasks}
    criteria: list[RubricCriterion] = []
    if targets & {TaskTarget.CRITERION, TaskTarget.RESPONSE_CRITERION} and item.revision_id is not None:
        criteria = _CRITERIA.all(revision_id=item.revision_id)
    mcqs: list[MCQ] = []
    if TaskTarget.MCQ in targets and item.question_set_id:
        mcqs = _MCQS.all(question_set_id=item.question_set_id)
    fields: list[Field] = []
    for task in tasks:
        if task.target == TaskTarget.TRANSLATION:
            fields.extend(_translation_fields(item, task))
            continue
        if task.item_kind != item.kind:
            continue
        categories = list(task.scale.categories.all())
        if task.target in (TaskTarget.NARRATIVE, TaskTarget.ADVICE, TaskTarget.PAIRWISE):
            fields.append(Field(task=task, key="", label=task.shown_name, categories=categories))
        elif task.target in (TaskTarget.CRITERION, TaskTarget.RESPONSE_CRITERION):
            fields.extend(
                Field(task=task, key=f"criterion:{c.pk}", label=c.text, criterion=c, categories=categories)
                for c in criteria
            )
        elif task.target == TaskTarget.MCQ:
            fields.extend(
                Field(task=task, key=f"mcq:{m.pk}", label=m.question, mcq=m, categories=categories)
                for m in mcqs
            )
        elif task.target == TaskTarget.RESPONSE_AXIS:
            fields.extend(
                Field(task=task, key=f"axis:{axis}", label=axis_label(axis), categories=categories)
                for axis in task.axes
            )
    return fields


def _translation_fields(item: Item, task: TaskType) -> list[Field]:
    """LiveClin Appendix H: one field per translated text of the item's revision with two valid
    translations in the study's language (any item kind; one query)."""
    categories = list(task.scale.categories.all())
    pairs = translation_pairs(item.revision_id, item.study.translation_language)
    return [
        Field(task=task, key=f"translation:{key}", label=pair[0].get_field_display(), categories=categories,
              translations=pair)
        for key, pair in pairs.items()
    ]


def strip_captions(details: Any) -> Any:
    """LiveClin: image captions are privileged; an examinee sees the image without them."""
    if not isinstance(details, list):
        return details
    return [{k: v for k, v in d.items() if k != "caption"} if isinstance(d, dict) else d for d in details]


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
    """`number`: the field's 1-based position on the item's screen, the number its badge shows
    (issue 21: one numbering; an MCQ is named by its question number, which its row shows)."""
    short = task_short_name(field)
    if field.mcq is not None:
        return _("Question %(number)s, %(check)s") % {"number": field.mcq.order, "check": short}
    if field.task.target in (TaskTarget.RESPONSE_AXIS, TaskTarget.TRANSLATION):
        return _("Field %(number)s, %(axis)s, %(check)s") % {"number": number, "axis": field.label, "check": short}
    return _("Field %(number)s, %(check)s") % {"number": number, "check": short}


def field_titles(fields: list[Field]) -> dict[str, str]:
    """{Field.id: title} for the fields of one item, numbered as the screen badges them (1, 2, ...)."""
    return {f.id: field_title(f, number) for number, f in enumerate(fields, start=1)}


def choices_text(field: Field) -> str:
    """"Yes or No", "Perfect, Good or Poor": the field's choices as a rater reads them."""
    labels = [c.shown_label for c in field.categories]
    if len(labels) < 2:
        return "".join(labels)
    return _("%(first)s or %(last)s") % {"first": _(", ").join(labels[:-1]), "last": labels[-1]}


def axis_label(axis: str) -> str:
    """A shipped MEDIC axis name in the interface language (other axes as named)."""
    from annotation.catalogue import zh as catalogue_zh

    if (get_language() or "").lower() == catalogue_zh.LANGUAGE:
        return catalogue_zh.AXES.get(axis, axis)
    return axis


def axis_anchors(axis: str) -> list[tuple[str, str]]:
    """What each score means on a shipped MEDIC axis, in the interface language, so a rater reads
    the anchors beside the choices instead of in the folded task rubric ([] for other axes)."""
    from annotation import catalogue
    from annotation.catalogue import zh as catalogue_zh

    if axis not in catalogue.MEDIC_AXES:
        return []
    chinese = (get_language() or "").lower() == catalogue_zh.LANGUAGE
    sections = catalogue.rubric_anchors(catalogue_zh.MEDIC_RUBRICS_ZH if chinese else catalogue.MEDIC_RUBRICS)
    if len(sections) != len(catalogue.MEDIC_AXES):
        return []
    return sections[catalogue.MEDIC_AXES.index(axis)]
