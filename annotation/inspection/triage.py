"""The inspector's triage queue: per item why it waits, which fields differ, raters, rounds, waiting
time; filters and sorting; the next item to inspect after an action (issue 11).

Reads only; call `annotation.access` first (the inspector's studies come from
`selectors.inspector_studies`). A fixed number of queries whatever the queue's length.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import prefetch_related_objects
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from annotation.models import Assignment, Item, Rating, ReviewEvent, Study
from cases.models import CaseRevision

# Why an item is in the queue, as `apply_policy` records it (SENT_TO_INSPECTION data "why"), or a
# Judge run pinned after the decision flags it (`liveclin.judge_runs`), and "returned" while it waits
# for an annotator's revision. Shown in the inspector's language.
REASONS = {
    "disagreement": _("Disagreement"),
    "sampled": _("Sampled audit"),
    "inspect_all": _("Every item inspected"),
    "revised": _("Revision back"),
    "judge_flag": _("Judge flag added after the decision"),
    "returned": _("Returned, waiting for the annotator"),
}
SORTS = {
    "waiting": _("Waiting longest"),
    "differ": _("Most fields differ"),
    "study": _("Study"),
}


@dataclass
class TriageRow:
    item: Item
    reasons: list[str]
    differing: int
    differing_tasks: list[tuple[str, int]]  # (task name, how many of its fields differ)
    raters: list[str]
    rater_ids: set[int]
    rounds: int
    since: datetime | None
    specialties: list[str] = field(default_factory=list)

    @property
    def reason_labels(self) -> list[str]:
        return [REASONS.get(r, r) for r in self.reasons]

    @property
    def waiting(self) -> timedelta | None:
        return timezone.now() - self.since if self.since else None


@dataclass
class TriageFilters:
    study: int | None = None
    reason: str = ""
    task: str = ""
    specialty: str = ""
    sort: str = "waiting"

    @classmethod
    def from_query(cls, query: dict[str, str]) -> TriageFilters:
        study = query.get("study", "")
        sort = query.get("sort", "waiting")
        return cls(
            study=int(study) if study.isdigit() else None,
            reason=query.get("reason", "") if query.get("reason", "") in REASONS else "",
            task=query.get("task", "")[:64],
            specialty=query.get("specialty", "")[:200],
            sort=sort if sort in SORTS else "waiting",
        )

    def keep(self, row: TriageRow, task_slugs: set[str]) -> bool:
        if self.study is not None and row.item.study_id != self.study:
            return False
        if self.reason and self.reason not in row.reasons:
            return False
        if self.task and self.task not in task_slugs:
            return False
        return not (self.specialty and self.specialty not in row.specialties)


def _latest_events(items: list[Item]) -> dict[int, ReviewEvent]:
    """Each item's latest SENT_TO_INSPECTION or RETURNED event (1 query)."""
    latest: dict[int, ReviewEvent] = {}
    events = ReviewEvent.objects.filter(
        item__in=items, kind__in=(ReviewEvent.Kind.SENT_TO_INSPECTION, ReviewEvent.Kind.RETURNED),
    ).only("item_id", "kind", "data", "created_at").order_by("created_at", "pk")
    for event in events:
        latest[event.item_id] = event
    return latest


def _differences(assignments: list[Assignment]) -> dict[int, Counter[int]]:
    """{item id: Counter(task id -> fields whose raters' latest labels differ)} (1 query)."""
    item_of = {a.pk: a.item_id for a in assignments}
    latest: dict[tuple[int, int, str], dict[int, str]] = defaultdict(dict)
    ratings = (
        Rating.objects.filter(assignment_id__in=list(item_of)).order_by("round", "pk")
        .values_list("assignment_id", "task_id", "field_key", "label")
    )
    for assignment_id, task_id, key, label in ratings:
        latest[(item_of[assignment_id], task_id, key)][assignment_id] = label
    out: dict[int, Counter[int]] = defaultdict(Counter)
    for (item_id, task_id, _key), labels in latest.items():
        if len(set(labels.values())) > 1:
            out[item_id][task_id] += 1
    return out


def _specialties(items: list[Item]) -> dict[int, list[str]]:
    """{revision id: specialty names} (1 query)."""
    through = CaseRevision.specialties.through
    rows = through.objects.filter(caserevision_id__in={i.revision_id for i in items}).values_list(
        "caserevision_id", "specialty__name"
    )
    out: dict[int, list[str]] = defaultdict(list)
    for revision_id, name in rows:
        out[revision_id].append(name)
    return out


def _why(item: Item, event: ReviewEvent | None) -> list[str]:
    if item.status == Item.Status.RETURNED:
        return ["returned"]
    if event is None or event.kind != ReviewEvent.Kind.SENT_TO_INSPECTION:
        return []
    why = (event.data or {}).get("why", [])
    return [why] if isinstance(why, str) else [str(w) for w in why]  # a revision records one reason


def triage_rows(items: list[Item], studies: list[Study]) -> list[TriageRow]:
    """One row per item awaiting inspection or revision (5 queries; the studies' tasks prefetched)."""
    prefetch_related_objects(studies, "tasks")  # the filters' task list reads them too
    if not items:
        return []
    task_names = {t.pk: t.shown_name for s in studies for t in s.tasks.all()}  # in the reader's language
    assignments = list(
        Assignment.objects.filter(item__in=items, state__in=Assignment.RATED_STATES)
        .select_related("rater").order_by("pk")
    )
    by_item: dict[int, list[Assignment]] = defaultdict(list)
    for a in assignments:
        by_item[a.item_id].append(a)
    differences = _differences(assignments)
    events = _latest_events(items)
    specialties = _specialties(items)
    rows = []
    for item in items:
        mine = by_item.get(item.pk, [])
        diff = differences.get(item.pk, Counter())
        event = events.get(item.pk)
        rows.append(TriageRow(
            item=item,
            reasons=_why(item, event),
            differing=sum(diff.values()),
            differing_tasks=[(task_names.get(task_id, "?"), n) for task_id, n in sorted(diff.items())],
            raters=[a.rater.get_full_name() or a.rater.get_username() for a in mine],
            rater_ids={a.rater_id for a in mine},
            rounds=max((a.round for a in mine), default=1),
            since=event.created_at if event else None,
            specialties=sorted(specialties.get(item.revision_id, [])),
        ))
    return rows


def sort_rows(rows: list[TriageRow], sort: str) -> list[TriageRow]:
    if sort == "differ":
        return sorted(rows, key=lambda r: (-r.differing, r.since or timezone.now(), r.item.pk))
    if sort == "study":
        return sorted(rows, key=lambda r: (r.item.study.name, r.item.pk))
    return sorted(rows, key=lambda r: (r.since or timezone.now(), r.item.pk))


def filter_rows(rows: list[TriageRow], filters: TriageFilters, studies: list[Study]) -> list[TriageRow]:
    slugs_of = {s.pk: {t.slug for t in s.tasks.all()} for s in studies}
    return sort_rows([r for r in rows if filters.keep(r, slugs_of.get(r.item.study_id, set()))], filters.sort)


def next_to_inspect(rows: list[TriageRow], inspector: AbstractBaseUser, *, after: int | None = None) -> Item | None:
    """The next pending item after an action: disagreements first, then the longest waiting, never
    one the inspector rated (they cannot decide it) and never `after` itself."""
    pending = [
        r for r in rows
        if r.item.status == Item.Status.INSPECTION and r.item.pk != after
        and inspector.pk not in r.rater_ids
    ]
    pending.sort(key=lambda r: ("disagreement" not in r.reasons, r.since or timezone.now(), r.item.pk))
    return pending[0].item if pending else None
