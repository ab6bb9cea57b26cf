"""The physician's pages: queue, next item, the rating screen, drafts, skip, submit-and-next, edits
and undo, stop for the day.

Thin: an access function, then a service, then `annotation.rating.screen` builds the page.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.roles import is_rater
from annotation import access
from annotation.fields import Field, item_fields
from annotation.labels import clean_entries
from annotation.models import Assignment, Item, Study
from annotation.protocols import has_next_phase, protocol_for, requested_phase, submission_labels
from annotation.rating.busy import answers_busy_database
from annotation.rating.forms import SkipForm
from annotation.rating.screen import (
    AFTER_SUBMIT_COOKIE,
    back_to_queue,
    dashboard_context,
    failed_submit_context,
    is_editing,
    posted_labels,
    posted_seconds,
    rater_studies,
    rating_context,
    save_then_submit,
    undo_target,
)
from annotation.rating.selectors import rater_queue
from annotation.rating.services.editing import (
    assignment_release,
    assignment_save_edit_draft,
)
from annotation.rating.services.queue import assignment_claim_next, assignment_skip
from annotation.rating.services.ratings import assignment_save_draft
from annotation.studies.calibration.services import calibration_pending
from medreview.errors import ConflictError, error_messages, flash_error_messages


@require_http_methods(["GET"])
def physician_dashboard(request: HttpRequest) -> HttpResponse:
    if not is_rater(request.user):
        raise PermissionDenied(_("Only physicians rate items."))
    queue = rater_queue(rater=request.user)
    return render(
        request,
        "rating/physician_dashboard.html",
        {"studies": list(rater_studies(request.user)), "queue": queue,
         **dashboard_context(request)},
    )


@require_http_methods(["POST"])
def next_item(request: HttpRequest, study_pk: int) -> HttpResponse:
    study = access.access_study_for_rating(request.user, study_pk)
    try:
        assignment = assignment_claim_next(study=study, rater=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
        return redirect("annotation:physician_dashboard")
    if assignment is None:
        return _nothing_left(request, study)
    return redirect("annotation:rate", pk=assignment.pk)


@require_http_methods(["GET", "POST"])
@answers_busy_database(json=False)
def rate(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = access.access_assignment_for_rating(request.user, pk, with_case=True)
    phase = requested_phase(request)
    if request.method == "GET":
        try:
            return render(request, "rating/rating.html", rating_context(request, assignment, phase=phase))
        except ConflictError as exc:  # phase 2 asked for before phase 1 is complete
            messages.info(request, " ".join(exc.messages))
            return redirect("annotation:rate", pk=assignment.pk)
    all_fields = item_fields(assignment.item)
    fields = protocol_for(assignment.item).phase_fields(all_fields, phase)
    labels = posted_labels(request, fields)
    try:
        if phase and has_next_phase(assignment.item, all_fields, phase):
            return _continue_to_next_phase(request, assignment, phase, fields, labels)
        # Saves the labels as the draft first, so a failed submit loses nothing (issue 11).
        save_then_submit(
            request, assignment,
            submission_labels(all_fields, dict(assignment.draft or {}), labels) if phase else labels,
            posted_seconds(request),
        )
    except ValidationError as exc:
        context, status = failed_submit_context(request, assignment, exc, fields, labels, phase)
        return render(request, "rating/rating.html", context, status=status)
    messages.success(request, _("Submitted. Thank you."))
    if assignment.item.status == Item.Status.CALIBRATION:
        return redirect("annotation:calibration_feedback", pk=assignment.pk)  # the expected answer, then on
    if back_to_queue(request):
        return redirect("annotation:physician_dashboard")
    following = assignment_claim_next(study=assignment.item.study, rater=request.user)
    if following is None:
        return _nothing_left(request, assignment.item.study)
    return redirect("annotation:rate", pk=following.pk)


def _continue_to_next_phase(request: HttpRequest, assignment: Assignment, phase: str,
                            fields: list[Field], labels: dict[str, dict[str, str]]) -> HttpResponse:
    """A phase's "continue" (LiveClin's phase 1): save its labels; when complete, open the next phase
    (a redirect). Raises the ValidationError naming each field that still needs a label or an
    explanation."""
    assignment_save_draft(assignment=assignment, rater=request.user, draft=labels,
                          seconds_spent=posted_seconds(request))
    clean_entries(labels, fields, require_all=True)
    messages.success(request, protocol_for(assignment.item).phase_saved_message(phase))
    return redirect("annotation:rate", pk=assignment.pk)


@require_http_methods(["POST"])
@answers_busy_database(json=True)
def save_draft(request: HttpRequest, pk: int) -> JsonResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    fields = item_fields(assignment.item)
    phase = requested_phase(request)
    # A phase's form holds only its own fields (LiveClin): the other phase's labels stay as saved.
    draft = posted_labels(request, protocol_for(assignment.item).phase_fields(fields, phase))
    try:
        if is_editing(assignment):
            # Editing a submitted item: kept as an edit in progress; the ratings change on "Save changes".
            kept = assignment_save_edit_draft(assignment=assignment, rater=request.user, draft=draft)
            return JsonResponse({"ok": True, "saved_at": (kept.draft_saved_at or timezone.now()).isoformat(),
                                 "state": kept.state,
                                 "notice": _("Change kept but not applied; press “Save changes” to apply it.")})
        saved = assignment_save_draft(
            assignment=assignment, rater=request.user, draft=draft, seconds_spent=posted_seconds(request)
        )
    except ValidationError as exc:
        return JsonResponse({"ok": False, "errors": error_messages(exc)}, status=400)
    saved_at: datetime = saved.draft_saved_at or timezone.now()
    body: dict[str, Any] = {"ok": True, "saved_at": saved_at.isoformat(), "state": saved.state}
    if saved.state == Assignment.State.EXPIRED:
        body["notice"] = _("Saved, but your claim lapsed and another rater took this item; your labels are kept.")
    return JsonResponse(body)


@require_http_methods(["POST"])
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    form = SkipForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason for skipping this item."))
        return redirect("annotation:rate", pk=assignment.pk)
    try:
        assignment_skip(assignment=assignment, rater=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as exc:
        flash_error_messages(request, exc)
        return redirect("annotation:rate", pk=assignment.pk)
    messages.success(request, _("Item skipped."))
    return redirect("annotation:physician_dashboard")


@require_POST
@answers_busy_database(json=False)
def submit_and_next(request: HttpRequest, pk: int) -> HttpResponse:
    rate = resolve(reverse("annotation:rate", kwargs={"pk": pk})).func
    response = rate(request, pk=pk)
    if response.status_code != 302:
        return response
    location = response["Location"]
    try:
        match = resolve(location)
    except Resolver404:
        return response
    if match.view_name != "annotation:rate":
        return response
    # The redirect's GET, served now: same user, same session, the same view.
    request.method = "GET"
    page = match.func(request, *match.args, **match.kwargs)
    page["X-Location"] = location
    page["Cache-Control"] = "no-store"
    return page


@require_http_methods(["POST"])
def after_submit_setting(request: HttpRequest) -> HttpResponse:
    """Set what follows a submit: the `next` item or back to the `queue` (a cookie, for a year)."""
    if not is_rater(request.user):
        raise PermissionDenied(_("Only physicians rate items."))
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
    # Undo is the rater asking to edit: the page opens in edit mode (a plain revisit is read-only).
    return redirect(reverse("annotation:rate", kwargs={"pk": target.pk}) + "?edit=1")


def _nothing_left(request: HttpRequest, study: Study) -> HttpResponse:
    """No item to give: a rater who finished calibration and waits for an admin is told so (issue 24)."""
    return render(request, "rating/nothing_left.html", {
        "study": study, "awaiting_admission": calibration_pending(study, request.user)})
