"""The rating screen's context: fields grouped by task with their values and errors, what the rater
reads, edit mode and undo, and the form as the services' {field id: {label, comment}} mapping.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest
from django.utils.translation import ngettext

from annotation import access
from annotation.fields import Field, field_titles, item_fields
from annotation.labels import own_latest_labels
from annotation.models import Assignment, Item, ReviewEvent, Study, StudyMember, TaskType
from annotation.protocols import protocol_for, shown_fields
from annotation.rating.forms import SkipForm
from annotation.rating.selectors import RaterQueue, item_content_context, rater_queue_on_screen
from annotation.rating.services.editing import (
    edit_blocker,
    last_editable_submission,
    rating_edit,
)
from annotation.rating.services.ratings import assignment_save_draft, rating_submit
from annotation.rating.text_display import text_view_for
from annotation.studies.calibration.feedback import rater_agreement_with_final
from medreview.errors import ConflictError, error_messages

# Assignment states in which the rater may still change their labels (a lapsed claim is revived by
# the services when its slot is still free, otherwise they say so).
EDITABLE_STATES = {
    Assignment.State.CLAIMED, Assignment.State.DRAFT, Assignment.State.RETURNED, Assignment.State.EXPIRED,
}


MAX_SECONDS = 24 * 3600


def errors_by_field(exc: ValidationError) -> dict[str, str]:
    """Service errors keyed by Field.id, so the form can mark the field they are about."""
    if not hasattr(exc, "error_dict"):
        return {}
    return {key: " ".join(str(m) for m in messages_) for key, messages_ in exc.message_dict.items()}


def posted_seconds(request: HttpRequest) -> int:
    """Client-measured visible time; clamp nonsense rather than trust it."""
    try:
        value = int(float(request.POST.get("seconds_spent", "0")))
    except ValueError:
        return 0
    return max(0, min(value, MAX_SECONDS))


def posted_labels(request: HttpRequest, fields: list[Field]) -> dict[str, dict[str, str]]:
    """The rating form as the services' {field id: {label, comment}} mapping.

    Every field is sent, empty ones too: a draft must be able to clear a label, and a submit with a
    missing label gets the services' error naming that field.
    """
    return {
        field.id: {
            "label": request.POST.get(field.id, "").strip(),
            "comment": request.POST.get(f"comment:{field.id}", "").strip(),
        }
        for field in fields
    }


@dataclass
class FieldRow:
    """One field of the rating form with its current value."""

    field: Field
    label: str
    comment: str
    index: int
    error: str = ""

    @property
    def id(self) -> str:
        return self.field.id


@dataclass
class TaskGroup:
    task: TaskType
    rows: list[FieldRow]


def _groups(
    fields: list[Field], values: dict[str, dict[str, str]], errors: dict[str, str]
) -> list[TaskGroup]:
    groups: list[TaskGroup] = []
    for index, field in enumerate(fields):
        value = values.get(field.id) or {}
        row = FieldRow(
            field=field, label=value.get("label", ""), comment=value.get("comment", ""), index=index,
            error=errors.get(field.id, ""),
        )
        if not groups or groups[-1].task.pk != field.task.pk:
            groups.append(TaskGroup(task=field.task, rows=[]))
        groups[-1].rows.append(row)
    return groups


def rating_context(
    request: HttpRequest,
    assignment: Assignment,
    *,
    values: dict[str, dict[str, str]] | None = None,
    errors: list[str] | None = None,
    field_errors: dict[str, str] | None = None,
    phase: str = "",
) -> dict[str, Any]:
    item = assignment.item
    study = item.study
    all_fields = item_fields(item)
    # A submitted item may be changed while it is still open (issue 11), but it opens read-only
    # and becomes editable only when the rater asks (Edit, `e`: `?edit=1`), so a stray key on a
    # revisit changes nothing on screen that the server does not hold (issue 21).
    editing = is_editing(assignment) and wants_to_edit(request)
    editable = assignment.state in EDITABLE_STATES or editing
    if values is None:
        values = dict(assignment.draft or {}) if editable and not editing else own_latest_labels(assignment)
        if editing:
            values.update(assignment.draft or {})  # an edit in progress, kept across reloads
    # A protocol's phase on screen (LiveClin: one of the two screens of a question-set review). A
    # returned item opens on the phase of the first field the inspector marked (issue 20).
    strict = request.method == "GET"
    if not phase and assignment.state == Assignment.State.RETURNED:
        phase = protocol_for(item).marked_phase(all_fields, _return_fields(assignment))
        strict = False
    phase, fields = shown_fields(item, all_fields, {**(assignment.draft or {}), **values}, phase, strict=strict)
    queue = rater_queue_on_screen(rater=request.user, study=study)
    return_comment = ""
    if assignment.state == Assignment.State.RETURNED:
        last_return = assignment.returns.order_by("-created_at").first()
        return_comment = last_return.comment if last_return else ""
    return {
        "assignment": assignment,
        "item": item,
        "study": study,
        "groups": _groups(fields, values, field_errors or {}),
        "field_count": len(fields),
        "editable": editable,
        "errors": errors or [],
        "queue": queue,
        "progress": _study_progress_for_rater(queue, study),
        "return_comment": return_comment,
        "draft_saved_at": assignment.draft_saved_at,
        "skip_form": SkipForm(),
        **item_content_context(item, assignment, fields),
        **protocol_for(item).rating_context(study, item, all_fields, phase),
        **page_context(request, assignment, fields, field_errors or {}, editable=editable),
        "text_view": text_view_for(item, request.user),
    }


def _study_progress_for_rater(queue: RaterQueue, study: Study) -> dict[str, int]:
    """n of m: items this rater has submitted in the study, of the study's items."""
    return {"done": queue.counts["done"], "total": study.items.count()}


def rater_studies(user: Any) -> QuerySet[Study]:
    """Studies the user rates in, with how many items each has and how many this rater finished."""
    return (
        access.access_studies_for_listing(user)
        .filter(memberships__user=user, memberships__role=StudyMember.Role.RATER)
        .annotate(
            item_total=Count("items", distinct=True),
            my_done=Count(
                "items__assignments",
                filter=Q(items__assignments__rater=user, items__assignments__state__in=Assignment.FINISHED_STATES),
                distinct=True,
            ),
            # Issue 24: the card says the study starts with a calibration round and an admin's admission.
            not_admitted=Exists(StudyMember.objects.filter(
                study=OuterRef("pk"), user=user, role=StudyMember.Role.RATER, admitted_at__isnull=True)),
            has_calibration=Exists(Item.objects.filter(study=OuterRef("pk"), status=Item.Status.CALIBRATION)),
        )
        .order_by("-created_at")
    )


# "Next" after a submit: the next item (default) or back to the queue; a per-browser setting.
AFTER_SUBMIT_COOKIE = "medreview_after_submit"


def is_editing(assignment: Assignment) -> bool:
    """A submitted item its rater may still change (while the item is still open)."""
    return assignment.state == Assignment.State.SUBMITTED and not edit_blocker(assignment)


def wants_to_edit(request: HttpRequest) -> bool:
    """The rater pressed Edit (`?edit=1`) or is saving changes (a POST)."""
    return request.method == "POST" or request.GET.get("edit") == "1"


def read_only_reason(assignment: Assignment) -> str:
    """Why a finished item's labels are shown read-only, in the rater's words ("" while they may edit)."""
    if assignment.state == Assignment.State.SUBMITTED:
        return edit_blocker(assignment)
    return ""


def undo_target(request: HttpRequest, assignment: Assignment) -> Assignment | None:
    """The rater's last submission in this study they may still change (`u` on the next item)."""
    last = last_editable_submission(study=assignment.item.study, rater=request.user)
    return last if last is not None and last.pk != assignment.pk else None


def page_context(
    request: HttpRequest, assignment: Assignment, fields: list[Field], field_errors: dict[str, str],
    *, editable: bool,
) -> dict[str, Any]:
    """What the rating page adds for issue 11: edit mode, the errors as a list of links, undo."""
    titles = field_titles(fields)
    index_of = {f.id: i for i, f in enumerate(fields)}
    may_edit = is_editing(assignment)
    editing = may_edit and wants_to_edit(request)
    return {
        "editing": editing,
        # Submitted, still open to changes, shown read-only until Edit (issue 21).
        "can_edit": may_edit and not editing,
        "pending_edit": may_edit and bool(assignment.draft),
        "read_only_reason": "" if editable else read_only_reason(assignment),
        # Each field error in the rater's words, with the field's index so the page links and focuses it.
        "field_error_list": [
            {"index": index_of[key], "field_id": key, "title": titles[key], "message": message}
            for key, message in field_errors.items() if key in index_of
        ],
        "undo": undo_target(request, assignment) if editable and not editing else None,
        "return_fields": _return_fields(assignment) if assignment.state == Assignment.State.RETURNED else [],
        "after_submit": request.COOKIES.get(AFTER_SUBMIT_COOKIE, "next"),
    }


def dashboard_context(request: HttpRequest) -> dict[str, Any]:
    """The physician dashboard's issue-11 parts: agreement with final labels per task, the setting."""
    return {
        "agreement_with_final": rater_agreement_with_final(rater=request.user),
        "after_submit": request.COOKIES.get(AFTER_SUBMIT_COOKIE, "next"),
    }


def _return_fields(assignment: Assignment) -> list[str]:
    """The fields the inspector's last return asked this annotator to look at (1 query)."""
    event = assignment.events.filter(kind=ReviewEvent.Kind.RETURNED).order_by("-created_at", "-pk").first()
    return list((event.data or {}).get("fields", [])) if event else []


def save_then_submit(
    request: HttpRequest, assignment: Assignment, labels: dict[str, dict[str, str]], seconds: int,
) -> None:
    """Submit as the rater pressed it; a submit that fails validation loses nothing: its labels are
    then saved as the draft (in their own transaction) before the error is raised. A submitted item
    is edited instead (`rating_edit`), which is refused (409, with the reason) once the item has left
    "open" (issue 21).

    The submit is tried first: when it succeeds the draft would be emptied in the same breath, so
    saving it beforehand cost a transaction, a commit and a chain seal on every submit (issue 27).
    """
    if assignment.state == Assignment.State.SUBMITTED:
        rating_edit(assignment=assignment, rater=request.user, labels=labels, seconds_spent=seconds)
        return
    try:
        rating_submit(assignment=assignment, rater=request.user, labels=labels, seconds_spent=seconds)
    except ValidationError:
        if assignment.state in (*Assignment.LEASED_STATES, Assignment.State.RETURNED, Assignment.State.EXPIRED):
            # An off-scale label or a state that forbids writing: the submit's error says which.
            with contextlib.suppress(ValidationError):
                assignment_save_draft(
                    assignment=assignment, rater=request.user,
                    draft={fid: entry for fid, entry in labels.items() if entry["label"] or entry["comment"]},
                    seconds_spent=seconds,
                )
        raise


def back_to_queue(request: HttpRequest) -> bool:
    """After a submit: the button pressed, else the rater's setting (next item by default)."""
    then = request.POST.get("then")
    if then in ("dashboard", "next"):
        return then == "dashboard"
    return request.COOKIES.get(AFTER_SUBMIT_COOKIE) == "queue"


def failed_submit_context(
    request: HttpRequest, assignment: Assignment, exc: ValidationError, fields: list[Field],
    labels: dict[str, dict[str, str]], phase: str,
) -> tuple[dict[str, Any], int]:
    """The rating page after a refused submit or edit, and its status (400, or 409 for a conflict).

    A refused edit (the item left "open" meanwhile) or a failed edit stores nothing: the page says
    so, and a refused one shows the stored labels read-only with the reason (issue 21).
    """
    field_errors = errors_by_field(exc)
    field_ids = {field.id for field in fields}
    marked = [key for key in field_errors if key in field_ids]
    errors = [message for key, message in field_errors.items() if key not in field_ids]
    if marked:
        errors.insert(0, ngettext("%(count)d field needs attention; it is marked below.",
                                  "%(count)d fields need attention; they are marked below.", len(marked))
                      % {"count": len(marked)})
    conflict = isinstance(exc, ConflictError)
    context = rating_context(
        request, assignment, values=None if conflict else labels, errors=errors or error_messages(exc),
        field_errors=field_errors, phase=phase,
    )
    context["not_stored"] = conflict or assignment.state == Assignment.State.SUBMITTED
    return context, 409 if conflict else 400
