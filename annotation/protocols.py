"""Review protocols: how an item's fields spread over screens, and what each screen may add.

The rating and inspection screens are generic: every field of an item on one screen. A protocol
registered for an item kind changes that. LiveClin's question-set review (Appendix G) is two screens
of one assignment, the auditor and then the examinee, each showing only what its phase allows
(`liveclin.protocol`). Protocols live above `annotation` (LiveClin's reads the Judge's verdicts in
`graders`), so they register here at start-up (`AppConfig.ready`) instead of being imported.

The phases of one assignment share its draft (drafts merge) and one submission at the end writes
every rating, so the services know nothing of phases.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from annotation.fields import Field
from annotation.models import Item, Study
from medreview.errors import ConflictError

# The form field (and query parameter, on a GET) naming the phase a screen shows.
PHASE_FIELD = "liveclin_phase"


class ReviewProtocol:
    """The default: one screen with every field, nothing added."""

    def phases(self, item: Item, fields: list[Field]) -> list[str]:
        """The phases this item's review has, in order (empty: one screen)."""
        return []

    def current_phase(self, item: Item, fields: list[Field], values: dict[str, dict[str, Any]],
                      requested: str = "") -> str:
        """The phase to show: the one asked for, else the first with work left ("" for one screen).
        Raises ConflictError when the phase asked for may not open yet."""
        return ""

    def phase_fields(self, fields: list[Field], phase: str) -> list[Field]:
        return fields

    def marked_phase(self, fields: list[Field], marked: list[str]) -> str:
        """The phase of the first of `marked` (field ids an inspector asked to look at), in field
        order; "" when none is marked or the review has one screen."""
        return ""

    def phase_saved_message(self, phase: str) -> str:
        """What the rater reads after finishing `phase` when another follows."""
        return ""

    def rating_context(self, study: Study, item: Item, fields: list[Field], phase: str) -> dict[str, Any]:
        """Template variables the rating screen adds for this phase (banner, privileged source...)."""
        return {}

    def inspection_context(self, item: Item, fields: list[Field]) -> dict[str, Any]:
        """Template variables the inspection screen adds (inspectors are senior: they see it all).
        `phase_of` {field id: phase} groups the rows; `judge_notes` {field id: note} adds a column."""
        return {}

    def content_body(self, item: Item, *, privileged: bool) -> dict[str, Any] | None:
        """The API body of the item's protocol-specific content (None: nothing more than the case)."""
        return None

    def prescreen_body(self, study: Study, item: Item, fields: list[Field]) -> dict[str, dict[str, str]]:
        """{field id: {"verdict", "explanation"}}: an automated pre-screen the study shows raters."""
        return {}

    # --- a study of this protocol's items ---

    def study_started(self, study: Study, actor: Any) -> None:
        """Called by `study_start` inside its transaction (LiveClin pins the study's Judge run)."""

    def study_context(self, study: Study) -> dict[str, Any]:
        """What the study page adds (LiveClin: the pinned Judge run, later runs offered)."""
        return {}

    def study_fields(self, studies: list[Study]) -> dict[int, dict[str, Any]]:
        """{study id: fields} the study API adds for these studies (one query, not one per study)."""
        return {}


_DEFAULT = ReviewProtocol()
_protocols: dict[str, ReviewProtocol] = {}


def register_protocol(kind: str, protocol: ReviewProtocol) -> None:
    """Called once per item kind at start-up by the app that owns the protocol."""
    _protocols[kind] = protocol


def protocol_for(item: Item) -> ReviewProtocol:
    return _protocols.get(item.kind, _DEFAULT)


def protocol_for_study(study: Study) -> ReviewProtocol:
    """The protocol of the kind of items a study rates (as its selection records it)."""
    return _protocols.get(str((study.selection or {}).get("kind", "")), _DEFAULT)


def study_fields(studies: list[Study]) -> dict[int, dict[str, Any]]:
    """What each study's protocol adds to its API body (a query per protocol, not per study)."""
    out: dict[int, dict[str, Any]] = {}
    for protocol in {id(p): p for p in map(protocol_for_study, studies)}.values():
        out.update(protocol.study_fields([s for s in studies if protocol_for_study(s) is protocol]))
    return out


def requested_phase(request: HttpRequest) -> str:
    return (request.POST.get(PHASE_FIELD) if request.method == "POST" else request.GET.get("phase")) or ""


def shown_fields(
    item: Item, fields: list[Field], values: dict[str, dict[str, Any]], requested: str, *, strict: bool
) -> tuple[str, list[Field]]:
    """(phase, the fields on screen): every field for a one-screen review. `strict`: a phase asked for
    too early raises ConflictError (a GET redirects); otherwise the phase with work left."""
    protocol = protocol_for(item)
    try:
        phase = protocol.current_phase(item, fields, values, requested)
    except ConflictError:
        if strict:
            raise
        phase = protocol.current_phase(item, fields, values)
    if not phase:
        return "", fields
    return phase, protocol.phase_fields(fields, phase)


def has_next_phase(item: Item, fields: list[Field], phase: str) -> bool:
    present = protocol_for(item).phases(item, fields)
    return phase in present and present.index(phase) + 1 < len(present)


def submission_labels(
    fields: list[Field], saved: dict[str, dict[str, Any]], posted: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """A submission from the last phase's screen: the earlier phases' saved draft plus what was posted."""
    posted_ids = set(posted)
    merged = {f.id: saved[f.id] for f in fields if f.id not in posted_ids and f.id in saved}
    merged.update(posted)
    return merged
