"""Physician review's shared tables, split by topic; every workflow of `annotation` reads and writes them.

Nothing here is overwritten. An assignment moves through states and each move is a `ReviewEvent`;
a rating is written once per round (round 1 = the independent first-round label used for agreement
statistics); the label that stands after inspection is a `FinalLabel`.

- `tasks`: scales, categories, task types, item kinds (what a rater can be asked);
- `studies`: studies, their members and items;
- `assignments`: one rater on one item, and their ratings;
- `events`: the append-only, hash-chained audit trail (`chain`: the pure hashing and its check);
- `decisions`: inspections and final labels;
- `curations`: curated releases;
- `translated`: shipped texts in the rater's language, and which case text a study shows.
"""

from annotation.models.assignments import Assignment, AssignmentQuerySet, Rating
from annotation.models.curations import Curation
from annotation.models.decisions import FinalLabel, Inspection
from annotation.models.events import (
    APPEND_ONLY,
    AuditChainBroken,
    AuditChainHead,
    ReviewEvent,
    ReviewEventQuerySet,
    audit_chain_keys,
    chain_fields,
    seal_audit_chain,
)
from annotation.models.studies import Item, Study, StudyMember
from annotation.models.tasks import ItemKind, Scale, ScaleCategory, TaskTarget, TaskType, field_id

__all__ = [
    "APPEND_ONLY",
    "Assignment",
    "AssignmentQuerySet",
    "AuditChainBroken",
    "AuditChainHead",
    "Curation",
    "FinalLabel",
    "Inspection",
    "Item",
    "ItemKind",
    "Rating",
    "ReviewEvent",
    "ReviewEventQuerySet",
    "Scale",
    "ScaleCategory",
    "Study",
    "StudyMember",
    "TaskTarget",
    "TaskType",
    "audit_chain_keys",
    "chain_fields",
    "field_id",
    "seal_audit_chain",
]
