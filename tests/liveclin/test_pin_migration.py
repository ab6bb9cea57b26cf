"""Issue 20's migrations run forward on a populated database: a LiveClin study started before pins
existed is pinned to the Judge run its report used until then (the newest over its sets), a draft
study is not, and nothing else changes. (Transactional: the migration executor needs real commits.)"""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from annotation.models import Study
from annotation.studies.services import ItemSelection, study_create
from cases.services import release_import
from graders.models import GraderRun
from tests.annotation.builders import restore_shipped_review_data
from tests.liveclin.builders import import_liveclin, jsonl, judge_block, liveclin_study

pytestmark = pytest.mark.django_db(transaction=True)


def _migrate(targets: list[tuple[str, str | None]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def test_started_liveclin_studies_are_pinned_to_the_run_their_report_used(admin, physician_a, physician_b):
    restore_shipped_review_data()  # an earlier transactional test's flush may have emptied the task types
    import_liveclin(1, judge=[{"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]}])
    release_import(fmt="liveclin-judge", data=jsonl([{"pmc": "PMC-QC-1", "judge": [judge_block(False), judge_block()]}]),
                   file_name="again.jsonl", dataset_name="LiveClin", release_label="2025H1-judge-2", grader_model="o4")
    newest = GraderRun.objects.latest("pk")
    started = liveclin_study(admin, [physician_a, physician_b])
    draft = study_create(name="Draft", created_by=admin, task_slugs=["mcq-factual"],
                         selection=ItemSelection(kind="question_set", dataset="LiveClin"))
    items = sorted(Study.objects.values_list("pk", "status"))
    try:
        _migrate([("liveclin", None)])  # back to before the pins
    finally:
        _migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())  # forward: the data migration pins
    from liveclin.models import StudyJudgeRun

    assert list(StudyJudgeRun.objects.values_list("study_id", "run_id", "pinned_by")) == [(started.pk, newest.pk, None)]
    assert not StudyJudgeRun.objects.filter(study=draft).exists()
    assert sorted(Study.objects.values_list("pk", "status")) == items
