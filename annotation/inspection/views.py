"""Inspector pages: the triage queue (why each item waits, which fields differ, filters, sorts),
the inspection of one item (accept, adjudicate, return), and an item's history.

After each action the inspector goes on to the next disagreement; typed reasons survive an error;
a return names the annotator and the fields to look at.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.roles import is_inspector
from annotation import access
from annotation.fields import item_fields
from annotation.inspection import triage
from annotation.inspection.display import history_rows
from annotation.inspection.screen import inspection_decide, inspection_page_context
from annotation.inspection.selectors import InspectorQueue, inspector_queue
from annotation.inspection.summary import DecisionSummary, decision_summary, summary_context
from annotation.models import Item, ReviewEvent, seal_audit_chain
from annotation.outcomes.selectors import field_outcomes
from annotation.rating.text_display import text_view_for
from medreview.errors import error_messages


def _queue_rows(request: HttpRequest) -> tuple[InspectorQueue, list[triage.TriageRow]]:
    queue = inspector_queue(inspector=request.user)
    waiting = queue.pending + queue.returned
    return queue, triage.triage_rows(waiting, queue.studies)


@require_http_methods(["GET"])
def inspector_dashboard(request: HttpRequest) -> HttpResponse:
    if not is_inspector(request.user):
        raise PermissionDenied(_("Only inspectors inspect items."))
    queue, rows = _queue_rows(request)
    filters = triage.TriageFilters.from_query(request.GET)
    shown = triage.filter_rows(rows, filters, queue.studies)
    tasks = sorted({(t.slug, t.shown_name) for s in queue.studies for t in s.tasks.all()}, key=lambda t: t[1])
    specialties = sorted({name for r in rows for name in r.specialties})
    return render(request, "inspection/inspector_dashboard.html", {
        "queue": queue,
        "pending_rows": [r for r in shown if r.item.status == Item.Status.INSPECTION],
        "returned_rows": [r for r in shown if r.item.status == Item.Status.RETURNED],
        "filters": filters,
        "reasons": triage.REASONS,
        "sorts": triage.SORTS,
        "tasks": tasks,
        "specialties": specialties,
        "query": request.GET.urlencode(),
    })


def _posted(request: HttpRequest) -> dict[str, Any]:
    """What the inspector typed, to show again when the action fails or they go back to change it."""
    return {
        "reason": request.POST.get("reason", ""),
        "set_reason": request.POST.get("set_reason", ""),
        "comment": request.POST.get("comment", "") if request.POST.get("action") != "return" else "",
        "return_comment": request.POST.get("comment", "") if request.POST.get("action") == "return" else "",
        "assignment": request.POST.get("assignment", ""),
        "fields": request.POST.getlist("fields"),
        "finals": {key[len("final:"):]: value for key, value in request.POST.items() if key.startswith("final:")},
        "action": request.POST.get("action", ""),
    }


@require_http_methods(["GET", "POST"])
def inspect(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the item. POST: an action answers with the summary of what it would store (nothing is
    stored); `step=confirm` with that summary's digest stores it; `step=edit` goes back to the page."""
    item = access.access_item_for_inspection(request.user, pk)
    if request.method == "GET":
        return render(request, "inspection/inspection.html", _context(request, item, [], {}))
    step = request.POST.get("step", "")
    if step == "edit":
        return render(request, "inspection/inspection.html", _context(request, item, [], _posted(request)))
    try:
        summary = decision_summary(item=item, inspector=request.user, data=request.POST)
    except ValidationError as exc:
        return render(request, "inspection/inspection.html",
                      _context(request, item, error_messages(exc), _posted(request)), status=400)
    if step != "confirm":
        return render(request, "inspection/confirm.html", _confirm_context(request, item, summary))
    if request.POST.get("summary", "") != summary.digest:
        # What would be stored now is not what the inspector confirmed: show it again, store nothing.
        return render(request, "inspection/confirm.html", _confirm_context(request, item, summary, changed=True),
                      status=409)
    errors = inspection_decide(request, item, summary)
    if errors:
        return render(request, "inspection/inspection.html", _context(request, item, errors, _posted(request)),
                      status=400)
    return _after_action(request, item)


def _context(request: HttpRequest, item: Item, errors: list[str], posted: dict[str, Any]) -> dict[str, Any]:
    # The inspector reads the item's text as a rater would (bilingual display, issue 12).
    return {"text_view": text_view_for(item, request.user), "posted": posted,
            **inspection_page_context(item, errors, request.user)}


def _confirm_context(request: HttpRequest, item: Item, summary: DecisionSummary, *,
                     changed: bool = False) -> dict[str, Any]:
    return {"item": item, "study": item.study, "changed": changed, **summary_context(summary)}


def _after_action(request: HttpRequest, item: Item) -> HttpResponse:
    """On to the next disagreement (or back to the queue when asked, or when none is left)."""
    if request.POST.get("then") == "queue":
        return redirect("annotation:inspector_dashboard")
    _queue, rows = _queue_rows(request)
    following = triage.next_to_inspect(rows, request.user, after=item.pk)
    if following is None:
        messages.info(request, _("Nothing else is waiting for inspection."))
        return redirect("annotation:inspector_dashboard")
    return redirect(reverse("annotation:inspect", args=[following.pk]))


def item_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every field's final decision, every rating of every round, and the item's events in chain order."""
    item = access.access_item_for_history(request.user, pk)
    seal_audit_chain(item.study_id)
    outcomes = field_outcomes([item.study], item_ids=[item.pk])
    events = ReviewEvent.objects.filter(item=item).select_related("actor").order_by("seq")
    return render(request, "inspection/item_history.html", {
        "item": item, "study": item.study, "events": events, "can_inspect": True,
        "outcomes": history_rows(item, item_fields(item), outcomes),
    })
