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
from django.views.decorators.http import require_http_methods

from accounts.roles import is_admin, is_inspector, is_rater
from annotation import access, selectors, services
from annotation.forms import AddItemsForm, AddMembersForm, SkipForm, StudyCreateForm, split_list
from annotation.models import Assignment, Item, ItemKind, Study, StudyMember, TaskType

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
) -> dict[str, Any]:
    item = assignment.item
    study = item.study
    fields = selectors.item_fields(item)
    editable = assignment.state in EDITABLE_STATES
    if values is None:
        values = dict(assignment.draft or {}) if editable else selectors.own_latest_labels(assignment)
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
        {"studies": list(_rater_studies(request.user)), "queue": queue},
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
    if request.method == "GET":
        return render(request, "annotation/rate.html", _rating_context(request, assignment))
    fields = selectors.item_fields(assignment.item)
    labels = _posted_labels(request, fields)
    try:
        services.rating_submit(
            assignment=assignment, rater=request.user, labels=labels, seconds_spent=_seconds(request)
        )
    except ValidationError as exc:
        field_errors = _field_errors(exc)
        field_ids = {field.id for field in fields}
        marked = [key for key in field_errors if key in field_ids]
        errors = [message for key, message in field_errors.items() if key not in field_ids]
        if marked:
            errors.insert(0, f"{len(marked)} field(s) need attention; they are marked below.")
        context = _rating_context(
            request, assignment, values=labels, errors=errors or _errors(exc), field_errors=field_errors
        )
        return render(request, "annotation/rate.html", context, status=400)
    messages.success(request, "Submitted. Thank you.")
    if request.POST.get("then") == "dashboard":
        return redirect("annotation:physician_dashboard")
    following = services.assignment_claim_next(study=assignment.item.study, rater=request.user)
    if following is None:
        return render(request, "annotation/nothing_left.html", {"study": assignment.item.study})
    return redirect("annotation:rate", pk=following.pk)


@require_http_methods(["POST"])
def save_draft(request: HttpRequest, pk: int) -> JsonResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    fields = selectors.item_fields(assignment.item)
    draft = _posted_labels(request, fields)
    try:
        saved = services.assignment_save_draft(
            assignment=assignment, rater=request.user, draft=draft, seconds_spent=_seconds(request)
        )
    except ValidationError as exc:
        return JsonResponse({"ok": False, "errors": _errors(exc)}, status=400)
    saved_at: datetime = saved.draft_saved_at or timezone.now()
    return JsonResponse({"ok": True, "saved_at": saved_at.isoformat(), "state": saved.state})


@require_http_methods(["POST"])
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = access.access_assignment_for_rating(request.user, pk)
    form = SkipForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Give a reason for skipping this item.")
        return redirect("annotation:rate", pk=assignment.pk)
    try:
        services.assignment_skip(assignment=assignment, rater=request.user, reason=form.cleaned_data["reason"])
    except ValidationError as exc:
        for message in _errors(exc):
            messages.error(request, message)
        return redirect("annotation:rate", pk=assignment.pk)
    messages.success(request, "Item skipped.")
    return redirect("annotation:physician_dashboard")


# ---------------------------------------------------------------- inspection


@require_http_methods(["GET"])
def inspector_dashboard(request: HttpRequest) -> HttpResponse:
    if not is_inspector(request.user):
        raise PermissionDenied("Only inspectors inspect items.")
    queue = selectors.inspector_queue(inspector=request.user)
    return render(request, "annotation/inspector_dashboard.html", {"queue": queue})


@require_http_methods(["GET", "POST"])
def inspect(request: HttpRequest, pk: int) -> HttpResponse:
    item = access.access_item_for_inspection(request.user, pk)
    if request.method == "POST":
        errors = _inspection_action(request, item)
        if not errors:
            return redirect("annotation:inspector_dashboard")
        return render(request, "annotation/inspect.html", _inspection_context(item, errors), status=400)
    return render(request, "annotation/inspect.html", _inspection_context(item, []))


def _inspection_action(request: HttpRequest, item: Item) -> list[str]:
    action = request.POST.get("action", "")
    comment = request.POST.get("comment", "").strip()
    try:
        if action == "accept":
            services.inspection_accept(item=item, inspector=request.user, comment=comment)
            messages.success(request, "Accepted: the raters' labels stand as final labels.")
        elif action == "adjudicate":
            fields = selectors.item_fields(item)
            labels = {f.id: request.POST.get(f"final:{f.id}", "").strip() for f in fields}
            labels = {key: value for key, value in labels.items() if value}
            reason = request.POST.get("reason", "").strip()
            services.inspection_adjudicate(item=item, inspector=request.user, labels=labels, reason=reason)
            messages.success(request, "Final labels set.")
        elif action == "return":
            raw_pk = request.POST.get("assignment", "")
            target = item.assignments.filter(pk=int(raw_pk)).first() if raw_pk.isdigit() else None
            if target is None:
                return ["Choose the annotator to return the item to."]
            services.inspection_return(item=item, inspector=request.user, assignment=target, comment=comment)
            messages.success(request, "Returned to the annotator for revision.")
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
            messages.success(request, f"Study “{study.name}” created with {study.items.count()} items.")
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
        },
    )


@require_http_methods(["POST"])
def study_add_members(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    form = AddMembersForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose at least one person and a role.")
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
        messages.success(request, f"{added} member(s) added.")
    return redirect("annotation:study_detail", pk=study.pk)


@require_http_methods(["POST"])
def study_add_items(request: HttpRequest, pk: int) -> HttpResponse:
    study = access.access_study_for_management(request.user, pk)
    form = AddItemsForm(request.POST, prefix="items")
    if not form.is_valid():
        messages.error(request, f"Items not added: {form.errors.as_text()}")
        return redirect("annotation:study_detail", pk=study.pk)
    try:
        added = services.study_add_items(
            study=study, selection=services.ItemSelection(**form.selection_kwargs()), actor=request.user
        )
    except ValidationError as exc:
        for message in _errors(exc):
            messages.error(request, message)
    else:
        messages.success(request, f"{added} item(s) added.")
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
            messages.error(request, "Unknown action.")
    except ValidationError as exc:
        for message in _errors(exc):
            messages.error(request, message)
    return redirect(reverse("annotation:study_detail", kwargs={"pk": study.pk}))
