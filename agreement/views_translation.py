"""The translation-consistency report page of a study (LiveClin Appendix H; docs/i18n.md)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from agreement.access import access_study_for_report
from agreement.reports.translation import report_as_dict, translation_consistency_report


def study_translation_consistency(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    report = report_as_dict(translation_consistency_report(study))
    return render(request, "agreement/translation_consistency.html", {"study": study, "report": report})
