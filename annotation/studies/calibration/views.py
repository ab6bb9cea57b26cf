"""Calibration pages (issue 11): the expected answer after each calibration item, and the admin's
view of each rater's calibration agreement with admission and import."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from annotation import access
from annotation.fields import Field, field_titles, item_fields
from annotation.labels import own_latest_labels
from annotation.models import Assignment, Item, StudyMember
from annotation.studies.calibration.services import (
    calibration_import,
    calibration_pending,
    calibration_scores,
    rater_admit,
)


@require_http_methods(["GET"])
def calibration_feedback(request: HttpRequest, pk: int) -> HttpResponse:
    """After a calibration item: the rater's answer, the expected one and why, per field."""
    assignment = access.access_assignment_for_rating(request.user, pk)
    item = assignment.item
    if item.status != Item.Status.CALIBRATION or assignment.state not in Assignment.FINISHED_STATES:
        return redirect("annotation:rate", pk=assignment.pk)
    fields = item_fields(item)
    titles = field_titles(fields)
    mine = own_latest_labels(assignment)
    rows = []
    for f in fields:
        expected = (item.expected or {}).get(f.id, {})
        given = (mine.get(f.id) or {}).get("label", "")
        rows.append({
            "title": titles[f.id], "text": f.label if f.key else "",
            "given": _label(f, given), "expected": _label(f, expected.get("label", "")),
            "match": given == expected.get("label"), "explanation": expected.get("explanation", ""),
        })
    study = item.study
    scores = calibration_scores(study).get(request.user.pk)
    return render(request, "studies/calibration_feedback.html", {
        "assignment": assignment, "study": study, "rows": rows, "score": scores,
        "admitted": not calibration_pending(study, request.user),
    })


def _label(field: Field, value: str) -> str:
    category = field.category(value) if value else None
    return category.label if category is not None else value


@require_http_methods(["GET"])
def study_calibration(request: HttpRequest, pk: int) -> HttpResponse:
    """Admins: calibration items, each rater's calibration agreement, admit; import expected answers."""
    study = access.access_study_for_management(request.user, pk)
    scores = calibration_scores(study)
    members = list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user").order_by("pk")
    )
    return render(request, "studies/study_calibration.html", {
        "study": study,
        "items": list(study.items.filter(status=Item.Status.CALIBRATION).select_related("revision__case")),
        "raters": [{"member": m, "score": scores.get(m.user_id)} for m in members],
    })


@require_http_methods(["POST"])
def calibration_admit(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    raw = request.POST.get("rater", "")
    rater = get_user_model().objects.filter(pk=int(raw)).first() if raw.isdigit() else None
    try:
        if rater is None:
            raise ValidationError(_("Choose a rater."))
        rater_admit(study=study, rater=rater, actor=request.user, reason=request.POST.get("reason", "").strip())
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, _("%(user)s admitted to the main queue.") % {"user": rater.get_username()})
    return redirect("annotation:study_calibration", pk=study.pk)


@require_http_methods(["POST"])
def calibration_upload(request: HttpRequest, pk: int) -> HttpResponse:
    """Mark calibration items from JSON: [{"item": "<key>", "expected": {field id: {label, explanation}}}]."""
    study = access.access_study_for_management(request.user, pk)
    try:
        rows: Any = json.loads(request.POST.get("rows", "") or "[]")
        count = calibration_import(study=study, actor=request.user, rows=rows)
    except json.JSONDecodeError as exc:
        messages.error(request, _("Not JSON: %(error)s") % {"error": exc})
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, ngettext("%(count)d calibration item marked.", "%(count)d calibration items marked.", count) % {"count": count})
    return redirect("annotation:study_calibration", pk=study.pk)
