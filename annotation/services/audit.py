"""Events that are about a whole study rather than one item: exports of its labels or audit trail.

(The curation's own event is written by `annotation.curation.service`.) Every event, these
included, joins its study's hash chain when it is saved (`ReviewEvent.save`).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.roles import AnyUser
from annotation.models import ReviewEvent, Study


def study_record_export(*, study: Study, actor: AnyUser | None, what: str, fmt: str, **details: Any) -> ReviewEvent:
    """Record that `actor` exported `what` (labels, events) of the study, before the file is built,
    so an exported trail contains its own export."""
    # Why atomic: appending to the chain locks the study's chain head until the event is written.
    with transaction.atomic():
        return ReviewEvent.objects.record(
            study=study, item=None, actor=actor if actor is not None and actor.is_authenticated else None,
            kind=ReviewEvent.Kind.EXPORTED, reason=f"{what} as {fmt}",
            data={"what": what, "format": fmt, **details},
        )
