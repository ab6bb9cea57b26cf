"""Review pages: physician queue and rating screen, inspection, dashboards.

Every view fetches protected rows through `annotation.access` and writes through
`annotation.services`; reads shared with the API live in `annotation.selectors`.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods

from accounts.roles import is_admin, is_inspector, is_rater
from annotation import access, liveclin, selectors, services, views_liveclin, views_review
from annotation.forms import AddItemsForm, AddMembersForm, SkipForm, StudyCreateForm, split_list
from annotation.models import Assignment, Item, ItemKind, Study, StudyMember, TaskType
from annotation.outcomes import study_effort
from annotation.services.editing import assignment_save_edit_draft
from annotation.text_display import text_view_for
from medreview.errors import ConflictError

# Assignment states in which the rater may still change their labels (a lapsed claim is revived by
# the services when its slot is still free, otherwise they say so).
EDITABLE_STATES = {
    Assignment.State.CLAIMED, Assignment.State.DRAFT, Assignment.State.RETURNED, Assignment.State.EXPIRED,
}
MAX_SECONDS = 24 * 3600


def _errors(exc: ValidationError) -> list[str]:
    return [str(message) for message in exc.messages]


def _field_errors(exc: ValidationError) -> dict[str, str]:
    """Service errors keyed by Field.id, so the form can mark the field they are about."""
    if not hasattr(exc, "error_dict"):
        return {}
    return {key: " ".join(str(m) for m in messages_) for key, messages_ in exc.message_dict.items()}


def _seconds(request: HttpRequest) -> int:
    """Client-measured visible time; clamp nonsense rather than trust it."""
    try:
        value = int(float(request.POST.get("seconds_spent", "0")))
    except ValueError:
        return 0
    return max(0, min(value, MAX_SECONDS))


def _posted_labels(request: HttpRequest, fields: list[selectors.Field]) -> dict[str, dict[str, str]]:
    """The rating form as the services' {field id: {label, comment}} mapping.

    Every field is sent, empty ones too: a draft must be able to clear a label, and a submit with a
    missing label gets the services' error naming that field.
    """
    return {
        field.id: {
            "label": request.POST.get(field.id, "").strip(),
            "comment": request.POST.get(f"comment:{field.id}", "").strip(),
        }
        for field in fields
    }


@dataclass
class FieldRow:
    """One field of the rating form with its current value."""

    field: selectors.Field
    label: str
    comment: str
    index: int
    error: str = ""

    @property
    def id(self) -> str:
        return self.field.id


@dataclass
class TaskGroup:
    task: TaskType
    rows: list[FieldRow]


def _groups(
    fields: list[selectors.Field], values: dict[str, dict[str, str]], errors: dict[str, str]
) -> list[TaskGroup]:
    groups: list[TaskGroup] = []
    for index, field in enumerate(fields):
        value = values.get(field.id) or {}
        row = FieldRow(
            field=field, label=value.get("label", ""), comment=value.get("comment", ""), index=index,
            error=errors.get(field.id, ""),
        )
        if not groups or groups[-1].task.pk != field.task.pk:
            groups.append(TaskGroup(task=field.task, rows=[]))
        groups[-1].rows.append(row)
    return groups


def _item_content(item: Item, assignment: Assignment | None, fields: list[selectors.Field]) -> dict[str, Any]:
    """What the rater reads above the form (`selectors.item_content_for_rater`), as template variables."""
    content = selectors.item_content_for_rater(item, fields, pair_order=assignment.pair_order if assignment else "ab")
    return {
        "revision": content.revision,
        "show_advice": content.show_advice,
        "show_privileged": content.show_privileged,
        "response": content.response,
        "pair": content.pair,
        "question_set": content.question_set,
    }


def _rating_context(
    request: HttpRequest,
    assignment: Assignment,
    *,
    values: dict[str, dict[str, str]] | None = None,
    errors: list[str] | None = None,
    field_errors: dict[str, str] | None = None,
    phase: str = "",
) -> dict[str, Any]:
    item = assignment.item
    study = item.study
    all_fields = selectors.item_fields(item)
    # A submitted item stays editable until its inspection starts (issue 11, `views_review`).
    editing = views_review.is_editing(assignment)
    editable = assignment.state in EDITABLE_STATES or editing
    if values is None:
        values = dict(assignment.draft or {}) if editable and not editing else selectors.own_latest_labels(assignment)
        if editing:
            values.update(assignment.draft or {})  # an edit in progress, kept across reloads
    # LiveClin: one phase of a two-phase question-set review on screen (annotation/views_liveclin.py).
    phase, fields = views_liveclin.shown_fields(
        item, all_fields, {**(assignment.draft or {}), **values}, phase, strict=request.method == "GET"
    )
    queue = selectors.rater_queue(rater=request.user, study=study)
    return_comment = ""
    if assignment.state == Assignment.State.RETURNED:
        last_return = assignment.returns.order_by("-created_at").first()
        return_comment = last_return.comment if last_return else ""
    return {
        "assignment": assignment,
        "item": item,
        "study": study,
        "groups": _groups(fields, values, field_errors or {}),
        "field_count": len(fields),
        "editable": editable,
        "errors": errors or [],
        "queue": queue,
        "progress": _study_progress_for_rater(queue, study),
        "return_comment": return_comment,
        "draft_saved_at": assignment.draft_saved_at,
        "skip_form": SkipForm(),
        **_item_content(item, assignment, fields),
        **views_liveclin.page_context(study, item, all_fields, phase),
        **views_review.page_context(request, assignment, fields, field_errors or {}, editable=editable),
        "text_view": text_view_for(item, request.user),
    }


def _study_progress_for_rater(queue: selectors.RaterQueue, study: Study) -> dict[str, int]:
    """n of m: items this rater has submitted in the study, of the study's items."""
    return {"done": len(queue.done), "total": study.items.count()}


# ---------------------------------------------------------------- physician


def _rater_studies(user: Any) -> QuerySet[Study]:
    """Studies the user rates in, with how many items each has and how many this rater finished."""
    return (
        access.access_studies_for_listing(user)
        .filter(memberships__user=user, memberships__role=StudyMember.Role.RATER)
        .annotate(
            item_total=Count("items", distinct=True),
            my_done=Count(
                "items__assignments",
                filter=Q(items__assignments__rater=user, items__assignments__state__in=Assignment.FINISHED_STATES),
                distinct=True,
            ),
        )
        .order_by("-created_at")
    )


@require_http_methods(["GET"])
def physician_dashboard(request: HttpRequest) -> HttpResponse:
    if not is_rater(request.user):
        raise PermissionDenied("Only physicians rate items.")
    queue = selectors.rater_queue(rater=request.user)
    return render(
        request,
        "annotation/physician_dashboard.html",
        {"studies": list(_rater_studies(request.user)), "queue": queue,
         **views_review.dashboard_context(request)},
    )


@require_http_methods(["POST"])
def next_item(request: HttpRequest, study_pk: int) -> HttpResponse:
    study = access.access_study_for_rating(request.user, study_pk)
    try:
        assignment = services.assignment_claim_next(study=study, rater=request.user)
    except ValidationError as exc:
        for message in _errors(exc):
            messages.error(request, message)
        return redirect("annotation:physician_dashboard")
    if assignment is None:
        return render(request, "annotation/nothing_left.html", {"study": study})
    return redirect("annotation:rate", pk=assignment.pk)


@require_http_methods(["GET", "POST"])
def rate(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    phase = views_liveclin.requested_phase(request)
    if request.method == "GET":
        try:
            return render(request, "annotation/rate.html", _rating_context(request, assignment, phase=phase))
        except ConflictError as exc:  # phase 2 asked for before phase 1 is complete
            messages.info(request, " ".join(exc.messages))
            return redirect("annotation:rate", pk=assignment.pk)
    all_fields = selectors.item_fields(assignment.item)
    fields = liveclin.phase_fields(all_fields, phase) if phase else all_fields
    labels = _posted_labels(request, fields)
    try:
        if phase and views_liveclin.has_next_phase(assignment.item, all_fields, phase):
            return views_liveclin.continue_from_auditor(request, assignment, fields, labels, _seconds(request))
        # Saves the labels as the draft first, so a failed submit loses nothing (issue 11).
        views_review.save_then_submit(
            request, assignment, views_liveclin.submission(assignment, all_fields, labels) if phase else labels,
            _seconds(request),
        )
    except ValidationError as exc:
        field_errors = _field_errors(exc)
        field_ids = {field.id for field in fields}
        marked = [key for key in field_errors if key in field_ids]
        errors = [message for key, message in field_errors.items() if key not in field_ids]
        if marked:
            errors.insert(0, ngettext("%(count)d field needs attention; it is marked below.", "%(count)d fields need attention; they are marked below.", len(marked)) % {"count": len(marked)})
        context = _rating_context(
            request, assignment, values=labels, errors=errors or _errors(exc), field_errors=field_errors, phase=phase
        )
        return render(request, "annotation/rate.html", context, status=400)
    messages.success(request, _("Submitted. Thank you."))
    if assignment.item.status == Item.Status.CALIBRATION:
        return redirect("annotation:calibration_feedback", pk=assignment.pk)  # the expected answer, then on
    if views_review.back_to_queue(request):
        return redirect("annotation:physician_dashboard")
    following = services.assignment_claim_next(study=assignment.item.study, rater=request.user)
    if following is None:
        return render(request, "annotation/nothing_left.html", {"study": assignment.item.study})
    return redirect("annotation:rate", pk=following.pk)


@require_http_methods(["POST"])
def save_draft(request: HttpRequest, pk: int) -> JsonResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    fields = selectors.item_fields(assignment.item)
    phase = views_liveclin.requested_phase(request)
    # A LiveClin phase's form holds only its own fields: the other phase's labels stay as saved.
    draft = _posted_labels(request, liveclin.phase_fields(fields, phase) if phase else fields)
    try:
        if views_review.is_editing(assignment):
            # Editing a submitted item: kept as an edit in progress; the ratings change on "Save changes".
            kept = assignment_save_edit_draft(assignment=assignment, rater=request.user, draft=draft)
            return JsonResponse({"ok": True, "saved_at": (kept.draft_saved_at or timezone.now()).isoformat(),
                                 "state": kept.state, "notice": "Change kept; press “Save changes” to apply it."})
        saved = services.assignment_save_draft(
            assignment=assignment, rater=request.user, draft=draft, seconds_spent=_seconds(request)
        )
    except ValidationError as exc:
        return JsonResponse({"ok": False, "errors": _errors(exc)}, status=400)
    saved_at: datetime = saved.draft_saved_at or timezone.now()
    body: dict[str, Any] = {"ok": True, "saved_at": saved_at.isoformat(), "state": saved.state}
    if saved.state == Assignment.State.EXPIRED:
        body["notice"] = "Saved, but your claim lapsed and another rater took this item; your labels are kept."
    return JsonResponse(body)


@require_http_methods(["POST"])
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    form = SkipForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Give a reason for skipping this item."))
        return redirect("annotation:rate", pk=assignment.pk)
    try:
        services.assignment_skip(assignment=assignment, rater=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as exc:
        for message in _errors(exc):
            messages.error(request, message)
        return redirect("annotation:rate", pk=assignment.pk)
    messages.success(request, _("Item skipped."))
    return redirect("annotation:physician_dashboard")


# ---------------------------------------------------------------- inspection


# The inspector's queue and inspection page views are in `annotation.views_triage` (issue 11).


def _inspection_action(request: HttpRequest, item: Item) -> list[str]:
    action = request.POST.get("action", "")
    comment = request.POST.get("comment", "").strip()
    try:
        if action == "accept":
            services.inspection_accept(item=item, inspector=request.user, comment=comment)
            messages.success(request, _("Accepted: the raters' labels stand as final labels."))
        elif action == "adjudicate":
            fields = selectors.item_fields(item)
            labels = {f.id: request.POST.get(f"final:{f.id}", "").strip() for f in fields}
            labels = {key: value for key, value in labels.items() if value}
            reason = request.POST.get("reason", "").strip()
            services.inspection_adjudicate(item=item, inspector=request.user, labels=labels, reason=reason)
            messages.success(request, _("Final labels set."))
        elif action == "return":
            raw_pk = request.POST.get("assignment", "")
            target = item.assignments.filter(pk=int(raw_pk)).first() if raw_pk.isdigit() else None
            if target is None:
                return ["Choose the annotator to return the item to."]
            services.inspection_return(item=item, inspector=request.user, assignment=target, comment=comment,
                                       fields=request.POST.getlist("fields"))
            messages.success(request, _("Returned to the annotator for revision."))
        else:
            return ["Unknown action."]
    except ValidationError as exc:
        return _errors(exc)
    return []


@dataclass
class InspectionCell:
    cell: selectors.Cell
    label: str
    first_label: str


@dataclass
class InspectionRow:
    comparison: selectors.FieldComparison
    cells: list[InspectionCell]
    proposed: str  # preselected final label: the existing final label, else the agreed one


def _category_label(field: selectors.Field, value: str | None) -> str:
    if not value:
        return ""
    category = field.category(value)
    return category.label if category is not None else value


def _inspection_rows(view: selectors.InspectionView) -> list[InspectionRow]:
    rows = []
    for comparison in view.fields:
        field = comparison.field
        cells = [
            InspectionCell(
                cell=cell,
                label=_category_label(field, cell.label),
                first_label=_category_label(field, cell.first.label if cell.first else None),
            )
            for cell in comparison.cells
        ]
        latest = {cell.label for cell in comparison.cells if cell.label}
        proposed = comparison.final.label if comparison.final else (latest.pop() if len(latest) == 1 else "")
        rows.append(InspectionRow(comparison=comparison, cells=cells, proposed=proposed))
    return rows


def _inspection_context(item: Item, errors: list[str]) -> dict[str, Any]:
    view = selectors.inspection_view(item=item)
    fields = [comparison.field for comparison in view.fields]
    returnable = [a for a in view.assignments if a.state in Assignment.FINISHED_STATES]
    return {
        "item": item,
        "study": item.study,
        "view": view,
        "rows": _inspection_rows(view),
        "returnable": returnable,
        "can_act": item.status == Item.Status.INSPECTION,
        # LiveClin: any MCQ check answered "no" flags the question set (docs/review.md).
        "flagged": item.kind == ItemKind.QUESTION_SET and selectors.question_set_flagged(item),
        "errors": errors,
        **_item_content(item, None, fields),
        **views_liveclin.inspection_context(item),
    }


# ---------------------------------------------------------------- admin


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
        raise PermissionDenied("Only admins run studies.")
    form = StudyCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            study = _create_study(request, form)
        except ValidationError as exc:
            for message in _errors(exc):
                form.add_error(None, message)
        else:
            messages.success(request, _("Study “%(name)s” created with %(count)d items.") % {"name": study.name, "count": study.items.count()})
            return redirect("annotation:study_detail", pk=study.pk)
    status = 400 if request.method == "POST" else 200
    return render(
        request, "annotation/admin_dashboard.html", {"studies": list(_admin_studies()), "form": form},
        status=status,
    )


def _create_study(request: HttpRequest, form: StudyCreateForm) -> Study:
    data = form.cleaned_data
    study = services.study_create(
        name=data["name"],
        created_by=request.user,
        task_slugs=[task.slug for task in data["tasks"]],
        selection=services.ItemSelection(**form.selection_kwargs()),
        raters_per_item=data["raters_per_item"],
        inspect_all=data["inspect_all"],
        inspect_disagreements=data["inspect_disagreements"],
        inspect_share=data["inspect_share"] or 0.0,
        guidelines=data["guidelines"],
        deadline=data["deadline"],
        required_specialties=split_list(data["required_specialties"]),
        required_languages=split_list(data["required_languages"]),
        seed=data["seed"],
        lease_minutes=data["lease_minutes"],
        show_prescreen=data["show_prescreen"],
        min_inspector_rank=data["min_inspector_rank"] or "",
        text_display=data["text_display"] or "auto",
        translation_language=data["translation_language"] or "zh-Hans",
    )
    if data["raters"]:
        services.study_add_members(
            study=study, users=list(data["raters"]), role=StudyMember.Role.RATER, actor=request.user
        )
    if data["inspectors"]:
        services.study_add_members(
            study=study, users=list(data["inspectors"]), role=StudyMember.Role.INSPECTOR, actor=request.user
        )
    if data["start"]:
        services.study_start(study=study, actor=request.user)
    return study


@require_http_methods(["GET"])
def study_detail(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_progress(request.user, pk)
    admin = is_admin(request.user)
    inspector = admin or is_inspector(request.user)
    progress = selectors.study_progress(study=study)
    return render(
        request,
        "annotation/study_detail.html",
        {
            "study": study,
            "progress": progress,
            "is_admin": admin,
            # Researchers see raters only under their pseudonyms.
            "show_names": inspector,
            "can_inspect": inspector,
            "stuck_days": selectors.STUCK_AFTER_DAYS,
            "stuck_rounds": selectors.STUCK_AFTER_ROUNDS,
            "members_form": AddMembersForm() if admin else None,
            "items_form": AddItemsForm(prefix="items") if admin else None,
            # Effort and cost (docs/curation.md): time per rater, by pseudonym like the export.
            "effort": study_effort(study).as_dict(),
        },
    )


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
        for message in _errors(exc):
            messages.error(request, message)
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
        for message in _errors(exc):
            messages.error(request, message)
    else:
        messages.success(request, ngettext("%(count)d item added.", "%(count)d items added.", added) % {"count": added})
    return redirect("annotation:study_detail", pk=study.pk)


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
        for message in _errors(exc):
            messages.error(request, message)
    return redirect(reverse("annotation:study_detail", kwargs={"pk": study.pk}))
