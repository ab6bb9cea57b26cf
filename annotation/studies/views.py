"""The admin's study pages: the list with the creation form, a study's progress page, adding
members and items, start and close.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from accounts.roles import is_admin, is_inspector, is_researcher
from annotation import access
from annotation.models import Item, Study, StudyMember
from annotation.outcomes.selectors import study_effort
from annotation.protocols import protocol_for_study
from annotation.studies import services, setup
from annotation.studies.forms import AddItemsForm, AddMembersForm, SelectionForm, StudyCreateForm
from annotation.studies.groups import GROUPS, study_set_rater_groups
from annotation.studies.selectors import STUCK_AFTER_DAYS, STUCK_AFTER_ROUNDS, study_progress
from medreview.errors import error_messages, flash_error_messages


def _admin_studies() -> QuerySet[Study]:
    return Study.objects.annotate(
        item_total=Count("items", distinct=True),
        items_resolved=Count("items", filter=Q(items__status=Item.Status.RESOLVED), distinct=True),
        items_inspection=Count("items", filter=Q(items__status=Item.Status.INSPECTION), distinct=True),
        items_returned=Count("items", filter=Q(items__status=Item.Status.RETURNED), distinct=True),
        rater_total=Count(
            "memberships", filter=Q(memberships__role=StudyMember.Role.RATER), distinct=True
        ),
    ).prefetch_related("tasks").order_by("-created_at")


@require_http_methods(["GET", "POST"])
def admin_dashboard(request: HttpRequest) -> HttpResponse:
    if not is_admin(request.user):
        raise PermissionDenied(_("Only admins run studies."))
    if request.method == "POST":
        return study_new(request)
    return render(request, "studies/admin_dashboard.html", {"studies": list(_admin_studies())})


@require_http_methods(["GET", "POST"])
def study_new(request: HttpRequest) -> HttpResponse:
    """The study wizard: items, tasks that fit them, people, groups, calibration, cost, guidelines."""
    if not is_admin(request.user):
        raise PermissionDenied(_("Only admins run studies."))
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = setup.study_set_up(spec=_set_up(form), actor=request.user)
        except ValidationError as exc:
            for message in error_messages(exc):
                form.add_error(None, message)
        else:
            messages.success(request, ngettext(
                "Study “%(name)s” created with %(count)d item.", "Study “%(name)s” created with %(count)d items.",
                study.selection["items_created"]) % {"name": study.name, "count": study.selection["items_created"]})
            return redirect("annotation:study_detail", pk=study.pk)
    status = 400 if request.method == "POST" else 200
    return render(request, "studies/study_new.html", {"form": form, **_preview(form)}, status=status)


def _preview(form: StudyCreateForm) -> dict:
    """The live item count beside the filters (no count before the first choice on an empty form)."""
    if form.is_bound:
        probe = SelectionForm(form.data)
        if probe.is_valid():
            return {"preview": setup.selection_preview(services.ItemSelection(**probe.selection_kwargs()))}
        return {"preview": {"count": 0, "error": probe.errors.as_text(), "tasks": []}}
    return {"preview": setup.selection_preview(services.ItemSelection(kind=form.fields["kind"].initial))}


@require_http_methods(["GET"])
def study_new_preview(request: HttpRequest) -> HttpResponse:
    """htmx: the item count for the filters as they stand, with the task and release lists that fit."""
    if not is_admin(request.user):
        raise PermissionDenied(_("Only admins run studies."))
    form = StudyCreateForm(request.GET)
    return render(request, "studies/_study_preview.html", {"form": form, **_preview(form)})


def _set_up(form: StudyCreateForm) -> setup.StudySetUp:
    data = form.cleaned_data
    groups = form.groups()
    # Someone put in a group rates the study: the group lists add to the raters chosen.
    raters = list(dict.fromkeys([*(data["raters"] or []), *groups]))
    percent = data.get("calibration_percent")
    return setup.StudySetUp(
        name=data["name"], task_slugs=[task.slug for task in data["tasks"]],
        selection=services.ItemSelection(**form.selection_kwargs()),
        raters=raters, inspectors=list(data["inspectors"] or []), groups=groups, start=bool(data["start"]),
        options={
            "raters_per_item": data["raters_per_item"], "inspect_all": data["inspect_all"],
            "inspect_disagreements": data["inspect_disagreements"], "inspect_share": data["inspect_share"] or 0.0,
            "guidelines": data["guidelines"], "deadline": data["deadline"],
            "required_specialties": list(data["required_specialties"]),
            "required_languages": list(data["required_languages"]), "seed": data["seed"],
            "lease_minutes": data["lease_minutes"], "show_prescreen": data["show_prescreen"],
            "min_inspector_rank": data["min_inspector_rank"] or "",
            "text_display": data["text_display"] or "auto",
            "translation_language": data["translation_language"] or "zh-Hans",
            "calibration_threshold": None if percent is None else percent / 100,
            **setup.cost_options(hourly_rate=data.get("hourly_rate"), currency=data["currency"]),
        },
    )


@require_http_methods(["GET"])
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_progress(request.user, pk)
    admin = is_admin(request.user)
    inspector = admin or is_inspector(request.user)
    progress = study_progress(study=study)
    return render(
        request,
        "studies/study_detail.html",
        {
            "study": study,
            "progress": progress,
            "is_admin": admin,
            # Researchers see raters only under their pseudonyms.
            "show_names": inspector,
            "can_inspect": inspector,
            "can_report": is_researcher(request.user),
            "stuck_days": STUCK_AFTER_DAYS,
            "stuck_rounds": STUCK_AFTER_ROUNDS,
            "members_form": AddMembersForm() if admin else None,
            "rater_groups": _rater_groups(study) if admin else [],
            "group_names": GROUPS,
            "items_form": AddItemsForm(prefix="items") if admin else None,
            # Effort and cost (docs/curation.md): time per rater, by pseudonym like the export.
            "effort": study_effort(study).as_dict(),
            # What the study's item protocol adds (LiveClin: the pinned Judge run, later runs offered).
            **protocol_for_study(study).study_context(study),
        },
    )


def _rater_groups(study: Study) -> list[StudyMember]:
    return list(StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user")
                .order_by("user__username"))


@require_http_methods(["POST"])
def study_add_members(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    form = AddMembersForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose at least one person and a role."))
        return redirect("annotation:study_detail", pk=study.pk)
    try:
        added = services.study_add_members(
            study=study, users=list(form.cleaned_data["users"]), role=form.cleaned_data["role"],
            actor=request.user,
        )
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, ngettext("%(count)d member added.", "%(count)d members added.", added) % {"count": added})
    return redirect("annotation:study_detail", pk=study.pk)


@require_http_methods(["POST"])
def study_add_items(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    form = AddItemsForm(request.POST, prefix="items")
    if not form.is_valid():
        messages.error(request, _("Items not added: %(errors)s") % {"errors": form.errors.as_text()})
        return redirect("annotation:study_detail", pk=study.pk)
    try:
        added = services.study_add_items(
            study=study, selection=services.ItemSelection(**form.selection_kwargs()), actor=request.user
        )
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, ngettext("%(count)d item added.", "%(count)d items added.", added) % {"count": added})
    return redirect("annotation:study_detail", pk=study.pk)


@require_http_methods(["POST"])
def study_groups(request: HttpRequest, pk: int) -> HttpResponse:
    """Expert groups A and B (ClinConsensus Sec. 3.4) for the study's raters, from the study page."""
    study = access.access_study_for_management(request.user, pk)
    members = StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER).select_related("user")
    groups = {m.user: request.POST.get(f"group-{m.user_id}", m.group) for m in members}
    try:
        changed = study_set_rater_groups(study=study, groups=groups, actor=request.user)
    except ValidationError as exc:
        flash_error_messages(request, exc)
    else:
        messages.success(request, ngettext("%(count)d rater's group changed.", "%(count)d raters' groups changed.",
                                           changed) % {"count": changed})
    return redirect(reverse("annotation:study_detail", kwargs={"pk": study.pk}) + "#groups")


@require_http_methods(["POST"])
def study_status(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    action = request.POST.get("action")
    try:
        if action == "start":
            services.study_start(study=study, actor=request.user)
        elif action == "close":
            services.study_close(study=study, actor=request.user)
        else:
            messages.error(request, _("Unknown action."))
    except ValidationError as exc:
        flash_error_messages(request, exc)
    return redirect(reverse("annotation:study_detail", kwargs={"pk": study.pk}))
