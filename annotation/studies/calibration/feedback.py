"""What a physician learns about their own work (issue 11): per task, how often their first-round
label matched the final label on items inspection (or consensus) has resolved. Only the rater's
own labels and the final labels: never another rater's label or identity."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.utils.translation import get_language

from annotation.models import Assignment, FinalLabel, Item, Rating


@dataclass
class TaskAgreement:
    task: str
    matched: int
    total: int

    @property
    def share(self) -> float:
        return self.matched / self.total if self.total else 0.0


def rater_agreement_with_final(*, rater: AbstractBaseUser) -> list[TaskAgreement]:
    """Per task: fields of resolved items where the rater's first-round label equals the final label (2 queries)."""
    mine = Rating.objects.filter(
        assignment__rater=rater, round=1, assignment__item__status=Item.Status.RESOLVED,
        assignment__state__in=Assignment.RATED_STATES,
    ).values_list("assignment__item_id", "task_id", "task__name", "task__translations", "field_key", "label")
    rows = list(mine)
    if not rows:
        return []
    finals = {
        (item_id, task_id, key): label
        for item_id, task_id, key, label in FinalLabel.objects.filter(
            item_id__in={r[0] for r in rows}
        ).values_list("item_id", "task_id", "field_key", "label")
    }
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    language = (get_language() or "").lower()
    for item_id, task_id, name, translations, key, label in rows:
        # The task's name in the reader's language (TaskType.shown_name), read from the same row.
        task_name = ((translations or {}).get(language) or {}).get("name") or name
        final = finals.get((item_id, task_id, key))
        if final is None:
            continue
        counts[task_name][1] += 1
        counts[task_name][0] += int(final == label)
    return [TaskAgreement(task=name, matched=m, total=t) for name, (m, t) in sorted(counts.items())]
