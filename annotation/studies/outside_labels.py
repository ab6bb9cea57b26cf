"""Physicians' labels collected outside medreview, imported into a study (long format).

One file, one transaction: every row is checked against the study (item key, rater pseudonym, task,
field, label in the task's scale) and any error refuses the whole file, each error with its file,
record and field. Each (item, rater) becomes one submitted assignment marked `imported`, holding the
rater's ratings of every round in the file; reports use its round-1 labels like in-app first-round
labels and count them apart ("imported labels"). A rater who already has an assignment on the item
is refused: imported labels never overwrite or mix with labels given in medreview.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from accounts.models import Profile
from annotation.fields import item_fields, study_tasks
from annotation.models import Assignment, Item, Rating, ReviewEvent, Study, StudyMember
from cases.importers.base import ImportIssue
from cases.importers.outside import ParsedLabel, parse_physician_labels


@dataclass
class LabelImportReport:
    status: str  # imported | dry-run | refused
    file_name: str
    sha256: str
    study_id: int
    records: int = 0
    created: dict[str, int] = field(default_factory=lambda: {"assignments": 0, "ratings": 0})
    errors: list[ImportIssue] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status != "refused"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "format": "physician-labels", "file": self.file_name, "sha256": self.sha256,
            "study_id": self.study_id, "records": self.records, "created": dict(self.created),
            "errors": [e.as_dict() for e in self.errors],
        }


@dataclass
class _Plan:
    errors: list[ImportIssue] = field(default_factory=list)
    #: (item id, rater id) -> labels of every round
    groups: dict[tuple[int, int], list[tuple[ParsedLabel, int, int | None, int | None]]] = field(
        default_factory=lambda: defaultdict(list))


def _fields_by_item(study: Study, items: dict[str, Item]) -> dict[int, dict[tuple[str, str], Any]]:
    tasks = study_tasks(study)
    return {item.pk: {(f.task.slug, f.key): f for f in item_fields(item, tasks=tasks)} for item in items.values()}


@dataclass
class _Context:
    """What every row is checked against, read once per file."""

    study: Study
    items: dict[str, Item]
    pseudonyms: dict[str, int]
    members: set[int]
    taken: set[tuple[int, int]]
    fields: dict[int, dict[tuple[str, str], Any]]
    task_slugs: set[str]


def _context(study: Study, rows: list[ParsedLabel]) -> _Context:
    items = {i.key: i for i in Item.objects.filter(study=study, key__in={r.item_key for r in rows})
             .select_related("study")}
    return _Context(
        study=study, items=items,
        pseudonyms=dict(Profile.objects.filter(pseudonym__in={r.rater for r in rows})
                        .values_list("pseudonym", "user_id")),
        members=set(StudyMember.objects.filter(study=study, role=StudyMember.Role.RATER)
                    .values_list("user_id", flat=True)),
        taken=set(Assignment.objects.filter(item__in=list(items.values())).values_list("item_id", "rater_id")),
        fields=_fields_by_item(study, items),
        task_slugs=set(study.tasks.values_list("slug", flat=True)),
    )


def _who_and_what(ctx: _Context, r: ParsedLabel, error: Any) -> tuple[Item, int] | None:
    """The row's item and rater, or None with the errors noted."""
    item = ctx.items.get(r.item_key)
    rater_id = ctx.pseudonyms.get(r.rater)
    if item is None:
        error(r, "item_key", f"no item {r.item_key!r} in study {ctx.study.pk}")
    if rater_id is None:
        error(r, "rater", f"no rater with pseudonym {r.rater!r}")
    elif rater_id not in ctx.members:
        error(r, "rater", f"{r.rater!r} is not a rater of study {ctx.study.pk}")
    if r.task not in ctx.task_slugs:
        error(r, "task", f"task {r.task!r} is not one of the study's tasks ({', '.join(sorted(ctx.task_slugs))})")
    if item is None or rater_id is None or rater_id not in ctx.members or r.task not in ctx.task_slugs:
        return None
    return item, rater_id


def _check_row(ctx: _Context, r: ParsedLabel, error: Any) -> tuple[tuple[int, int], tuple] | None:
    found = _who_and_what(ctx, r, error)
    if found is None:
        return None
    item, rater_id = found
    if (item.pk, rater_id) in ctx.taken:
        error(r, "rater", f"{r.rater!r} already has an assignment on {r.item_key!r} in medreview")
        return None
    f = ctx.fields[item.pk].get((r.task, r.field_key))
    if f is None:
        error(r, "field", f"item {r.item_key!r} has no field {r.field_key or '(blank)'!r} for task {r.task!r}")
        return None
    if r.label not in f.values:
        error(r, "label", f"label {r.label!r} is not on the scale ({', '.join(f.values)})")
        return None
    return (item.pk, rater_id), (r, f.task.pk, f.criterion.pk if f.criterion else None, f.mcq.pk if f.mcq else None)


def _plan(study: Study, rows: list[ParsedLabel], file_name: str) -> _Plan:
    plan = _Plan()
    ctx = _context(study, rows)

    def error(r: ParsedLabel, name: str, message: str) -> None:
        plan.errors.append(ImportIssue(r.record, name, message, file_name))

    for r in rows:
        checked = _check_row(ctx, r, error)
        if checked is not None:
            plan.groups[checked[0]].append(checked[1])
    for labels in plan.groups.values():
        if 1 not in {r.round for r, *_ in labels}:
            first = labels[0][0]
            error(first, "round", f"{first.rater!r} on {first.item_key!r} has no round-1 labels (the independent "
                                  "first round must be present)")
    plan.errors.sort(key=lambda e: (e.record or 0))
    return plan


def _describe(r: ParsedLabel) -> str:
    models = " and ".join(m for m in (r.model, r.model_b) if m)
    return f"case {r.case_id!r}" + (f" with {models}" if models else "")


def _item_index(study: Study) -> tuple[dict[tuple[str, str, str], Item], set[tuple[str, str, str]]]:
    """The study's items by what a researcher has: (dataset case id, model, second model); and the
    keys two items share (one case id in two datasets of the study), which only `item_key` can name."""
    index: dict[tuple[str, str, str], Item] = {}
    shared: set[tuple[str, str, str]] = set()
    items = Item.objects.filter(study=study).select_related("revision__case", "response", "response_b", "question_set")
    for item in items:
        model = item.response.model_name if item.response_id else ""
        model_b = item.response_b.model_name if item.response_b_id else ""
        key = (item.revision.case.external_id, model, model_b)
        if key in index:
            shared.add(key)
        index[key] = item
    return index, shared


def _position_key(item: Item, r: ParsedLabel) -> tuple[str, str]:
    """(field key, "") for the row's criterion / MCQ position, or ("", error) when the position is not there."""
    if r.criterion is not None:
        ids = list(item.revision.criteria.order_by("order").values_list("pk", flat=True))
        if not 1 <= r.criterion <= len(ids):
            return "", f"criterion {r.criterion}: case {r.case_id!r} has {len(ids)} rubric criteria"
        return f"criterion:{ids[r.criterion - 1]}", ""
    if r.mcq is not None:
        ids = list(item.question_set.mcqs.order_by("order").values_list("pk", flat=True)) if item.question_set_id else []
        if not 1 <= r.mcq <= len(ids):
            return "", f"mcq {r.mcq}: case {r.case_id!r} has {len(ids)} MCQs in this study"
        return f"mcq:{ids[r.mcq - 1]}", ""
    return r.field_key, ""


def resolve_dataset_keys(study: Study, rows: list[ParsedLabel], file_name: str
                         ) -> tuple[list[ParsedLabel], list[ImportIssue]]:
    """Rows naming their item by the dataset's case id (and models) and their field by position get the
    study's item key and field key; every row that names nothing in the study is a located error."""
    if not any(r.case_id for r in rows):
        return rows, []
    index, shared = _item_index(study)
    resolved, errors = [], []
    for r in rows:
        if not r.case_id:
            resolved.append(r)
            continue
        if (r.case_id, r.model, r.model_b) in shared:
            errors.append(ImportIssue(r.record, "case_id", f"{_describe(r)} names two items of study {study.pk} "
                                      "(the case id is in two of its datasets): give the item_key", file_name))
            continue
        item = index.get((r.case_id, r.model, r.model_b))
        if item is None:
            swapped = index.get((r.case_id, r.model_b, r.model)) if r.model_b else None
            message = (f"the study's pair for case {r.case_id!r} shows {r.model_b!r} first: give model={r.model_b!r}, "
                       f"model_b={r.model!r} (and the label as that order reads)" if swapped is not None
                       else f"no item for {_describe(r)} in study {study.pk}")
            errors.append(ImportIssue(r.record, "case_id", message, file_name))
            continue
        field_key, problem = _position_key(item, r)
        if problem:
            errors.append(ImportIssue(r.record, "criterion" if r.criterion is not None else "mcq", problem, file_name))
            continue
        resolved.append(replace(r, item_key=item.key, field_key=field_key))
    return resolved, errors


def physician_labels_import(
    *, study: Study, data: bytes, file_name: str, user: AbstractBaseUser | None = None, dry_run: bool = False,
) -> LabelImportReport:
    """Import physicians' labels into `study`: all rows, or none (status "refused")."""
    report = LabelImportReport(
        status="dry-run" if dry_run else "imported", file_name=file_name, sha256=hashlib.sha256(data).hexdigest(),
        study_id=study.pk,
    )
    parsed = parse_physician_labels(data, file_name, dataset_keys=True)
    report.records = parsed.records
    if parsed.issues:
        report.status, report.errors = "refused", list(parsed.issues)
        return report
    rows, resolve_errors = resolve_dataset_keys(study, parsed.rows, file_name)
    if resolve_errors:
        report.status, report.errors = "refused", resolve_errors
        return report
    # One transaction for the file; the study row is locked so two imports into one study cannot
    # both pass the "no assignment yet" check for the same (item, rater) and then collide.
    with transaction.atomic():
        Study.objects.select_for_update().get(pk=study.pk)
        plan = _plan(study, rows, file_name)
        if plan.errors:
            report.status, report.errors = "refused", plan.errors
            return report
        report.created = {"assignments": len(plan.groups), "ratings": sum(len(v) for v in plan.groups.values())}
        if not dry_run:
            _write(plan, user)
    return report


def _write(plan: _Plan, user: AbstractBaseUser | None) -> None:
    now = timezone.now()
    assignments = []
    for (item_id, rater_id), labels in plan.groups.items():
        last = max(r.round for r, *_ in labels)
        assignments.append(Assignment(
            item_id=item_id, rater_id=rater_id, round=last, imported=True, submitted_at=now,
            state=Assignment.State.SUBMITTED if last == 1 else Assignment.State.REVISED,
            seconds_spent=sum(r.seconds_spent for r, *_ in labels if r.round == 1),
        ))
    Assignment.objects.bulk_create(assignments)
    item_ids = {item_id for item_id, _rater_id in plan.groups}
    # Items with labels from outside are started: the queue offers their free slots first.
    Item.objects.filter(pk__in=item_ids, first_claimed_at__isnull=True).update(first_claimed_at=now)
    by_key = {(a.item_id, a.rater_id): a for a in Assignment.objects.filter(
        item_id__in=item_ids, imported=True, submitted_at=now).select_related("item")}
    ratings = [
        Rating(assignment=by_key[key], task_id=task_id, field_key=r.field_key, criterion_id=criterion_id,
               mcq_id=mcq_id, round=r.round, label=r.label, comment=r.comment, seconds_spent=r.seconds_spent)
        for key, labels in plan.groups.items() for r, task_id, criterion_id, mcq_id in labels
    ]
    Rating.objects.bulk_create(ratings, batch_size=1000)
    for a in by_key.values():  # one at a time: each event extends the study's hash chain
        ReviewEvent.objects.record(
            item=a.item, assignment=a, actor=user, kind=ReviewEvent.Kind.SUBMITTED,
            reason="imported from a file of labels collected outside medreview", data={"imported": True},
        )
