"""The rater's screen around a submit (issue 11): save before submitting, edit a submitted item
until its inspection starts, undo the last submit (`u`), what follows a submit, stop for the day.

The rating page itself is `annotation.views.rate`; these are the pieces it and its small POST
endpoints use. Writes go through `annotation.services` (`editing`, `ratings`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.roles import is_rater
from annotation import access, selectors, services
from annotation.feedback import rater_agreement_with_final
from annotation.field_names import field_titles
from annotation.models import Assignment, ReviewEvent
from annotation.services.editing import (
    assignment_release,
    edit_blocker,
    last_editable_submission,
    rating_edit,
)

# "Next" after a submit: the next item (default) or back to the queue; a per-browser setting.
AFTER_SUBMIT_COOKIE = "medreview_after_submit"


def is_editing(assignment: Assignment) -> bool:
    """A submitted item its rater may still change (until its inspection starts)."""
    return assignment.state == Assignment.State.SUBMITTED and not edit_blocker(assignment)


def undo_target(request: HttpRequest, assignment: Assignment) -> Assignment | None:
    """The rater's last submission in this study they may still change (`u` on the next item)."""
    last = last_editable_submission(study=assignment.item.study, rater=request.user)
    return last if last is not None and last.pk != assignment.pk else None


def page_context(
    request: HttpRequest, assignment: Assignment, fields: list[selectors.Field], field_errors: dict[str, str],
    *, editable: bool,
) -> dict[str, Any]:
    """What the rating page adds for issue 11: edit mode, the errors as a list of links, undo."""
    titles = field_titles(fields)
    index_of = {f.id: i for i, f in enumerate(fields)}
    editing = is_editing(assignment)
    return {
        "editing": editing,
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
    """Submit as the rater pressed it: the labels are saved as the draft first (in their own
    transaction), so a submit that fails validation loses nothing; a submitted item still open to
    changes is edited instead (`rating_edit`)."""
    if is_editing(assignment):
        rating_edit(assignment=assignment, rater=request.user, labels=labels, seconds_spent=seconds)
        return
    if assignment.state in (*Assignment.LEASED_STATES, Assignment.State.RETURNED, Assignment.State.EXPIRED):
        # An off-scale label or a state that forbids writing: the submit below says which.
        with contextlib.suppress(ValidationError):
            services.assignment_save_draft(
                assignment=assignment, rater=request.user,
                draft={fid: entry for fid, entry in labels.items() if entry["label"] or entry["comment"]},
                seconds_spent=seconds,
            )
    services.rating_submit(assignment=assignment, rater=request.user, labels=labels, seconds_spent=seconds)


def back_to_queue(request: HttpRequest) -> bool:
    """After a submit: the button pressed, else the rater's setting (next item by default)."""
    then = request.POST.get("then")
    if then in ("dashboard", "next"):
        return then == "dashboard"
    return request.COOKIES.get(AFTER_SUBMIT_COOKIE) == "queue"


@require_http_methods(["POST"])
def after_submit_setting(request: HttpRequest) -> HttpResponse:
    """Set what follows a submit: the `next` item or back to the `queue` (a cookie, for a year)."""
    if not is_rater(request.user):
        raise PermissionDenied("Only physicians rate items.")
    value = "queue" if request.POST.get("after_submit") == "queue" else "next"
    back = request.POST.get("back", "")
    safe = url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure())
    response = redirect(back if back and safe else "annotation:physician_dashboard")
    response.set_cookie(AFTER_SUBMIT_COOKIE, value, max_age=365 * 24 * 3600, samesite="Lax",
                        secure=request.is_secure(), httponly=True)
    messages.success(request, _("After a submit: back to my queue.") if value == "queue" else _("After a submit: the next item."))
    return response


@require_http_methods(["POST"])
def release(request: HttpRequest, pk: int) -> HttpResponse:
    """Stop for the day: a claim holding no draft goes back to the pool; a draft keeps its claim."""
    assignment = access.access_assignment_for_rating(request.user, pk)
    if assignment_release(assignment=assignment, rater=request.user):
        messages.success(request, _("Item given back. See you next time."))
    elif assignment.state in Assignment.LEASED_STATES:
        messages.success(request, _("Your labels are saved as a draft; the item waits for you."))
    return redirect("annotation:physician_dashboard")


@require_http_methods(["POST"])
def undo_submit(request: HttpRequest, pk: int) -> HttpResponse:
    """`u` on the next item's screen: give that item back (if it holds no draft) and reopen the last
    submitted one for changes."""
    assignment = access.access_assignment_for_rating(request.user, pk)
    target = undo_target(request, assignment)
    if target is None:
        messages.error(request, _("There is no submitted item you can still change."))
        return redirect("annotation:rate", pk=assignment.pk)
    assignment_release(assignment=assignment, rater=request.user)
    messages.info(request, _("Your last submission is open again: change what you need and save."))
    return redirect("annotation:rate", pk=target.pk)
