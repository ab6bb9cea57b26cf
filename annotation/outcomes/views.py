"""Pages after review: label and audit-trail exports, the study's hourly rate, curations.

Access function, then selector or service, then template or file.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.roles import is_admin
from annotation import access
from annotation.models import AuditChainBroken, Curation, Study
from annotation.outcomes.curation.forms import CurationForm
from annotation.outcomes.curation.service import curation_create, curation_file_open, curation_files
from annotation.outcomes.curation.words import shown_notes, shown_reasons
from annotation.outcomes.responses import (
    check_label_format,
    events_response,
    history_url,
    labels_response,
    wants_calibration,
)
from annotation.outcomes.selectors import study_effort
from annotation.outcomes.services import study_record_export, study_set_hourly_rate
from cases.access import access_release_for_browsing
from cases.exporters import CurationRules


@require_http_methods(["GET"])
def effort_overview(request: HttpRequest) -> HttpResponse:
    """Every study the user may read with its review time and cost (or why there is none), and its
    audit trail's exports: what the top bar's "Cost" and "Events" open."""
    studies = list(access.access_studies_for_progress(request.user).order_by("-created_at"))
    rows = [{"study": s, "effort": study_effort(s).as_dict()} for s in studies]
    return render(request, "outcomes/effort_overview.html", {"rows": rows, "is_admin": is_admin(request.user)})


def _chain_checked(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """An export whose study's audit chain is broken says so on the study's page (the API answers 409)."""
    @wraps(view)
    def wrapped(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
        try:
            return view(request, pk, fmt)
        except AuditChainBroken as exc:
            messages.error(request, exc.messages[0])
            return redirect("home")
    return wrapped


@_chain_checked
def study_labels_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    study = access.access_study_for_export(request.user, pk)
    check_label_format(fmt)
    study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, via="page")
    return labels_response(request.user, [study], fmt, f"study-{study.pk}-labels",
                           calibration=wants_calibration(request.GET))


@_chain_checked
def release_labels_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    release = access_release_for_browsing(request.user, pk)
    check_label_format(fmt)
    studies = list(Study.objects.filter(items__revision__release=release).distinct().order_by("pk"))
    for study in studies:
        study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, release=release.pk, via="page")
    return labels_response(request.user, studies, fmt, f"release-{release.pk}-labels",
                           calibration=wants_calibration(request.GET))


@_chain_checked
def study_events_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    return events_response(request.user, pk, fmt, real_names=request.GET.get("names") == "1", via="page")


@require_http_methods(["POST"])
def study_hourly_rate(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    try:
        study_set_hourly_rate(study=study, hourly_rate=request.POST.get("hourly_rate", ""),
                              currency=request.POST.get("currency", "USD"), actor=request.user)
    except ValidationError as exc:
        for message in exc.messages:
            messages.error(request, message)
    else:
        messages.success(request, _("Hourly rate saved."))
    return redirect("annotation:study_detail", pk=study.pk)


@require_http_methods(["GET", "POST"])
def curation_list(request: HttpRequest) -> HttpResponse:
    curations = access.access_curations_for_management(request.user)
    form = CurationForm(request.POST or None, initial={"release": request.GET.get("release")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        rules = CurationRules(keep_rejected_criteria=data["keep_rejected"], review_block=data["review_block"],
                              resolved_only=data["resolved_only"])
        try:
            curation, created = curation_create(name=data["name"], release=data["release"],
                                                studies=list(data["studies"]), rules=rules, actor=request.user,
                                                history_url=history_url)
        except ValidationError as exc:
            for message in exc.messages:
                messages.error(request, _("Refused, nothing written: %(problem)s") % {"problem": message})
        else:
            messages.success(request, (_("Curation %(name)s written.") if created else _("Curation %(name)s unchanged.")) % {"name": curation.name})
            return redirect("annotation:curation_detail", pk=curation.pk)
    return render(request, "outcomes/curation_list.html", {
        "curations": curations.select_related("release__dataset", "created_by"), "form": form})


def curation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    curation = access.access_curation_for_management(request.user, pk)
    manifest = curation.manifest
    return render(request, "outcomes/curation_detail.html", {
        "curation": curation, "manifest": manifest, "files": sorted(curation.files.items()),
        "on_disk": curation_files(curation), "items": shown_notes(manifest), "reasons": shown_reasons(manifest),
        "studies": curation.studies.order_by("pk"),
    })


def curation_file(request: HttpRequest, pk: int, name: str) -> FileResponse:
    curation: Curation = access.access_curation_for_management(request.user, pk)
    opened = curation_file_open(curation, name)
    if opened is None:
        raise Http404(_("No such file in this curation."))
    return FileResponse(opened, as_attachment=True, filename=name)
