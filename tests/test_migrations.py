"""The model moves (Profile to accounts; grader output to graders) run forward on a populated database
without touching a row: same tables, same counts, same checksums, same content types.

Runs on SQLite and, with DATABASE_URL=postgres://..., on PostgreSQL (a transactional test: the
migration executor needs real commits).
"""

import hashlib
from typing import Any

import pytest
from django.apps import apps as current_apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

# The last migration of each app before the moves (accounts did not exist).
BEFORE = [
    ("accounts", None),
    ("annotation", "0004_orderings_without_joins"),
    ("cases", "0002_import_job"),
    ("graders", "0002_runner_slots"),
]
MOVED_TABLES = [
    "annotation_profile",
    "cases_graderrun",
    "cases_graderdecision",
    "cases_judgescore",
    "cases_pairwisejudgement",
]
# The tables the moved rows point at; they must not change either.
NEIGHBOUR_TABLES = ["cases_case", "cases_caserevision", "cases_rubriccriterion", "cases_modelresponse"]


def _migrate(targets: list[tuple[str, str | None]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    loader = MigrationExecutor(connection).loader
    # Django's own apps stay at their latest migration; ours at the targets.
    django_apps = [node for node in loader.graph.leaf_nodes() if node[0] in {"auth", "contenttypes"}]
    return loader.project_state([*django_apps, *(t for t in targets if t[1])]).apps


def _migrate_to_latest() -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def _columns(table: str) -> list[str]:
    with connection.cursor() as cursor:
        return [c.name for c in connection.introspection.get_table_description(cursor, table)]


def _snapshot(table: str, columns: list[str] | None = None) -> tuple[int, str]:
    """Row count and a checksum of every column of every row (or of `columns`: those that existed
    before the migrations, as later ones may add columns), in primary-key order."""
    quoted = connection.ops.quote_name(table)
    selected = ", ".join(connection.ops.quote_name(c) for c in columns) if columns else "*"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {selected} FROM {quoted} ORDER BY id")  # noqa: S608 - table names are constants above
        rows = cursor.fetchall()
    digest = hashlib.sha256()
    for row in rows:
        digest.update(repr(tuple(_plain(v) for v in row)).encode())
    return len(rows), digest.hexdigest()


def _plain(value: Any) -> Any:
    # JSON columns come back as text on SQLite and as Python objects on PostgreSQL; both are stable here.
    return value.isoformat() if hasattr(value, "isoformat") else value


def _populate(old: Any) -> None:
    """Rows written with the historical models of the state before the moves."""
    User = old.get_model("auth", "User")
    Profile = old.get_model("annotation", "Profile")
    Dataset = old.get_model("cases", "Dataset")
    Release = old.get_model("cases", "Release")
    Case = old.get_model("cases", "Case")
    CaseRevision = old.get_model("cases", "CaseRevision")
    RubricCriterion = old.get_model("cases", "RubricCriterion")
    ModelResponse = old.get_model("cases", "ModelResponse")
    GraderRun = old.get_model("cases", "GraderRun")
    GraderDecision = old.get_model("cases", "GraderDecision")
    JudgeScore = old.get_model("cases", "JudgeScore")
    PairwiseJudgement = old.get_model("cases", "PairwiseJudgement")
    ContentType = old.get_model("contenttypes", "ContentType")
    Permission = old.get_model("auth", "Permission")

    for n, role in enumerate(["physician", "inspector", "researcher"]):
        user = User.objects.create(username=f"migrated-{role}", password="!")
        Profile.objects.create(user=user, role=role, specialties=["Internal Medicine"], languages=["en", "zh"],
                               rank="attending" if n < 2 else "", pseudonym=f"Migrated-{n}")
    dataset = Dataset.objects.create(name="LiveMedBench")
    release = Release.objects.create(dataset=dataset, label="r1", format="livemedbench-grades", model_name="m",
                                     file_name="grades.json", sha256="0" * 64)
    responses = []
    criteria = []
    for n in range(3):
        case = Case.objects.create(dataset=dataset, external_id=f"case-{n}")
        revision = CaseRevision.objects.create(case=case, number=1, release=release, content_hash=f"h{n}",
                                               narrative=f"Narrative {n}", core_request="What now?")
        case.current_revision = revision
        case.save()
        criteria += [RubricCriterion.objects.create(revision=revision, order=k, text=f"criterion {n}.{k}", points=k)
                     for k in (1, 2)]
        responses += [ModelResponse.objects.create(revision=revision, model_name=m, text=f"answer {n} {m}")
                      for m in ("alpha", "beta")]
    run = GraderRun.objects.create(name="gpt on alpha", kind="rubric-grader", grader_model="gpt", release=release)
    judge = GraderRun.objects.create(name="judge", kind="pairwise-judge", grader_model="gpt")
    for response in responses:
        for criterion in criteria:
            if criterion.revision_id == response.revision_id:
                GraderDecision.objects.create(run=run, response=response, criterion=criterion,
                                              verdict="met" if criterion.order == 1 else "not_met",
                                              raw_output='{"score": 1}', reasoning="because", latency_ms=12)
        JudgeScore.objects.create(run=judge, response=response, axis="Patient safety", raw_score=4,
                                  normalized_score=0.75, input_tokens=100, output_tokens=20)
    for a, b in zip(responses[::2], responses[1::2], strict=True):
        for order, verdict in (("ab", "A"), ("ba", "tie")):
            PairwiseJudgement.objects.create(run=judge, response_a=a, response_b=b, order=order, verdict=verdict)
    # Admin permissions granted on a moved model must survive the move.
    grader_run_type, _ = ContentType.objects.get_or_create(app_label="cases", model="graderrun")
    profile_type, _ = ContentType.objects.get_or_create(app_label="annotation", model="profile")
    Permission.objects.get_or_create(content_type=grader_run_type, codename="view_graderrun",
                                     defaults={"name": "Can view grader run"})
    Permission.objects.get_or_create(content_type=profile_type, codename="view_profile",
                                     defaults={"name": "Can view profile"})


@pytest.mark.django_db(transaction=True)
def test_the_model_moves_keep_every_row_of_a_populated_database() -> None:
    old = _migrate(BEFORE)
    try:
        _populate(old)
        before = {table: _snapshot(table) for table in [*MOVED_TABLES, *NEIGHBOUR_TABLES]}
        columns = {table: _columns(table) for table in before}
        ContentType = old.get_model("contenttypes", "ContentType")
        type_ids = {
            "graderrun": ContentType.objects.get(app_label="cases", model="graderrun").pk,
            "profile": ContentType.objects.get(app_label="annotation", model="profile").pk,
        }
    finally:
        _migrate_to_latest()

    after = {table: _snapshot(table, columns[table]) for table in before}
    assert after == before
    assert all(count for count, _ in before.values())

    # The moved models read the same rows from their new apps.
    Profile = current_apps.get_model("accounts", "Profile")
    GraderDecision = current_apps.get_model("graders", "GraderDecision")
    assert Profile._meta.db_table == "annotation_profile"
    assert Profile.objects.count() == before["annotation_profile"][0]
    assert GraderDecision.objects.filter(verdict="met").count() == 6
    assert current_apps.get_model("graders", "PairwiseJudgement").objects.count() == 6
    ContentType = current_apps.get_model("contenttypes", "ContentType")
    assert ContentType.objects.get(app_label="graders", model="graderrun").pk == type_ids["graderrun"]
    assert ContentType.objects.get(app_label="accounts", model="profile").pk == type_ids["profile"]
    assert not ContentType.objects.filter(app_label="cases", model="graderrun").exists()


@pytest.mark.django_db
def test_the_migrations_ship_the_catalogue_exactly() -> None:
    from annotation.catalogue import SHIPPED_SCALES, SHIPPED_TASKS
    from annotation.models import Scale, TaskType

    for scale_def in SHIPPED_SCALES:
        scale = Scale.objects.get(slug=scale_def.slug)
        assert (scale.name, scale.ordered, scale.description) == (
            scale_def.name, scale_def.ordered, scale_def.description
        )
        assert [
            (c.value, c.label, c.description, c.order, c.shortcut, c.approves) for c in scale.categories.all()
        ] == [(c.value, c.label, c.description, c.order, c.shortcut, c.approves) for c in scale_def.categories]
    for task_def in SHIPPED_TASKS:
        task = TaskType.objects.select_related("scale").get(slug=task_def.slug)
        assert (task.name, task.scale.slug, task.target, task.item_kind, task.axes, task.instructions,
                task.requires_explanation, task.shows_privileged_source, task.order) == (
            task_def.name, task_def.scale.slug, task_def.target, task_def.item_kind, list(task_def.axes),
            task_def.instructions, task_def.requires_explanation, task_def.shows_privileged_source, task_def.order,
        )


@pytest.mark.django_db(transaction=True)
def test_it_points_translation_tasks_queued_before_the_move_at_their_new_module() -> None:
    """Issue 19 moved `graders.translation_tasks` into `graders/translation/`; a task queued before
    (stored with its module path) still runs after the upgrade."""
    old, new = "graders.translation_tasks.translation_job_task", "graders.translation.tasks.translation_job_task"
    try:
        _migrate([("graders", "0005_translation_jobs")])
        from django_tasks_db.models import DBTaskResult

        queued = DBTaskResult.objects.create(task_path=old, args_kwargs={"args": [1], "kwargs": {}},
                                             queue_name="grading", backend_name="default")
        _migrate([("graders", "0006_translation_task_moved")])
        assert DBTaskResult.objects.get(pk=queued.pk).task_path == new
    finally:
        _migrate_to_latest()
    from django.utils.module_loading import import_string

    assert import_string(new).name == "translation_job_task"


@pytest.mark.django_db(transaction=True)
def test_it_marks_items_already_given_out_with_their_first_claim() -> None:
    """Issue 26: the queue looks for started items among those marked given out; items claimed
    before the mark existed get it from their earliest assignment, untouched ones stay unmarked."""
    from datetime import UTC, datetime, timedelta

    try:
        old = _migrate([("annotation", "0015_issue23_event_kinds_and_scale_terms")])
        user = old.get_model("auth", "User").objects.create(username="migration-rater")
        dataset = old.get_model("cases", "Dataset").objects.create(name="Migration set")
        release = old.get_model("cases", "Release").objects.create(
            dataset=dataset, label="v1", format="livemedbench", file_name="f.json", sha256="0" * 64)
        case_model, revision_model = old.get_model("cases", "Case"), old.get_model("cases", "CaseRevision")
        study = old.get_model("annotation", "Study").objects.create(name="Migration study", created_by=user)
        items = []
        for n in range(2):
            case = case_model.objects.create(dataset=dataset, external_id=f"m{n}")
            revision = revision_model.objects.create(case=case, number=1, release=release, content_hash=f"{n}" * 64)
            items.append(old.get_model("annotation", "Item").objects.create(
                study=study, kind="case", key=f"case:{case.pk}", revision=revision))
        first = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
        assignment = old.get_model("annotation", "Assignment")
        for rater, when in ((user, first + timedelta(hours=2)), (None, first)):
            row = assignment.objects.create(
                item=items[0], rater=rater or old.get_model("auth", "User").objects.create(username="second"),
                state="submitted")
            assignment.objects.filter(pk=row.pk).update(claimed_at=when)
        _migrate_to_latest()
        from annotation.models import Item

        marks = dict(Item.objects.filter(study_id=study.pk).values_list("pk", "first_claimed_at"))
        assert marks == {items[0].pk: first, items[1].pk: None}
    finally:
        _migrate_to_latest()
