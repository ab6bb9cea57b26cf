"""The translation-consistency report page of a study (LiveClin Appendix H; docs/i18n.md)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from agreement.access import access_study_for_report
from agreement.reports.translation import report_as_dict, translation_consistency_report
from agreement.reports.words import cell_name
from cases.models import TranslatableField


def study_translation_consistency(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    report = report_as_dict(translation_consistency_report(study))
    # What the page shows beside the data the API returns: field types and reasons in the reader's language.
    for field_type, row in report["per_field_type"].items():
        row["label"] = TranslatableField(field_type).label if field_type in TranslatableField.values else field_type
    if report["ac1"] and report["ac1"]["reason"]:
        report["ac1"]["reason_shown"] = cell_name(report["ac1"]["reason"])
    return render(request, "agreement/translation_consistency.html", {"study": study, "report": report})
