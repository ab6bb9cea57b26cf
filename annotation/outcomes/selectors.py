"""Every field of every item of some studies with its ratings (all rounds) and its final decision.

The one reader behind the long-format label exports, the curation and the study page: it loads a
study's items, fields, ratings and final labels in six queries (no per-item query) and asks
`final_labels.decide_final_label` for each field. Raters appear by their pseudonym.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotation.models import FinalLabel, Item, Rating, ReviewEvent, Study, TaskTarget, TaskType
from annotation.outcomes.effort import EffortReport, summarize_effort
from annotation.outcomes.final_labels import FinalDecision, decide_final_label
from cases.models import MCQ, RubricCriterion

_CRITERION_TARGETS = (TaskTarget.CRITERION, TaskTarget.RESPONSE_CRITERION)
_SINGLE_TARGETS = (TaskTarget.NARRATIVE, TaskTarget.ADVICE, TaskTarget.PAIRWISE)


@dataclass(frozen=True)
class RatingRow:
    rater: str  # pseudonym
    rater_name: str  # username; exported only for admins who ask
    round: int
    label: str
    comment: str
    seconds: int
    created_at: datetime | None
    pair_order: str = ""  # pairs: ab / ba, the order this rater was shown


@dataclass(frozen=True)
class FieldOutcome:
    study_id: int
    item_id: int
    item_key: str
    item_status: str
    dataset: str
    case: str  # the case's external id
    revision_id: int
    release_id: int
    task: str
    target: str
    field_key: str
    position: int | None  # criterion / MCQ order (1-based), axis index; None for one-field tasks
    decision: FinalDecision
    reason: str
    decided_by: str  # pseudonym of the inspector, "" otherwise
    ratings: tuple[RatingRow, ...]
    model_a: str = ""  # pairs: the canonical A (item.response) and B (item.response_b) models
    model_b: str = ""

    @property
    def first_round(self) -> tuple[str, ...]:
        return tuple(r.label for r in self.ratings if r.round == 1)


@dataclass(frozen=True)
class _Field:
    task: TaskType
    key: str
    position: int | None


def _pseudonym(user_id: int | None, pseudonym: str | None) -> str:
    if user_id is None:
        return ""
    return pseudonym or f"R-{user_id}"


def _positions(items: list[dict[str, Any]], targets: set[str]) -> tuple[dict[int, list], dict[int, list]]:
    """(criteria by revision, MCQs by question set): [(pk, order)] in order, loaded only if needed."""
    criteria: dict[int, list] = defaultdict(list)
    mcqs: dict[int, list] = defaultdict(list)
    if targets & set(_CRITERION_TARGETS):
        rows = RubricCriterion.objects.filter(revision_id__in={i["revision_id"] for i in items})
        for revision_id, pk, order in rows.order_by("revision_id", "order").values_list("revision_id", "pk", "order"):
            criteria[revision_id].append((pk, order))
    if TaskTarget.MCQ in targets:
        sets = {i["question_set_id"] for i in items if i["question_set_id"]}
        rows = MCQ.objects.filter(question_set_id__in=sets).order_by("question_set_id", "order")
        for set_id, pk, order in rows.values_list("question_set_id", "pk", "order"):
            mcqs[set_id].append((pk, order))
    return criteria, mcqs


def _fields(item: dict[str, Any], tasks: list[TaskType], criteria: dict, mcqs: dict) -> Iterator[_Field]:
    for task in tasks:
        if task.item_kind != item["kind"]:
            continue
        if task.target in _SINGLE_TARGETS:
            yield _Field(task, "", None)
        elif task.target in _CRITERION_TARGETS:
            yield from (_Field(task, f"criterion:{pk}", order) for pk, order in criteria[item["revision_id"]])
        elif task.target == TaskTarget.MCQ:
            yield from (_Field(task, f"mcq:{pk}", order) for pk, order in mcqs[item["question_set_id"]])
        elif task.target == TaskTarget.RESPONSE_AXIS:
            yield from (_Field(task, f"axis:{axis}", n) for n, axis in enumerate(task.axes, start=1))


def _ratings(study_ids: list[int], item_ids: Iterable[int] | None) -> dict[tuple[int, int, str], list[RatingRow]]:
    ratings: dict[tuple[int, int, str], list[RatingRow]] = defaultdict(list)
    rows = Rating.objects.filter(assignment__item__study_id__in=study_ids)
    if item_ids is not None:
        rows = rows.filter(assignment__item_id__in=list(item_ids))
    rows = (
        rows
        .order_by("assignment__item_id", "task_id", "field_key", "round", "assignment__rater__profile__pseudonym", "pk")
        .values_list("assignment__item_id", "task_id", "field_key", "assignment__rater_id",
                     "assignment__rater__profile__pseudonym", "assignment__rater__username", "round", "label",
                     "comment", "seconds_spent", "created_at", "assignment__pair_order")
    )
    for item_id, task_id, key, rater_id, pseudonym, username, rnd, label, comment, seconds, created, order in rows:
        ratings[(item_id, task_id, key)].append(
            RatingRow(_pseudonym(rater_id, pseudonym), username, rnd, label, comment, seconds, created, order))
    return ratings


def _finals(study_ids: list[int], item_ids: Iterable[int] | None) -> dict[tuple[int, int, str], tuple[str, str, str, str]]:
    rows = FinalLabel.objects.filter(item__study_id__in=study_ids)
    if item_ids is not None:
        rows = rows.filter(item_id__in=list(item_ids))
    rows = rows.values_list(
        "item_id", "task_id", "field_key", "label", "source", "reason", "decided_by_id",
        "decided_by__profile__pseudonym")
    return {(i, t, k): (label, source, reason, _pseudonym(uid, ps)) for i, t, k, label, source, reason, uid, ps in rows}


def field_outcomes(studies: Iterable[Study], *, item_ids: Iterable[int] | None = None) -> list[FieldOutcome]:
    """Every field of every item of `studies` (or of the given items), ordered by study, item, task
    order and position."""
    studies = list(studies)
    item_ids = list(item_ids) if item_ids is not None else None
    study_ids = [s.pk for s in studies]
    per_item = {s.pk: s.raters_per_item for s in studies}
    tasks_by_study: dict[int, list[TaskType]] = defaultdict(list)
    links = Study.tasks.through.objects.filter(study_id__in=study_ids).select_related("tasktype")
    for link in links.order_by("tasktype__order", "tasktype__slug"):
        tasks_by_study[link.study_id].append(link.tasktype)
    item_rows = Item.objects.filter(study_id__in=study_ids)
    if item_ids is not None:
        item_rows = item_rows.filter(pk__in=list(item_ids))
    items = list(
        item_rows.order_by("study_id", "pk").values(
            "pk", "study_id", "key", "kind", "status", "revision_id", "question_set_id",
            "revision__case__external_id", "revision__case__dataset__name", "revision__release_id",
            "response__model_name", "response_b__model_name")
    )
    targets = {t.target for ts in tasks_by_study.values() for t in ts}
    criteria, mcqs = _positions(items, targets)
    ratings = _ratings(study_ids, item_ids)
    finals = _finals(study_ids, item_ids)
    outcomes = []
    for item in items:
        for f in _fields(item, tasks_by_study[item["study_id"]], criteria, mcqs):
            rated = tuple(ratings.get((item["pk"], f.task.pk, f.key), ()))
            label, source, reason, decided_by = finals.get((item["pk"], f.task.pk, f.key), (None, None, "", ""))
            decision = decide_final_label(
                stored_label=label, stored_source=source, first_round=[r.label for r in rated if r.round == 1],
                raters_per_item=per_item[item["study_id"]],
            )
            outcomes.append(FieldOutcome(
                study_id=item["study_id"], item_id=item["pk"], item_key=item["key"], item_status=item["status"],
                dataset=item["revision__case__dataset__name"], case=item["revision__case__external_id"],
                revision_id=item["revision_id"], release_id=item["revision__release_id"], task=f.task.slug,
                target=f.task.target, field_key=f.key, position=f.position, decision=decision, reason=reason,
                decided_by=decided_by, ratings=rated,
                model_a=item["response__model_name"] or "" if item["kind"] == "pair" else "",
                model_b=item["response_b__model_name"] or "" if item["kind"] == "pair" else "",
            ))
    return outcomes


def _seconds(data: object) -> int:
    seconds = data.get("seconds") if isinstance(data, dict) else None
    return seconds if isinstance(seconds, int) and seconds >= 0 else 0


def study_effort(study: Study) -> EffortReport:
    """Active review time per rater (every submitted and revised round), items per hour, cost."""
    rounds = (
        ReviewEvent.objects.filter(study=study, kind__in=(ReviewEvent.Kind.SUBMITTED, ReviewEvent.Kind.REVISED))
        .order_by("pk").values_list("actor_id", "actor__profile__pseudonym", "item_id", "data")
    )
    return summarize_effort(
        ((_pseudonym(actor, pseudonym), item, _seconds(data)) for actor, pseudonym, item, data in rounds
         if actor is not None),
        hourly_rate=study.hourly_rate, currency=study.currency, study=study.pk,
    )
