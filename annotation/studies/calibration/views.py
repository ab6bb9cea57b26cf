"""Calibration pages (issue 11): the expected answer after each calibration item, and the admin's
view of each rater's calibration agreement with admission and import."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from annotation import access
from annotation.fields import Field, field_titles, item_fields
from annotation.labels import own_latest_labels
from annotation.models import Assignment, Item, StudyMember
from annotation.studies.calibration.expected import expected_from_post, expected_rows
from annotation.studies.calibration.parsing import parse_calibration
from annotation.studies.calibration.services import (
    calibration_candidates,
    calibration_import,
    calibration_mark,
    calibration_pending,
    calibration_scores,
    calibration_set_threshold,
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
    """Admins: each rater's calibration agreement and admission, the threshold, the calibration items
    and the items that can become one (picked from the list, answered on a rating-like form)."""
    study = access.access_study_for_management(request.user, pk)
    scores = calibration_scores(study)
    members = list(
        StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user").order_by("pk")
    )
    threshold = study.calibration_threshold
    return render(request, "studies/study_calibration.html", {
        "study": study,
        "items": list(study.items.filter(status=Item.Status.CALIBRATION).select_related("revision__case")),
        "candidates": calibration_candidates(study)[:MAX_CANDIDATES],
        "max_candidates": MAX_CANDIDATES,
        "threshold_percent": None if threshold is None else round(threshold * 100),
        "raters": [{"member": m, "score": scores.get(m.user_id)} for m in members],
    })


MAX_CANDIDATES = 500


@require_http_methods(["GET", "POST"])
def calibration_item(request: HttpRequest, pk: int, item_pk: int) -> HttpResponse:
    """One item's expected answers on a rating-like form: a category per field and why. A refused
    form keeps what was entered and marks the fields that need an answer."""
    study = access.access_study_for_management(request.user, pk)
    item = get_object_or_404(study.items.select_related("study", "revision__case"), pk=item_pk)
    if request.method == "POST":
        try:
            calibration_mark(item=item, actor=request.user, expected=expected_from_post(item, request.POST))
        except ValidationError as exc:
            field_errors = {key: [_("Choose the expected answer.") if "required" in m else m for m in ms]
                            for key, ms in getattr(exc, "message_dict", {}).items()}
            rows = expected_rows(item, posted=request.POST, errors=field_errors)
            known = {r.field_id for r in rows}
            other = [m for key, ms in field_errors.items() if key not in known for m in ms] or (
                [] if field_errors else exc.messages)
            return render(request, "studies/calibration_item.html", {
                "study": study, "item": item, "rows": rows, "errors": other,
                "marked": sum(1 for r in rows if r.errors)}, status=400)
        messages.success(request, _("The item of case %(case)s is a calibration item now.") % {
            "case": item.revision.case.external_id or item.key})
        return redirect("annotation:study_calibration", pk=study.pk)
    return render(request, "studies/calibration_item.html", {
        "study": study, "item": item, "rows": expected_rows(item), "errors": [], "marked": 0})


@require_http_methods(["POST"])
def calibration_threshold(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    raw = request.POST.get("percent", "").strip()
    if raw and not (raw.isdigit() and 0 <= int(raw) <= 100):
        messages.error(request, _("The admission threshold is a whole percentage from 0 to 100, not %(value)s.")
                       % {"value": raw})
        return redirect("annotation:study_calibration", pk=study.pk)
    calibration_set_threshold(study=study, actor=request.user, threshold=int(raw) / 100 if raw else None)
    if raw:
        messages.success(request, _("Raters are admitted at once when %(percent)s%% of their calibration labels "
                                    "match.") % {"percent": raw})
    else:
        messages.success(request, _("An admin admits each rater after calibration."))
    return redirect("annotation:study_calibration", pk=study.pk)


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
        rows = parse_calibration(request.POST.get("rows", "") or "[]", file_name=_("calibration rows"))
        count = calibration_import(study=study, actor=request.user, rows=[row.as_dict() for row in rows])
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, ngettext("%(count)d calibration item marked.", "%(count)d calibration items marked.", count) % {"count": count})
    return redirect("annotation:study_calibration", pk=study.pk)
