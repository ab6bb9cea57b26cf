"""Label-task pages: my tasks, the next unit, a unit's blind assignment or audit form, taking an
answer back, the inspection list and decision, and the accuracy report."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from liveclin.labelling import access, screen, selectors
from liveclin.labelling.reports import task_report
from liveclin.labelling.services import label_answer_submit, label_answer_withdraw, label_unit_decide
from liveclin.models import LabelTask, LabelUnit
from medreview.errors import error_messages, flash_error_messages


@require_http_methods(["GET"])
def task_list(request: HttpRequest) -> HttpResponse:
    tasks = list(access.access_tasks_for_listing(request.user).select_related("taxonomy"))
    rows = [{"task": t, "progress": selectors.task_progress(t, request.user)} for t in tasks]
    return render(request, "labelling/task_list.html", {"rows": rows})


@require_http_methods(["POST"])
def task_next(request: HttpRequest, pk: int) -> HttpResponse:
    task = access.access_task_for_rating(request.user, pk)
    unit = selectors.next_unit(task, request.user)
    if unit is None:
        messages.info(request, _("Nothing left to label in “%(name)s”.") % {"name": task.name})
        return redirect("labelling:task_list")
    return redirect("labelling:unit", pk=unit.pk)


def _seconds(raw: str) -> int | None:
    return int(raw) if raw.isdigit() else None


def _posted_path(request: HttpRequest, task: LabelTask) -> list[str]:
    """The taxonomy levels the form posted (level1, level2, ...), as many as the task's taxonomy has."""
    return [request.POST.get(f"level{d}", "") for d in range(1, screen.levels(task) + 1)]


@require_http_methods(["GET", "POST"])
def unit(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the form (blind for an assignment); POST: store the answer, then the next unit."""
    found = access.access_unit_for_rating(request.user, pk)
    errors: list[str] = []
    if request.method == "POST":
        try:
            label_answer_submit(
                unit=found, rater=request.user,
                path=_posted_path(request, found.task),
                verdict=request.POST.get("verdict", ""), value=request.POST.get("value", ""),
                comment=request.POST.get("comment", ""), seconds=_seconds(request.POST.get("seconds", "")),
            )
        except ValidationError as exc:
            errors = error_messages(exc)
        else:
            messages.success(request, _("Saved. The server holds your answer; you can take it back below."))
            following = selectors.next_unit(found.task, request.user)
            if following is None:
                messages.info(request, _("Nothing left to label in “%(name)s”.") % {"name": found.task.name})
                return redirect("labelling:task_list")
            return redirect("labelling:unit", pk=following.pk)
    context = screen.unit_context(found, request.user, posted=request.POST if errors else None)
    return render(request, screen.template(found.task), {**context, "errors": errors},
                  status=400 if errors else 200)


@require_http_methods(["POST"])
def unit_withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_unit_for_rating(request.user, pk)
    try:
        label_answer_withdraw(unit=found, rater=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, _("Your answer was taken back; answer this item again."))
    return redirect("labelling:unit", pk=found.pk)


@require_http_methods(["GET"])
def task_inspection(request: HttpRequest, pk: int) -> HttpResponse:
    task = access.access_task_for_inspection(request.user, pk)
    units = task.units.filter(status=LabelUnit.Status.INSPECTION).select_related("revision__case", "ai_label")
    return render(request, "labelling/inspection_list.html", {"task": task, "units": units})


@require_http_methods(["GET", "POST"])
def unit_inspect(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_unit_for_inspection(request.user, pk)
    errors: list[str] = []
    if request.method == "POST":
        try:
            label_unit_decide(
                unit=found, inspector=request.user,
                path=_posted_path(request, found.task),
                verdict=request.POST.get("verdict", ""), value=request.POST.get("value", ""),
                reason=request.POST.get("reason", ""),
            )
        except ValidationError as exc:
            errors = error_messages(exc)
        else:
            messages.success(request, _("Final label stored."))
            return redirect("labelling:task_inspection", pk=found.task_id)
    return render(request, "labelling/inspect.html", {**screen.inspection_context(found), "errors": errors},
                  status=400 if errors else 200)


@require_http_methods(["GET"])
def task_report_page(request: HttpRequest, pk: int) -> HttpResponse:
    task = access.access_task_for_report(request.user, pk)
    return render(request, "labelling/report.html", {"task": task, "report": task_report(task),
                                                     "assignment": task.kind == LabelTask.Kind.ASSIGNMENT})
