"""Researcher pages: the list of studies and releases, a report with filters and charts, exports."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from agreement import exports
from agreement.access import (
    access_item_ids_blinded_for_export,
    access_release_for_report,
    access_releases_for_report,
    access_studies_for_report,
    access_study_for_report,
)
from agreement.charts import available_charts, cached_chart
from agreement.forms import ReportFilterForm
from agreement.reports import Report, Table, cached_report
from agreement.reports.presentation import compact_cells, numbered
from agreement.reports.tables.translation import report_as_dict, translation_consistency_report
from agreement.reports.words import cell_name
from agreement.selectors import Selection, study_models
from annotation.models import Study
from annotation.outcomes.audit import HEAD_HEADER, chain_head, head_header
from annotation.outcomes.responses import wants_calibration
from cases.models import TranslatableField

#: What the export buttons say (the formats' own names; "tex" is LaTeX).
EXPORT_LABELS = {"csv": "CSV", "xlsx": "XLSX", "json": "JSON", "tex": "LaTeX"}


def display_table(table: Table, number: int = 0) -> dict[str, Any]:
    """A table as the page shows it: human headers, each value with its CI and p in one cell
    (`agreement.reports.presentation`), so nothing needs sideways scrolling at 1280 px. `number` is the
    one the PDF prints too."""
    heads, rows, shown = compact_cells(table.frame)
    return {"key": table.key, "title": table.title, "note": table.note, "columns": heads, "rows": rows,
            "wide": len(shown) > 9, "number": number}


@require_http_methods(["GET"])
def report_index(request: HttpRequest) -> HttpResponse:
    studies = access_studies_for_report(request.user).annotate(n_items=Count("items", distinct=True)).order_by("-created_at")
    releases = access_releases_for_report(request.user).order_by("dataset__name", "-imported_at")
    return render(request, "agreement/report_index.html", {"studies": studies, "releases": releases})


def _report_page(
    request: HttpRequest, *, name: str, scope: dict[str, int], form: ReportFilterForm, export_name: str,
    chart_name: str, labels_url: str, subject: Any,
) -> HttpResponse:
    query = request.GET.urlencode()
    export_links = [
        (fmt, EXPORT_LABELS.get(fmt, fmt.upper()), reverse(export_name, args=[subject.pk, fmt]) + (f"?{query}" if query else ""))
        for fmt in exports.FORMATS
    ]
    pdf_name = export_name.replace("_export", "_pdf")
    pdf_url = reverse(pdf_name, args=[subject.pk]) + (f"?{query}" if query else "")
    context: dict[str, Any] = {"name": name, "form": form, "subject": subject, "export_links": export_links,
                               "labels_url": labels_url, "pdf_url": pdf_url}
    if not form.is_valid():
        return render(request, "agreement/report.html", context, status=400)
    try:
        selection = form.selection(**scope)
    except ValueError as exc:
        form.add_error(None, str(exc))
        return render(request, "agreement/report.html", context, status=400)
    report = cached_report(selection)
    charts = [
        {"title": spec.title, "caption": spec.caption or spec.title, "alt": spec.alt, "number": number,
         "url": reverse(chart_name, args=[subject.pk, spec.key]) + (f"?{query}" if query else "")}
        for number, spec in numbered(available_charts(report))
    ]
    tables = [display_table(t, number) for number, t in numbered(report.tables)]
    context.update({"report": report, "tables": tables, "charts": charts})
    return render(request, "agreement/report.html", context)


@require_http_methods(["GET"])
def study_report(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    form = ReportFilterForm(request.GET, study=study, models=study_models(study.pk))
    return _report_page(
        request, name=study.name, scope={"study_id": study.pk}, form=form, subject=study,
        export_name="agreement:study_export", chart_name="agreement:study_chart",
        labels_url=reverse("agreement:study_labels", args=[study.pk]),
    )


@require_http_methods(["GET"])
def release_report(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    form = ReportFilterForm(request.GET)
    return _report_page(
        request, name=release.names, scope={"release_id": release.pk}, form=form, subject=release,
        export_name="agreement:release_export", chart_name="agreement:release_chart",
        labels_url=reverse("agreement:release_labels", args=[release.pk]),
    )


def _bad_request(message: str) -> HttpResponse:
    """400 as plain text: messages may quote what was submitted, and text/html would run it."""
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


def _invalid_filters(form: ReportFilterForm) -> HttpResponse:
    problems = "; ".join(f"{field}: {' '.join(errors)}" for field, errors in form.errors.items())
    return _bad_request(_("Invalid filters: %(problems)s") % {"problems": problems})


def _export(request: HttpRequest, form: ReportFilterForm, scope: dict[str, int], fmt: str) -> HttpResponse:
    if fmt not in exports.FORMATS:
        return _bad_request(_("Unknown format; choose from %(formats)s.") % {"formats": ", ".join(exports.FORMATS)})
    if not form.is_valid():
        return _invalid_filters(form)
    try:
        selection = form.selection(**scope)
    except ValueError as exc:
        return _bad_request(str(exc))
    report: Report = cached_report(selection)
    content_type, _ext = exports.FORMATS[fmt]
    response = HttpResponse(exports.render(report, fmt), content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{exports.filename(report, fmt)}"'
    return response


def _pdf(form: ReportFilterForm, scope: dict[str, int], title: str) -> HttpResponse:
    if not form.is_valid():
        return _invalid_filters(form)
    try:
        selection = form.selection(**scope)
    except ValueError as exc:
        return _bad_request(str(exc))
    pdf, name = exports.selection_pdf(selection, title=title)
    response = HttpResponse(pdf, content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_http_methods(["GET"])
def study_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    """The whole report as a PDF, laid out on the server (reportlab; no browser)."""
    study = access_study_for_report(request.user, pk)
    return _pdf(ReportFilterForm(request.GET, study=study, models=study_models(study.pk)), {"study_id": study.pk},
                f"Agreement report: {study.name}")


@require_http_methods(["GET"])
def release_pdf(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    return _pdf(ReportFilterForm(request.GET), {"release_id": release.pk}, f"Agreement report: {release}")


@require_http_methods(["GET"])
def study_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    return _export(request, ReportFilterForm(request.GET, study=study, models=study_models(study.pk)),
                   {"study_id": study.pk}, fmt)


@require_http_methods(["GET"])
def release_export(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    return _export(request, ReportFilterForm(request.GET), {"release_id": release.pk}, fmt)


def _chart(form: ReportFilterForm, scope: dict[str, int], key: str) -> HttpResponse:
    if not form.is_valid():
        return _invalid_filters(form)
    try:
        selection = form.selection(**scope)
    except ValueError as exc:
        return _bad_request(str(exc))
    chart = cached_chart(selection, key)
    if chart is None:
        raise Http404(_("No such chart for this report."))
    response = HttpResponse(chart.png, content_type="image/png")
    response["Cache-Control"] = "private, max-age=300"
    return response


@require_http_methods(["GET"])
def study_chart(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    return _chart(ReportFilterForm(request.GET, study=study, models=study_models(study.pk)),
                  {"study_id": study.pk}, key)


@require_http_methods(["GET"])
def release_chart(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    return _chart(ReportFilterForm(request.GET), {"release_id": release.pk}, key)


def _studies_of(selection: Selection) -> QuerySet[Study]:
    if selection.study_id is not None:
        return Study.objects.filter(pk=selection.study_id)
    return Study.objects.filter(items__revision__release_id=selection.release_id).distinct().order_by("pk")


def _labels_response(request: HttpRequest, selection: Selection, name: str) -> StreamingHttpResponse:
    # Items the reader still rates while open stay out (issue 22: an admin may rate too);
    # ?calibration=1: calibration items' ratings too, marked calibration=True (left out by default).
    calibration = wants_calibration(request.GET)
    lines = exports.raw_labels_lines(selection, hidden_items=access_item_ids_blinded_for_export(request.user),
                                     calibration=calibration)
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response[HEAD_HEADER] = head_header([chain_head(s) for s in _studies_of(selection)])
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@require_http_methods(["GET"])
def study_labels(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    study = access_study_for_report(request.user, pk)
    return _labels_response(request, Selection(study_id=study.pk), f"labels-study{study.pk}.csv")


@require_http_methods(["GET"])
def release_labels(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    release = access_release_for_report(request.user, pk)
    return _labels_response(request, Selection(release_id=release.pk), f"labels-release{release.pk}.csv")


# The translation-consistency report page of a study (LiveClin Appendix H; docs/i18n.md).
def study_translation_consistency(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    report = report_as_dict(translation_consistency_report(study))
    # What the page shows beside the data the API returns: field types and reasons in the reader's language.
    for field_type, row in report["per_field_type"].items():
        row["label"] = TranslatableField(field_type).label if field_type in TranslatableField.values else field_type
    if report["ac1"] and report["ac1"]["reason"]:
        report["ac1"]["reason_shown"] = cell_name(report["ac1"]["reason"])
    return render(request, "agreement/translation_consistency.html", {"study": study, "report": report})
