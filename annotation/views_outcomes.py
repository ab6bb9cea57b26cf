"""Pages after review: an item's history, label and audit-trail exports, curations.

Same pattern as `annotation.views`: access function, then selector or service, then template.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.roles import AnyUser
from annotation import access, label_exports
from annotation.audit_export import event_records, events_csv, events_jsonl
from annotation.curation.forms import CurationForm
from annotation.curation.service import curation_create, curation_files
from annotation.models import Curation, ReviewEvent, Study, seal_audit_chain
from annotation.outcomes import field_outcomes, study_effort
from annotation.services.audit import study_record_export
from annotation.services.effort import study_set_hourly_rate
from cases.access import access_release_for_browsing
from cases.exporters import CurationRules


def history_url(item_id: int) -> str:
    return reverse("annotation:item_history", args=[item_id])


def item_history(request: HttpRequest, pk: int) -> HttpResponse:
    """Every field's final decision, every rating of every round, and the item's events in chain order."""
    item = access.access_item_for_history(request.user, pk)
    seal_audit_chain(item.study_id)
    outcomes = field_outcomes([item.study], item_ids=[item.pk])
    events = ReviewEvent.objects.filter(item=item).select_related("actor").order_by("seq")
    return render(request, "annotation/item_history.html", {
        "item": item, "study": item.study, "outcomes": outcomes, "events": events,
        "can_inspect": True,
    })


def check_label_format(fmt: str) -> None:
    if fmt not in label_exports.FORMATS:
        raise Http404("Unknown format.")


def labels_response(studies: list[Study], fmt: str, name: str) -> HttpResponse:
    check_label_format(fmt)
    content_type, extension = label_exports.FORMATS[fmt]
    rows = label_exports.label_rows(field_outcomes(studies))
    response: HttpResponse
    if fmt == "xlsx":
        response = HttpResponse(label_exports.labels_xlsx(rows, [study_effort(s) for s in studies]),
                                content_type=content_type)
    else:
        lines: Iterator[str] = label_exports.labels_csv(rows) if fmt == "csv" else label_exports.labels_jsonl(rows)
        response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{name}.{extension}"'
    return response


def study_labels_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    study = access.access_study_for_export(request.user, pk)
    check_label_format(fmt)
    study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, via="page")
    return labels_response([study], fmt, f"study-{study.pk}-labels")


def release_labels_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    release = access_release_for_browsing(request.user, pk)
    check_label_format(fmt)
    studies = list(Study.objects.filter(items__revision__release=release).distinct().order_by("pk"))
    for study in studies:
        study_record_export(study=study, actor=request.user, what="labels", fmt=fmt, release=release.pk, via="page")
    return labels_response(studies, fmt, f"release-{release.pk}-labels")


def events_response(user: AnyUser, study_pk: int, fmt: str, *, real_names: bool, via: str) -> HttpResponse:
    """The audit trail; real names only for admins who ask (403 for anyone else asking)."""
    study = access.access_study_for_export(user, study_pk)
    if fmt not in ("jsonl", "csv"):
        raise Http404("Unknown format.")
    if real_names:
        access.check_can_see_real_names(user)
    study_record_export(study=study, actor=user, what="events", fmt=fmt, real_names=real_names, via=via)
    records = event_records(study, real_names=real_names)
    lines = events_jsonl(records) if fmt == "jsonl" else events_csv(records, real_names=real_names)
    content_type = "application/x-ndjson; charset=utf-8" if fmt == "jsonl" else "text/csv; charset=utf-8"
    response = StreamingHttpResponse(lines, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="study-{study.pk}-events.{fmt}"'
    return response


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
    return render(request, "annotation/curation_list.html", {
        "curations": curations.select_related("release__dataset", "created_by"), "form": form})


def curation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    curation = access.access_curation_for_management(request.user, pk)
    manifest = curation.manifest
    return render(request, "annotation/curation_detail.html", {
        "curation": curation, "manifest": manifest, "files": sorted(curation.files.items()),
        "on_disk": curation_files(curation), "items": manifest.get("items", []),
        "studies": curation.studies.order_by("pk"),
    })


def curation_file(request: HttpRequest, pk: int, name: str) -> FileResponse:
    curation: Curation = access.access_curation_for_management(request.user, pk)
    path = curation_files(curation).get(name)
    if path is None:
        raise Http404("No such file in this curation.")
    return FileResponse(path.open("rb"), as_attachment=True, filename=name)
