"""Builders shared by the review-core tests (services, access, API, concurrency). Holds no tests."""

from __future__ import annotations

from typing import Any

from annotation.models import Assignment, Item, Study, StudyMember
from annotation.selectors import item_fields
from annotation.services import (
    ItemSelection,
    assignment_claim_next,
    rating_submit,
    study_add_members,
    study_create,
    study_start,
)
from tests.factories import make_case, make_release, make_response


def make_cases(n: int = 3, *, dataset: str = "LiveMedBench", language: str = "en") -> list:
    release = make_release(dataset_name=dataset)
    return [make_case(release=release, language=language) for _ in range(n)]


def running_study(
    admin,
    *,
    raters: list,
    inspectors: list | None = None,
    tasks: list[str] | None = None,
    kind: str = "case",
    dataset: str = "LiveMedBench",
    **options: Any,
) -> Study:
    study = study_create(
        name="Validation study",
        created_by=admin,
        task_slugs=tasks or ["narrative-quality"],
        selection=ItemSelection(kind=kind, dataset=dataset),
        seed=7,
        **options,
    )
    if raters:
        study_add_members(study=study, users=raters, role=StudyMember.Role.RATER, actor=admin)
    if inspectors:
        study_add_members(study=study, users=inspectors, role=StudyMember.Role.INSPECTOR, actor=admin)
    return study_start(study=study, actor=admin)


def labels_for(assignment: Assignment, value: str | dict[str, str], comment: str = "") -> dict[str, dict]:
    """A full label set for the assignment's item: one value everywhere, or one per task slug."""
    fields = item_fields(assignment.item)
    if isinstance(value, dict):
        return {f.id: {"label": value[f.task.slug], "comment": comment} for f in fields}
    return {f.id: {"label": value, "comment": comment} for f in fields}


def claim_and_submit(study: Study, rater, value: str | dict[str, str], comment: str = "") -> Assignment:
    assignment = assignment_claim_next(study=study, rater=rater)
    assert assignment is not None
    return rating_submit(
        assignment=assignment, rater=rater, labels=labels_for(assignment, value, comment), seconds_spent=30
    )


def item_of(assignment: Assignment) -> Item:
    return Item.objects.get(pk=assignment.item_id)


__all__ = ["make_cases", "make_response", "running_study", "labels_for", "claim_and_submit", "item_of"]
