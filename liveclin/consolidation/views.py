"""Consolidation pages: the list, one version's mapping with each label's rule and the review forms,
a review, revising (a new version) and approving, and the distribution report."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.models import Role
from accounts.roles import user_role
from cases.models import Release
from liveclin.consolidation import access, results, selectors
from liveclin.consolidation.services import consolidation_approve, consolidation_review, consolidation_revise
from liveclin.models import Consolidation, ConsolidationCategory
from medreview.errors import flash_error_messages


@require_http_methods(["GET"])
def consolidation_list(request: HttpRequest) -> HttpResponse:
    found = access.access_consolidations_for_listing(request.user)
    return render(request, "consolidation/list.html", {"consolidations": found})


@require_http_methods(["GET"])
def consolidation_detail(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_consolidation_for_reading(request.user, pk)
    view = selectors.mapping(found, selectors.label_counts(found))
    reviewable = found.status == Consolidation.Status.REVIEW and user_role(request.user) != Role.RESEARCHER
    return render(request, "consolidation/detail.html", {"consolidation": found, "view": view, "reviewable": reviewable,
                                                         "chosen": selectors.chosen_version(found.key)})


@require_http_methods(["POST"])
def consolidation_review_label(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_consolidation_for_review(request.user, pk)
    raw = request.POST.get("category", "")
    category = ConsolidationCategory.objects.filter(consolidation=found, pk=int(raw)).first() if raw.isdigit() else None
    try:
        consolidation_review(consolidation=found, label=request.POST.get("label", ""), reviewer=request.user,
                             action=request.POST.get("action", ""), category=category,
                             reason=request.POST.get("reason", ""))
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, _("Review stored."))
    return redirect("consolidation:detail", pk=found.pk)


@require_http_methods(["POST"])
def consolidation_revise_view(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_consolidation_for_management(request.user, pk)
    new = consolidation_revise(base=found, actor=request.user, note=request.POST.get("note", ""))
    messages.success(request, _("Version %(version)d created with the reviewers' moves.") % {"version": new.version})
    return redirect("consolidation:detail", pk=new.pk)


@require_http_methods(["POST"])
def consolidation_approve_view(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_consolidation_for_management(request.user, pk)
    try:
        consolidation_approve(consolidation=found, actor=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, _("Version %(version)d approved: reports now use it.") % {"version": found.version})
    return redirect("consolidation:detail", pk=found.pk)


@require_http_methods(["GET"])
def consolidation_report(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.access_consolidation_for_reading(request.user, pk)
    raw = request.GET.get("release", "")
    release = Release.objects.filter(pk=int(raw)).first() if raw.isdigit() else None
    return render(request, "consolidation/report.html", {
        "consolidation": found, "report": selectors.distribution(found, release), "release": release,
        "tables": [results.category_results(found, release), results.chapter_results(release)]})
