"""An item's review history as the outcome's files carry it (issue 20): the curated release's review
block and LiveClin's validated export say not only what the final label is but how it came about:
the item sent to inspection and why, each return (its comment, round and marked fields), each
revision, and the decision with its reason and labels. Actors by pseudonym only, like every export.

Reads only, two queries whatever the number of items.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from annotation.models import Inspection, Item, ReviewEvent
from annotation.models.chain import timestamp

HISTORY_KINDS = (
    ReviewEvent.Kind.SENT_TO_INSPECTION, ReviewEvent.Kind.RETURNED, ReviewEvent.Kind.REVISED,
    ReviewEvent.Kind.ACCEPTED, ReviewEvent.Kind.ADJUDICATED, ReviewEvent.Kind.SET_REJECTED,
    ReviewEvent.Kind.RESOLVED,
)
# What of an event's data an export keeps: why it was sent, the round, the marked fields, the labels.
_DATA_KEYS = ("why", "round", "fields", "labels", "judge_run")


def _event(kind: str, created_at: Any, actor: str, reason: str, data: Any) -> dict[str, Any]:
    data = data if isinstance(data, dict) else {}
    return {"at": timestamp(created_at), "kind": kind, "actor": actor or None, "reason": reason,
            **{key: data[key] for key in _DATA_KEYS if key in data}}


def review_histories(item_ids: Iterable[int]) -> dict[int, list[dict[str, Any]]]:
    """{item id: its review events, oldest first}."""
    out: dict[int, list[dict[str, Any]]] = defaultdict(list)
    rows = (ReviewEvent.objects.filter(item_id__in=list(item_ids), kind__in=HISTORY_KINDS)
            .order_by("created_at", "pk").values_list("item_id", "kind", "created_at", "actor_pseudonym", "reason", "data"))
    for item_id, kind, created_at, actor, reason, data in rows:
        out[item_id].append(_event(kind, created_at, actor, reason, data))
    return dict(out)


def set_rejections(item_ids: Iterable[int]) -> dict[int, str]:
    """{item id: reason} of resolved items whose standing decision rejects the whole question set."""
    latest: dict[int, tuple[str, str]] = {}
    for item_id, action, comment in (
        Inspection.objects.filter(item_id__in=list(item_ids), item__status=Item.Status.RESOLVED)
        .exclude(action=Inspection.Action.RETURN).order_by("created_at", "pk")
        .values_list("item_id", "action", "comment")
    ):
        latest[item_id] = (action, comment)
    return {item_id: comment for item_id, (action, comment) in latest.items()
            if action == Inspection.Action.REJECT_SET}
