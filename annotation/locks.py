"""Row-locking helpers shared by the review services.

Lock order, the same in every service: the item row first, then the assignment row. Every change
to which assignments hold an item's slots happens under the item's lock, so a slot count read under
it is the truth. On SQLite `select_for_update` is a no-op and writing transactions are serialised.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.core.exceptions import ValidationError

from annotation.models import Assignment, Item, Study


def lock_assignment(assignment: Assignment) -> tuple[Item, Assignment, Study]:
    """Lock the assignment's item, then the assignment; returns fresh rows (call inside a transaction)."""
    item = Item.objects.select_for_update(of=("self",)).select_related("study").get(pk=assignment.item_id)
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    locked.item = item  # callers and API responses read item and study without more queries
    return item, locked, item.study


def lock_item_in(item: Item, statuses: Sequence[str]) -> Item:
    """Lock the item and check it is in one of `statuses` (an inspection acts on a known state)."""
    locked = Item.objects.select_for_update().select_related("study").get(pk=item.pk)
    if locked.status not in statuses:
        raise ValidationError({"status": f"status: the item is {locked.get_status_display().lower()}, "
                                         "not awaiting inspection."})
    return locked
