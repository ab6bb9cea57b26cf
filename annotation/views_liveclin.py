"""The rating screen's LiveClin phases (Appendix G; the rules are in `annotation.liveclin`).

A question-set review holding both checks is two screens of one assignment: phase 1 (auditor) with
the factual fields and the privileged source, then phase 2 (examinee) with the solvability fields
and nothing privileged. The form carries its phase (`liveclin_phase`), so a draft save or a submit
only touches that phase's fields (the other phase's labels stay in the draft), and "continue" from
phase 1 saves it and opens phase 2 once it is complete.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _

from annotation import liveclin, selectors, services
from annotation.models import Assignment, Item, Study
from annotation.services.labels import clean_entries
from medreview.errors import ConflictError

PHASE_FIELD = "liveclin_phase"


def requested_phase(request: HttpRequest) -> str:
    return (request.POST.get(PHASE_FIELD) if request.method == "POST" else request.GET.get("phase")) or ""


def shown_fields(
    item: Item, fields: list[selectors.Field], values: dict[str, dict[str, Any]], requested: str, *, strict: bool
) -> tuple[str, list[selectors.Field]]:
    """(phase, the fields on screen): every field for anything but a two-phase question set. `strict`:
    phase 2 asked for too early raises ConflictError (a GET redirects); otherwise the phase with work left."""
    try:
        phase = liveclin.current_phase(item, fields, values, requested)
    except ConflictError:
        if strict:
            raise
        phase = liveclin.current_phase(item, fields, values)
    if not phase:
        return "", fields
    return phase, liveclin.phase_fields(fields, phase)


def page_context(study: Study, item: Item, fields: list[selectors.Field], phase: str) -> dict[str, Any]:
    """Template variables of the phase banner, the privileged source (phase 1) and the pre-screen."""
    if not phase:
        return {}
    present = liveclin.phases(item, fields)
    shown = liveclin.phase_fields(fields, phase)
    following = present[present.index(phase) + 1] if present.index(phase) + 1 < len(present) else ""
    context: dict[str, Any] = {
        "liveclin_phase": phase,
        "liveclin_phases": present,
        "liveclin_next_phase": following,
        "prescreen": liveclin.prescreen_notes(study, item, shown),
    }
    if phase == liveclin.AUDITOR and item.question_set_id:
        context["auditor_source"] = liveclin.auditor_source(item.question_set, item.revision.source)
    return context


def inspection_context(item: Item) -> dict[str, Any]:
    """Inspectors are senior physicians checking both phases: they read the privileged source too."""
    if not item.question_set_id:
        return {}
    return {"show_privileged": True, "auditor_source": liveclin.auditor_source(item.question_set, item.revision.source)}


def has_next_phase(item: Item, fields: list[selectors.Field], phase: str) -> bool:
    present = liveclin.phases(item, fields)
    return phase in present and present.index(phase) + 1 < len(present)


def continue_from_auditor(request: HttpRequest, assignment: Assignment, fields: list[selectors.Field],
                          labels: dict[str, dict[str, str]], seconds: int) -> HttpResponse:
    """Phase 1's "continue": save its labels; when complete, open phase 2 (a redirect). Raises the
    ValidationError naming each field that still needs a label or an explanation."""
    services.assignment_save_draft(assignment=assignment, rater=request.user, draft=labels, seconds_spent=seconds)
    clean_entries(labels, fields, require_all=True)
    messages.success(request, _("Phase 1 saved. Phase 2: judge each question as an examinee would."))
    return redirect("annotation:rate", pk=assignment.pk)


def submission(assignment: Assignment, fields: list[selectors.Field], posted: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """The last phase's submit: the earlier phase's saved labels plus what this screen posted."""
    return liveclin.submission_labels(fields, liveclin.assignment_values(assignment), posted)
