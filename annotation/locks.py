"""Row-locking helpers shared by the review services.

Lock order, the same in every service: the item row first, then the assignment row. Every change
to which assignments hold an item's slots happens under the item's lock, so a slot count read under
it is the truth. On SQLite `select_for_update` is a no-op and writing transactions are serialised.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError

from annotation.models import Assignment, Item, Study
from medreview.db.precompiled import PrecompiledQuery

# Every draft and submit takes these two locks: compiled once per process (medreview/db/precompiled.py).
_ITEM_WITH_STUDY_FOR_UPDATE: PrecompiledQuery[Item] = PrecompiledQuery(
    lambda pk: Item.objects.select_for_update(of=("self",)).select_related("study").filter(pk=pk)
)
_ASSIGNMENT_FOR_UPDATE: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda pk: Assignment.objects.select_for_update().filter(pk=pk)
)


def lock_assignment(assignment: Assignment) -> tuple[Item, Assignment, Study]:
    """Lock the assignment's item, then the assignment; returns fresh rows (call inside a transaction)."""
    item = _ITEM_WITH_STUDY_FOR_UPDATE.first(pk=assignment.item_id)
    locked = _ASSIGNMENT_FOR_UPDATE.first(pk=assignment.pk)
    # As .get() raised: a study's items and assignments are never deleted while it runs.
    if item is None:
        raise Item.DoesNotExist("The assignment's item no longer exists.")
    if locked is None:
        raise Assignment.DoesNotExist("The assignment no longer exists.")
    locked.item = item  # callers and API responses read item and study without more queries
    return item, locked, item.study


def lock_item_in(item: Item, statuses: Sequence[str]) -> Item:
    """Lock the item and check it is in one of `statuses` (an inspection acts on a known state)."""
    locked = Item.objects.select_for_update().select_related("study").get(pk=item.pk)
    if locked.status not in statuses:
        raise ValidationError({"status": f"status: the item is {locked.get_status_display().lower()}, "
                                         "not awaiting inspection."})
    return locked
