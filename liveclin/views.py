"""LiveClin quality-check pages: a release's question sets with their pre-screen result, physician
verdicts and outcome; the funnel and the Judge-vs-physician table; the validated export; a study's
team composition. Researchers and admins (`agreement.access`)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from agreement.access import access_release_for_report, access_study_for_report
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.rules import quality_report
from liveclin.quality.team import team_composition


@require_http_methods(["GET"])
def release_quality(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    review = release_review(release)
    report = quality_report(review.sets)
    status = request.GET.get("outcome", "")
    rows = [r for r in report["sets"] if not status or r["outcome"] == status]
    return render(request, "liveclin/quality_check.html", {
        "release": release, "run": review.run, "report": report, "rows": rows, "outcome": status,
    })


@require_http_methods(["GET"])
def release_validated_export(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    export = validated_export(release_review(release))
    response = HttpResponse(export.data, content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export.file_name}"'
    response["X-Question-Sets"] = str(export.sets)
    return response


@require_http_methods(["GET"])
def study_team(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    return render(request, "liveclin/team.html", {"study": study, "phases": [p.as_dict() for p in team_composition(study)]})
