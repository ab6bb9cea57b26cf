"""Reads that several views and the API share. Each runs a bounded number of queries.

None of these checks access: call an `annotation.access` function first.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, F, IntegerField, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from accounts.models import Role
from accounts.roles import user_role
from annotation.i18n import axis_anchors, axis_label
from annotation.models import (
    Assignment,
    FinalLabel,
    Inspection,
    Item,
    ItemKind,
    Rating,
    ReviewEvent,
    ScaleCategory,
    Study,
    StudyMember,
    TaskTarget,
    TaskType,
    field_id,
)
from annotation.pairwise import pair_label_as_shown
from cases.models import MCQ, CaseRevision, ModelResponse, QuestionSet, RubricCriterion, TextTranslation
from cases.translations import translation_pairs

# An item returned for revision longer than this, or more than this many rounds, counts as stuck.
STUCK_AFTER_DAYS = 3
STUCK_AFTER_ROUNDS = 2


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


def study_tasks(study: Study) -> list[TaskType]:
    """The study's task types in display order, with their scale categories (2 queries)."""
    return list(
        study.tasks.select_related("scale")
        .prefetch_related(Prefetch("scale__categories", queryset=ScaleCategory.objects.order_by("order")))
        .order_by("order", "slug")
    )


def item_fields(item: Item, *, tasks: list[TaskType] | None = None) -> list[Field]:
    """The fields a rater fills for `item`, in display order (at most 4 queries; 2 with `tasks`)."""
    tasks = tasks if tasks is not None else study_tasks(item.study)
    targets = {t.target for t in tasks}
    criteria: list[RubricCriterion] = []
    if targets & {TaskTarget.CRITERION, TaskTarget.RESPONSE_CRITERION}:
        criteria = list(RubricCriterion.objects.filter(revision_id=item.revision_id).order_by("order"))
    mcqs: list[MCQ] = []
    if TaskTarget.MCQ in targets and item.question_set_id:
        mcqs = list(MCQ.objects.filter(question_set_id=item.question_set_id).order_by("order"))
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


# --- what a rater may see ----------------------------------------------------------------------


def strip_captions(details: Any) -> Any:
    """LiveClin: image captions are privileged; an examinee sees the image without them."""
    if not isinstance(details, list):
        return details
    return [{k: v for k, v in d.items() if k != "caption"} if isinstance(d, dict) else d for d in details]


@dataclass(frozen=True)
class BlindedMCQ:
    """One MCQ as this rater may see it: the answer key and image captions only with privileged access."""

    mcq: MCQ
    correct_answer: str | None
    image_details: Any


@dataclass(frozen=True)
class RaterContent:
    """The blinding rule: what a rater (or an inspector, in order A-B) reads above the form.

    Never another rater's labels, grader decisions or model names; pairs in this rater's order;
    LiveClin's privileged source (narrative, answer key, image captions) only when every one of the
    item's tasks may see it (factual validation, not solvability; a mix shows the examinee view).
    """

    item: Item
    revision: CaseRevision
    privileged: bool
    show_advice: bool
    response: ModelResponse | None  # a single-response item; never set for pairs
    pair: tuple[ModelResponse, ModelResponse] | None  # (shown as A, shown as B)
    question_set: QuestionSet | None
    criteria: list[RubricCriterion]

    @property
    def show_privileged(self) -> bool:
        """Pages: show the privileged LiveClin source block (question sets only)."""
        return self.privileged and self.question_set is not None

    @property
    def narrative(self) -> str:
        """A question set's source narrative is privileged; a case's narrative is what is rated."""
        if self.item.kind != ItemKind.QUESTION_SET or self.privileged:
            return self.revision.narrative
        return ""

    @property
    def scenario_images(self) -> Any:
        images = self.question_set.scenario_images if self.question_set else []
        return images if self.privileged else strip_captions(images)

    def mcqs(self) -> list[BlindedMCQ]:
        """The question set's MCQs in order (one query; empty for other items)."""
        if self.question_set is None:
            return []
        return [
            BlindedMCQ(
                mcq=m,
                # Solvability raters see only what an examinee sees: never the answer key.
                correct_answer=m.correct_answer if self.privileged else None,
                image_details=m.image_details if self.privileged else strip_captions(m.image_details),
            )
            for m in self.question_set.mcqs.order_by("order")
        ]


def item_content_for_rater(item: Item, fields: list[Field], *, pair_order: str = "ab") -> RaterContent:
    """What may be shown with `item` to someone rating `fields` (no query; `mcqs()` runs one)."""
    tasks = {f.task.pk: f.task for f in fields}.values()
    pair = None
    if item.kind == ItemKind.PAIR and item.response_id and item.response_b_id:
        pair = (item.response_b, item.response) if pair_order == "ba" else (item.response, item.response_b)
    criteria = {f.criterion.pk: f.criterion for f in fields if f.criterion}
    return RaterContent(
        item=item,
        revision=item.revision,
        # Every task must be allowed the source: one examinee-view task (solvability) beside factual
        # validation hides it for the whole item, or its answer key sits next to the solvability fields.
        privileged=all(t.shows_privileged_source for t in tasks) if fields else True,
        show_advice=any(t.target == TaskTarget.ADVICE for t in tasks),
        response=item.response if item.kind == ItemKind.RESPONSE and item.response_id else None,
        pair=pair,
        question_set=item.question_set if item.kind == ItemKind.QUESTION_SET and item.question_set_id else None,
        criteria=sorted(criteria.values(), key=lambda c: c.order),
    )


def own_latest_labels(assignment: Assignment) -> dict[str, dict[str, str]]:
    """The rater's own submitted labels, latest round per field, as they were shown to them."""
    out: dict[str, dict[str, str]] = {}
    if assignment.state in Assignment.LEASED_STATES and assignment.round == 1:
        return out  # never submitted: nothing to read
    for r in Rating.objects.filter(assignment=assignment).select_related("task").order_by("round", "pk"):
        label = r.label
        if r.task.target == TaskTarget.PAIRWISE:
            label = pair_label_as_shown(label, assignment.pair_order)
        out[field_id(r.task.slug, r.field_key)] = {"label": label, "comment": r.comment}
    return out


# --- rater queue -------------------------------------------------------------------------------


@dataclass
class RaterQueue:
    in_progress: list[Assignment]
    returned: list[Assignment]
    done: list[Assignment]
    counts: dict[str, int]
    studies: list[Study]
    # Open items in the study (or the rater's studies) the rater has not touched and that have room.
    available: int


def rater_queue(*, rater: AbstractBaseUser, study: Study | None = None, now: datetime | None = None) -> RaterQueue:
    """The rater's own work only; never other raters' labels (4 queries)."""
    now = now or timezone.now()
    studies_qs = Study.objects.filter(memberships__user=rater, memberships__role=StudyMember.Role.RATER)
    if study is not None:
        studies_qs = studies_qs.filter(pk=study.pk)
    studies = list(studies_qs.distinct().order_by("-created_at"))
    study_ids = [s.pk for s in studies]
    assignments = list(
        Assignment.objects.filter(rater=rater, item__study_id__in=study_ids)
        .select_related("item", "item__study", "item__revision", "item__revision__case")
        .order_by("-draft_saved_at", "-claimed_at", "-pk")
    )
    in_progress = [
        a for a in assignments
        if a.state in Assignment.LEASED_STATES and a.lease_expires_at and a.lease_expires_at > now
    ]
    returned = [a for a in assignments if a.state == Assignment.State.RETURNED]
    done = sorted(
        (a for a in assignments if a.state in Assignment.FINISHED_STATES),
        key=lambda a: a.submitted_at or a.claimed_at,
        reverse=True,
    )
    counts = Counter(a.state for a in assignments)
    available = 0
    running = [s.pk for s in studies if s.status == Study.Status.RUNNING]
    if running:
        holders = Assignment.objects.holding_slot(now=now).filter(item=OuterRef("pk")).order_by().values("item")
        holders = holders.annotate(n=Count("pk")).values("n")
        # NOT IN over the rater's own items: one hashed scan of their assignments, not a probe per item.
        mine = Assignment.objects.filter(rater=rater).exclude(state=Assignment.State.EXPIRED).values("item_id")
        available = (
            Item.objects.filter(study_id__in=running, status=Item.Status.OPEN)
            .exclude(pk__in=Subquery(mine))
            .annotate(n=Coalesce(Subquery(holders, output_field=IntegerField()), 0))
            .filter(n__lt=F("study__raters_per_item"))
            .count()
        )
    return RaterQueue(
        in_progress=in_progress,
        returned=returned,
        done=done,
        counts={
            "in_progress": len(in_progress),
            "returned": len(returned),
            "done": len(done),
            "skipped": counts.get(Assignment.State.SKIPPED, 0),
        },
        studies=studies,
        available=available,
    )


# --- study progress ----------------------------------------------------------------------------


@dataclass
class RaterProgress:
    user_id: int
    name: str
    pseudonym: str
    in_progress: int = 0
    submitted: int = 0
    returned: int = 0
    revised: int = 0
    skipped: int = 0
    median_seconds: float | None = None

    @property
    def finished(self) -> int:
        return self.submitted + self.revised + self.returned


@dataclass
class TaskProgress:
    task: TaskType
    first_round_ratings: int
    items_rated: int


@dataclass
class StudyProgress:
    study: Study
    total_items: int
    items_by_status: dict[str, int]
    per_rater: list[RaterProgress]
    per_task: list[TaskProgress]
    throughput: list[tuple[date, int]]  # submissions (first round) per day, oldest first
    submissions_per_day: float
    median_seconds_per_item: float | None
    stuck: list[Item]

    @property
    def resolved_share(self) -> float:
        return self.items_by_status.get(Item.Status.RESOLVED, 0) / self.total_items if self.total_items else 0.0


def _rater_progress(study: Study, now: datetime) -> dict[int, RaterProgress]:
    """Assignment counts per rater, raters who have not started included (2 queries)."""
    raters: dict[int, RaterProgress] = {}
    counted = {
        Assignment.State.SUBMITTED: "submitted", Assignment.State.RETURNED: "returned",
        Assignment.State.REVISED: "revised", Assignment.State.SKIPPED: "skipped",
    }
    rows = Assignment.objects.filter(item__study=study).values_list(
        "rater_id", "rater__username", "rater__profile__pseudonym", "state", "lease_expires_at"
    )
    for user_id, username, pseudonym, state, lease in rows:
        rp = raters.setdefault(user_id, RaterProgress(user_id, username, pseudonym or f"R-{user_id}"))
        if state in Assignment.LEASED_STATES:
            rp.in_progress += 1 if lease and lease > now else 0
        elif state in counted:
            setattr(rp, counted[state], getattr(rp, counted[state]) + 1)
    # Raters who have not started yet still belong in the table.
    for user_id, username, pseudonym in StudyMember.objects.filter(
        study=study, role=StudyMember.Role.RATER
    ).values_list("user_id", "user__username", "user__profile__pseudonym"):
        raters.setdefault(user_id, RaterProgress(user_id, username, pseudonym or f"R-{user_id}"))
    return raters


def _task_progress(study: Study) -> list[TaskProgress]:
    """First-round ratings and items rated per task (2 queries)."""
    rating_counts = {
        row["task_id"]: row
        for row in Rating.objects.filter(assignment__item__study=study, round=1)
        .values("task_id")
        .annotate(n=Count("pk"), items=Count("assignment__item", distinct=True))
        .order_by()
    }
    return [
        TaskProgress(
            task=t,
            first_round_ratings=rating_counts.get(t.pk, {}).get("n", 0),
            items_rated=rating_counts.get(t.pk, {}).get("items", 0),
        )
        for t in study.tasks.order_by("order", "slug")
    ]


def _stuck_items(study: Study, now: datetime) -> list[Item]:
    """Unresolved items returned for revision too long ago, or past too many rounds (1 query)."""
    returned_long = Assignment.objects.filter(
        item=OuterRef("pk"),
        state=Assignment.State.RETURNED,
        events__kind=ReviewEvent.Kind.RETURNED,
        events__created_at__lt=now - timedelta(days=STUCK_AFTER_DAYS),
    )
    many_rounds = Assignment.objects.filter(item=OuterRef("pk"), round__gt=STUCK_AFTER_ROUNDS)
    return list(
        Item.objects.filter(study=study)
        .exclude(status=Item.Status.RESOLVED)
        .filter(Q(Exists(returned_long)) | Q(Exists(many_rounds)))
        .select_related("revision__case")
        .order_by("pk")
    )


def study_progress(*, study: Study, now: datetime | None = None) -> StudyProgress:
    """Per rater and per task counts, throughput, time per item and stuck items (7 queries)."""
    now = now or timezone.now()
    by_status = dict(
        Item.objects.filter(study=study).values_list("status").annotate(n=Count("pk")).order_by()
    )
    raters = _rater_progress(study, now)
    # Time per item comes from the first-round submissions: revisions would count an item twice.
    submitted = list(
        ReviewEvent.objects.filter(item__study=study, kind=ReviewEvent.Kind.SUBMITTED)
        .values_list("actor_id", "created_at", "data")
    )
    seconds_by_rater: dict[int, list[int]] = defaultdict(list)
    per_day: Counter[date] = Counter()
    for actor_id, created_at, data in submitted:
        per_day[created_at.date()] += 1
        if isinstance(data, dict) and isinstance(data.get("seconds"), int):
            seconds_by_rater[actor_id].append(data["seconds"])
    all_seconds = [s for values in seconds_by_rater.values() for s in values]
    for rp in raters.values():
        if seconds_by_rater.get(rp.user_id):
            rp.median_seconds = statistics.median(seconds_by_rater[rp.user_id])
    throughput = sorted(per_day.items())
    span_days = max((now.date() - throughput[0][0]).days + 1, 1) if throughput else 1
    return StudyProgress(
        study=study,
        total_items=sum(by_status.values()),
        items_by_status={s: by_status.get(s, 0) for s in Item.Status.values},
        per_rater=sorted(raters.values(), key=lambda r: r.name),
        per_task=_task_progress(study),
        throughput=throughput,
        submissions_per_day=len(submitted) / span_days if throughput else 0.0,
        median_seconds_per_item=statistics.median(all_seconds) if all_seconds else None,
        stuck=_stuck_items(study, now),
    )


# --- inspection --------------------------------------------------------------------------------


@dataclass
class InspectorQueue:
    pending: list[Item]
    returned: list[Item]
    resolved: list[Item]
    studies: list[Study]


def inspector_studies(inspector: AbstractBaseUser) -> list[Study]:
    if user_role(inspector) == Role.ADMIN:
        return list(Study.objects.order_by("-created_at"))
    return list(
        Study.objects.filter(memberships__user=inspector, memberships__role=StudyMember.Role.INSPECTOR)
        .distinct()
        .order_by("-created_at")
    )


def inspector_queue(*, inspector: AbstractBaseUser, study: Study | None = None) -> InspectorQueue:
    """Items of the inspector's studies awaiting inspection, returned, or resolved after one (2 queries)."""
    studies = inspector_studies(inspector)
    if study is not None:
        studies = [s for s in studies if s.pk == study.pk]
    items = list(
        Item.objects.filter(study_id__in=[s.pk for s in studies])
        .filter(
            Q(status__in=(Item.Status.INSPECTION, Item.Status.RETURNED))
            | Q(status=Item.Status.RESOLVED, inspections__isnull=False)
        )
        .distinct()
        .select_related("study", "revision", "revision__case")
        .order_by("pk")
    )
    return InspectorQueue(
        pending=[i for i in items if i.status == Item.Status.INSPECTION],
        returned=[i for i in items if i.status == Item.Status.RETURNED],
        resolved=[i for i in items if i.status == Item.Status.RESOLVED],
        studies=studies,
    )


@dataclass
class Cell:
    """One rater's answer on one field, as the inspector sees it."""

    assignment: Assignment
    rater_name: str
    first: Rating | None
    latest: Rating | None

    @property
    def label(self) -> str | None:
        return self.latest.label if self.latest else None

    @property
    def changed(self) -> bool:
        return bool(self.first and self.latest and self.first.label != self.latest.label)


@dataclass
class FieldComparison:
    field: Field
    cells: list[Cell]
    differs: bool  # the raters' latest labels differ
    first_round_differs: bool
    final: FinalLabel | None


@dataclass
class InspectionView:
    item: Item
    assignments: list[Assignment]
    fields: list[FieldComparison]
    events: list[ReviewEvent]
    inspections: list[Inspection]

    @property
    def differing(self) -> int:
        return sum(1 for f in self.fields if f.differs)


def inspection_view(*, item: Item) -> InspectionView:
    """Every rater's labels side by side, by name; only for inspectors (call access first)."""
    tasks = study_tasks(item.study)
    fields = item_fields(item, tasks=tasks)
    assignments = list(
        item.assignments.filter(state__in=Assignment.RATED_STATES)
        .select_related("rater", "rater__profile")
        .order_by("pk")
    )
    ratings = list(Rating.objects.filter(assignment__in=assignments).select_related("task").order_by("round"))
    first: dict[tuple[int, str], Rating] = {}
    latest: dict[tuple[int, str], Rating] = {}
    for r in ratings:
        fid = field_id(r.task.slug, r.field_key)
        first.setdefault((r.assignment_id, fid), r)
        latest[(r.assignment_id, fid)] = r
    finals = {
        field_id(fl.task.slug, fl.field_key): fl for fl in item.final_labels.select_related("task", "decided_by")
    }
    comparisons = []
    for f in fields:
        cells = [
            Cell(
                assignment=a,
                rater_name=a.rater.get_full_name() or a.rater.get_username(),
                first=first.get((a.pk, f.id)),
                latest=latest.get((a.pk, f.id)),
            )
            for a in assignments
        ]
        latest_labels = {c.latest.label for c in cells if c.latest}
        first_labels = {c.first.label for c in cells if c.first}
        comparisons.append(
            FieldComparison(
                field=f,
                cells=cells,
                differs=len(latest_labels) > 1,
                first_round_differs=len(first_labels) > 1,
                final=finals.get(f.id),
            )
        )
    events = list(item.events.select_related("actor").order_by("created_at", "pk"))
    inspections = list(item.inspections.select_related("inspector").order_by("created_at", "pk"))
    return InspectionView(item=item, assignments=assignments, fields=comparisons, events=events,
                          inspections=inspections)


def final_labels(item: Item) -> dict[str, FinalLabel]:
    """Final labels by Field.id; every resolved item has one per field (consensus or inspection)."""
    return {field_id(fl.task.slug, fl.field_key): fl for fl in item.final_labels.select_related("task")}


def question_set_flagged(item: Item) -> bool:
    """LiveClin's conservatism: a question set is flagged when any MCQ check is answered "no".

    Resolved items use their final labels; before that, any rater's latest "no" flags the set.
    """
    mcq_task = Q(task__target=TaskTarget.MCQ)
    if item.status == Item.Status.RESOLVED:
        return item.final_labels.filter(mcq_task, label="no").exists()
    return Rating.objects.filter(
        mcq_task,
        assignment__item=item,
        assignment__state__in=Assignment.RATED_STATES,
        label="no",
    ).exists()
