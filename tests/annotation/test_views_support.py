"""Builders shared by the review page tests: studies set up through the real services."""

from collections.abc import Iterable

from annotation import selectors, services
from annotation.models import Assignment, StudyMember
from tests.factories import make_case, make_release


def make_running_study(
    admin,
    raters: Iterable,
    *,
    inspectors: Iterable = (),
    tasks: tuple[str, ...] = ("narrative-quality", "criterion-validity"),
    cases: int = 1,
    narrative: str = "45-year-old with three days of fever and cough.",
    raters_per_item: int = 2,
    guidelines: str = "",
    name: str = "Validation study",
    inspect_all: bool = False,
):
    release = make_release(dataset_name="LiveMedBench", label=f"v-{name}")
    for _ in range(cases):
        make_case(release=release, narrative=narrative)
    study = services.study_create(
        name=name,
        created_by=admin,
        task_slugs=list(tasks),
        selection=services.ItemSelection(kind="case", dataset="LiveMedBench", release_label=f"v-{name}"),
        raters_per_item=raters_per_item,
        guidelines=guidelines,
        inspect_all=inspect_all,
        seed=7,
    )
    services.study_add_members(study=study, users=list(raters), role=StudyMember.Role.RATER, actor=admin)
    if inspectors:
        services.study_add_members(
            study=study, users=list(inspectors), role=StudyMember.Role.INSPECTOR, actor=admin
        )
    services.study_start(study=study, actor=admin)
    return study


def labels_for(assignment: Assignment, *, pick: str = "first", comment: str = "") -> dict[str, dict[str, str]]:
    """A complete set of labels: every field gets its first (or last) scale category."""
    labels = {}
    for field in selectors.item_fields(assignment.item):
        category = field.categories[0] if pick == "first" else field.categories[-1]
        labels[field.id] = {"label": category.value, "comment": comment}
    return labels


def form_data(labels: dict[str, dict[str, str]], *, seconds: int = 30) -> dict[str, str]:
    """The rating form as the browser posts it."""
    data = {"seconds_spent": str(seconds)}
    for field_id, entry in labels.items():
        data[field_id] = entry["label"]
        data[f"comment:{field_id}"] = entry.get("comment", "")
    return data


def claim_and_submit(study, rater, *, pick: str = "first", comment: str = "") -> Assignment:
    assignment = services.assignment_claim_next(study=study, rater=rater)
    assert assignment is not None
    services.rating_submit(
        assignment=assignment, rater=rater, labels=labels_for(assignment, pick=pick, comment=comment),
        seconds_spent=42,
    )
    assignment.refresh_from_db()
    return assignment
