"""Builders for the curation and audit tests: import a fixture release, run a study with two raters
and an inspector through the real services. Holds no tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from annotation.fields import Field, item_fields
from annotation.inspection.services import inspection_adjudicate
from annotation.models import Assignment, Item, Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from cases.models import Release
from cases.services import release_import

FIXTURES = Path(__file__).parents[2] / "cases" / "fixtures"

# (case external id, field) -> label; `field` is a task slug, "<slug>:<position>" for criteria / MCQs.
LabelPlan = Callable[[str, Field], str]


def import_fixture(fmt: str, name: str, *, dataset: str, label: str) -> Release:
    report = release_import(fmt=fmt, data=(FIXTURES / name).read_bytes(), file_name=name, dataset_name=dataset,
                            release_label=label)
    assert report.status == "imported", report.errors
    return Release.objects.get(pk=report.release_id)


def position(field: Field) -> int | None:
    if field.criterion is not None:
        return field.criterion.order
    if field.mcq is not None:
        return field.mcq.order
    return None


def study_on(release: Release, admin, *, tasks: list[str], raters: list, inspectors: list, kind: str = "case",
             name: str = "Review") -> Study:
    study = study_create(
        name=name, created_by=admin, task_slugs=tasks, seed=11,
        selection=ItemSelection(kind=kind, dataset=release.dataset.name, release_label=release.label),
        inspect_disagreements=True,
    )
    study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
    study_add_members(study=study, users=inspectors, role=StudyMember.Role.INSPECTOR, actor=admin)
    return study_start(study=study, actor=admin)


def rate_everything(study: Study, rater, plan: LabelPlan, *, seconds: int = 60) -> list[Assignment]:
    """The rater claims and submits every item it can, labelling each field by the plan."""
    done = []
    while (assignment := assignment_claim_next(study=study, rater=rater)) is not None:
        case = assignment.item.revision.case.external_id
        labels = {}
        for f in item_fields(assignment.item):
            label = plan(case, f)
            comment = "" if label in ("yes", "agree") or label.isdigit() else "Not supported by the source."
            labels[f.id] = {"label": label, "comment": comment}
        done.append(rating_submit(assignment=assignment, rater=rater, labels=labels, seconds_spent=seconds))
    return done


def adjudicate(study: Study, inspector, plan: LabelPlan, *, reason: str = "Checked against the guideline") -> int:
    """The inspector sets every field of every item waiting for inspection; returns how many items."""
    items = list(Item.objects.filter(study=study, status=Item.Status.INSPECTION).select_related("revision__case"))
    for item in items:
        labels = {f.id: plan(item.revision.case.external_id, f) for f in item_fields(item)}
        inspection_adjudicate(item=item, inspector=inspector, labels=labels, reason=reason)
    return len(items)
