"""The inspector's reads: their studies and queue, one item's labels side by side, final labels.
Each runs a bounded number of queries; none checks access: call an `annotation.access` function first.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q

from accounts.models import Role
from accounts.roles import rank_at_least, user_role
from annotation.fields import Field, item_fields, study_tasks
from annotation.models import (
    Assignment,
    FinalLabel,
    Inspection,
    Item,
    Rating,
    ReviewEvent,
    Study,
    StudyMember,
    TaskTarget,
    field_id,
)


@dataclass
class InspectorQueue:
    pending: list[Item]
    returned: list[Item]
    resolved: list[Item]
    studies: list[Study]
    # Studies the inspector is listed for but whose minimum rank they lack (their items would all
    # answer 403): left out of the queue, named on the page with the rank they ask for.
    beyond_rank: list[Study] = field(default_factory=list)


def _listed_studies(inspector: AbstractBaseUser) -> list[Study]:
    if user_role(inspector) == Role.ADMIN:
        return list(Study.objects.order_by("-created_at"))
    return list(
        Study.objects.filter(memberships__user=inspector, memberships__role=StudyMember.Role.INSPECTOR)
        .distinct()
        .order_by("-created_at")
    )


def _may_inspect(inspector: AbstractBaseUser, study: Study) -> bool:
    return user_role(inspector) == Role.ADMIN or rank_at_least(inspector, study.min_inspector_rank)


def inspector_studies(inspector: AbstractBaseUser) -> list[Study]:
    """The studies whose items the inspector may decide: listed as inspector, with the rank asked."""
    return [s for s in _listed_studies(inspector) if _may_inspect(inspector, s)]


def inspector_queue(*, inspector: AbstractBaseUser, study: Study | None = None) -> InspectorQueue:
    """Items of the inspector's studies awaiting inspection, returned, or resolved after one (2 queries)."""
    listed = _listed_studies(inspector)
    studies = [s for s in listed if _may_inspect(inspector, s)]
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
        beyond_rank=[s for s in listed if not _may_inspect(inspector, s)],
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
