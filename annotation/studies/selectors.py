"""A study's progress: per rater, per task, per day, and the items that are stuck.

None of these checks access: call an `annotation.access` function first.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from annotation.models import Assignment, Item, Rating, ReviewEvent, Study, StudyMember, TaskType

# An item returned for revision longer than this, or more than this many rounds, counts as stuck.
STUCK_AFTER_DAYS = 3


STUCK_AFTER_ROUNDS = 2


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
