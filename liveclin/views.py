"""LiveClin quality-check pages: a release's question sets with their pre-screen result, physician
verdicts and outcome; the funnel and the Judge-vs-physician table; the validated export and its
manifest; a study's team composition (researchers and admins, `agreement.access`); an admin pinning
another Judge run for a study (`annotation.access`, like managing the study)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from agreement.access import access_release_for_report, access_study_for_report
from annotation.access import access_study_for_management
from graders.models import GraderRun
from liveclin.judge_runs import study_judge_run_pin
from liveclin.quality.export import validated_export
from liveclin.quality.loading import release_review
from liveclin.quality.pipelines import chosen_releases, pipeline_table
from liveclin.quality.rules import outcome, quality_report
from liveclin.quality.team import team_composition
from liveclin.quality.words import check_name, shown_row
from medreview.errors import flash_error_messages


def asked_run(request: HttpRequest) -> int | None:
    """`?run=<id>`: read the report with another Judge run than the one the studies pinned."""
    value = request.GET.get("run", "")
    return int(value) if value.isdigit() else None


@require_http_methods(["GET"])
def release_quality(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    review = release_review(release, run_id=asked_run(request))
    report = quality_report(review.sets)
    status = request.GET.get("outcome", "")
    rows = [shown_row(row, s, outcome(s)) for row, s in zip(report["sets"], review.sets, strict=True)
            if not status or row["outcome"] == status]
    return render(request, "liveclin/quality_check.html", {
        "release": release, "run": review.run, "report_run": review.report_run, "report": report, "rows": rows,
        "check_names": {row["check"]: check_name(row["check"]) for row in report["judge_vs_physicians"]},
        "outcome": status,
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
def release_validated_manifest(request: HttpRequest, pk: int) -> HttpResponse:
    release = access_release_for_report(request.user, pk)
    export = validated_export(release_review(release))
    body = json.dumps(export.manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{export.file_name}.manifest.json"'
    return response


@require_http_methods(["GET"])
def study_team(request: HttpRequest, pk: int) -> HttpResponse:
    study = access_study_for_report(request.user, pk)
    return render(request, "liveclin/team.html", {"study": study, "phases": [p.as_dict() for p in team_composition(study)]})


@require_http_methods(["POST"])
def study_judge_run(request: HttpRequest, pk: int) -> HttpResponse:
    """Pin a later Judge run (the study page offers it); decisions it puts in doubt go back to inspection."""
    study = access_study_for_management(request.user, pk)
    raw = request.POST.get("run", "")
    run = GraderRun.objects.filter(pk=int(raw)).first() if raw.isdigit() else None
    try:
        if run is None:
            raise ValidationError({"run": _("run: choose a Judge run.")})
        requeued = study_judge_run_pin(study=study, run=run, actor=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, ngettext(
            "Judge run “%(name)s” pinned; %(count)d question set decided before its flags goes back to inspection.",
            "Judge run “%(name)s” pinned; %(count)d question sets decided before its flags go back to inspection.",
            len(requeued)) % {"name": run.name, "count": len(requeued)})
    return redirect("annotation:study_detail", pk=study.pk)


@require_http_methods(["GET"])
def pipeline_comparison(request: HttpRequest) -> HttpResponse:
    """LiveClin Table 1: `?release=` names each pipeline's release (two or more, one dataset)."""
    try:
        releases = chosen_releases(request.GET.getlist("release"), lambda pk: access_release_for_report(request.user, pk))
    except ValueError as exc:
        return render(request, "liveclin/pipelines.html", {"error": str(exc)}, status=400)
    return render(request, "liveclin/pipelines.html", {"releases": releases, "table": pipeline_table(releases)})
