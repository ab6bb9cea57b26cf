"""Builders shared by the review tests: studies set up through the real services, label sets, the
rating form as a browser posts it, API clients. Holds no tests; the personas come from tests/conftest.py."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.fields import item_fields
from annotation.models import Assignment, Item, Study, StudyMember
from annotation.rating.services.queue import assignment_claim_next
from annotation.rating.services.ratings import rating_submit
from annotation.studies.services import ItemSelection, study_add_members, study_create, study_start
from tests.factories import make_case, make_release

# --- studies -------------------------------------------------------------------------------------


@contextmanager
def events_writable() -> Iterator[None]:
    """Raw writes to review events that PostgreSQL's append-only trigger refuses (issue 22), for tests
    that backdate an event or tamper as the tables' owner could: the trigger is off only inside."""
    if connection.vendor != "postgresql":
        yield
        return
    trigger = "ALTER TABLE annotation_reviewevent {} TRIGGER annotation_reviewevent_append_only"
    with connection.cursor() as cursor:
        # Deferred foreign-key checks still pending in the test's transaction would refuse the ALTER.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute(trigger.format("DISABLE"))
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(trigger.format("ENABLE"))


_SCHEMA_STEPS = {"install_triggers"}


def restore_shipped_review_data() -> None:
    """Re-create annotation's shipped scales and task types when a transactional test's flush removed
    them (they come from data migrations, which a flush empties; the steps are idempotent)."""
    from django.db.migrations.executor import MigrationExecutor
    from django.db.migrations.operations.special import RunPython

    from annotation.models import TaskType

    if TaskType.objects.exists():
        return
    loader = MigrationExecutor(connection).loader
    state_apps = loader.project_state().apps
    for (app_label, _name), migration in sorted(loader.disk_migrations.items()):
        if app_label != "annotation":
            continue
        for operation in migration.operations:
            # Schema steps written as RunPython (issue 22's PostgreSQL triggers) survive a flush;
            # only the shipped rows need re-creating.
            if isinstance(operation, RunPython) and operation.code.__name__ not in _SCHEMA_STEPS:
                operation.code(state_apps, None)


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
    """A running study over every item of `kind` already in the database (seed 7)."""
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
) -> Study:
    """A running study over `cases` new cases of their own release (named after the study)."""
    release = make_release(dataset_name="LiveMedBench", label=f"v-{name}")
    for _ in range(cases):
        make_case(release=release, narrative=narrative)
    study = study_create(
        name=name,
        created_by=admin,
        task_slugs=list(tasks),
        selection=ItemSelection(kind="case", dataset="LiveMedBench", release_label=f"v-{name}"),
        raters_per_item=raters_per_item,
        guidelines=guidelines,
        inspect_all=inspect_all,
        seed=7,
    )
    study_add_members(study=study, users=list(raters), role=StudyMember.Role.RATER, actor=admin)
    if inspectors:
        study_add_members(study=study, users=list(inspectors), role=StudyMember.Role.INSPECTOR, actor=admin)
    study_start(study=study, actor=admin)
    return study


def review_study(admin, raters: list, inspectors: list, *, cases: int = 3) -> Study:
    """The API tests' study: `cases` cases, narrative quality and criterion validity."""
    make_cases(cases)
    return running_study(admin, raters=raters, inspectors=inspectors,
                         tasks=["narrative-quality", "criterion-validity"])


# --- labels and submissions ----------------------------------------------------------------------


def labels_for(
    assignment: Assignment, value: str | dict[str, str] | None = None, comment: str = "", *, pick: str = "first"
) -> dict[str, dict[str, str]]:
    """A full label set for the assignment's item: one value everywhere, one per task slug, or (no
    value) every field's first (or last, `pick="last"`) scale category."""
    labels = {}
    for field in item_fields(assignment.item):
        if value is None:
            label = (field.categories[0] if pick == "first" else field.categories[-1]).value
        else:
            label = value[field.task.slug] if isinstance(value, dict) else value
        labels[field.id] = {"label": label, "comment": comment}
    return labels


def claim_and_submit(
    study: Study, rater, value: str | dict[str, str] | None = None, comment: str = "", *, pick: str = "first",
    seconds_spent: int = 30,
) -> Assignment:
    """Claim the rater's next item and submit a full label set (see `labels_for`)."""
    assignment = assignment_claim_next(study=study, rater=rater)
    assert assignment is not None
    return rating_submit(
        assignment=assignment, rater=rater, labels=labels_for(assignment, value, comment, pick=pick),
        seconds_spent=seconds_spent,
    )


def item_of(assignment: Assignment) -> Item:
    return Item.objects.get(pk=assignment.item_id)


def form_data(labels: dict[str, dict[str, str]], *, seconds: int = 30) -> dict[str, str]:
    """The rating form as the browser posts it."""
    data = {"seconds_spent": str(seconds)}
    for field_id, entry in labels.items():
        data[field_id] = entry["label"]
        data[f"comment:{field_id}"] = entry.get("comment", "")
    return data


def disagree(study: Study, rater_a, rater_b) -> tuple[Item, Assignment, Assignment]:
    """Both raters claim the same item and submit labels that differ on narrative quality (it awaits inspection)."""
    a = assignment_claim_next(study=study, rater=rater_a)
    b = assignment_claim_next(study=study, rater=rater_b)
    assert a.item_id == b.item_id

    def full(assignment, narrative, criterion):
        labels = labels_for(assignment, criterion)
        labels["narrative-quality|"] = {"label": narrative, "comment": f"note by {assignment.rater.username}"}
        return labels

    rating_submit(assignment=a, rater=rater_a, labels=full(a, "2", "agree"), seconds_spent=20)
    rating_submit(assignment=b, rater=rater_b, labels=full(b, "0", "agree"), seconds_spent=40)
    return Item.objects.get(pk=a.item_id), a, b


# --- HTTP ----------------------------------------------------------------------------------------


def api_client_for(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def api_url(name: str, **kwargs) -> str:
    return reverse(f"annotation_api:{name}", kwargs=kwargs)


def count_queries(client, url: str) -> int:
    """How many queries a GET of `url` runs (it must answer 200)."""
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def inspect_and_confirm(client, item: Item, data: dict[str, Any]):
    """Post an inspection action as the page does: the summary first, then its confirmation."""
    url = reverse("annotation:inspect", args=[item.pk])
    preview = client.post(url, data)
    summary = preview.context["summary"] if preview.context and "summary" in preview.context else None
    if preview.status_code != 200 or summary is None:
        return preview
    return client.post(url, {**data, "step": "confirm", "summary": summary.digest})


__all__ = [
    "api_client_for",
    "api_url",
    "claim_and_submit",
    "count_queries",
    "form_data",
    "inspect_and_confirm",
    "item_of",
    "labels_for",
    "make_cases",
    "disagree",
    "make_running_study",
    "review_study",
    "running_study",
]

