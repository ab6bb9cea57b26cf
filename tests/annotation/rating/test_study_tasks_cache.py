"""A study's tasks and scales remembered a few seconds in each server process (issue 26): every claim,
draft and submit builds or checks the item's fields from them, and they change only when an admin
edits them. An edit made in this process is seen at once; one made in another process (which sends
this one no signal) within STUDY_TASKS_CACHE_SECONDS; and a rater's label is never checked against
categories that were removed here."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation import fields as fields_module
from annotation.fields import study_tasks
from annotation.models import Scale, ScaleCategory, Study, TaskType
from tests.annotation.builders import api_client_for, api_url, make_running_study

pytestmark = pytest.mark.django_db


def _later(monkeypatch, seconds: float) -> None:
    now = time.monotonic()
    monkeypatch.setattr(fields_module.time, "monotonic", lambda: now + seconds)


def _read(study: Study) -> tuple[list[TaskType], int]:
    """The tasks as a new request sees them (a fresh Study row), and the queries it took."""
    fresh = Study.objects.get(pk=study.pk)
    with CaptureQueriesContext(connection) as ctx:
        tasks = study_tasks(fresh)
    return tasks, len(ctx.captured_queries)


def _validity_labels(tasks: list[TaskType]) -> list[str]:
    task = next(t for t in tasks if t.slug == "criterion-validity")
    return [c.label for c in task.scale.categories.all()]


def test_it_reads_a_studys_tasks_once_per_process_window(tasks_cache, admin, physician_a):
    study = make_running_study(admin, [physician_a])
    first, queries = _read(study)
    assert queries == 2
    again, queries = _read(study)
    assert queries == 0
    assert [t.slug for t in again] == [t.slug for t in first] == ["narrative-quality", "criterion-validity"]


def test_it_reads_them_on_every_request_when_the_window_is_zero(settings, admin, physician_a):
    settings.STUDY_TASKS_CACHE_SECONDS = 0
    study = make_running_study(admin, [physician_a])
    assert _read(study)[1] == 2
    assert _read(study)[1] == 2


def test_it_sees_a_category_renamed_in_this_process_at_once(tasks_cache, admin, physician_a):
    study = make_running_study(admin, [physician_a])
    _read(study)
    category = ScaleCategory.objects.filter(scale__tasks__slug="criterion-validity").order_by("order").first()
    category.label = "Clinically sound"
    category.save()
    tasks, queries = _read(study)
    assert queries == 2
    assert "Clinically sound" in _validity_labels(tasks)


def test_it_sees_a_category_changed_in_another_process_within_the_window(tasks_cache, admin, physician_a,
                                                                        monkeypatch):
    study = make_running_study(admin, [physician_a])
    _read(study)
    # Another server process renames it: this process hears no signal.
    ScaleCategory.objects.filter(scale__tasks__slug="criterion-validity", order=0).update(label="Renamed elsewhere")
    assert "Renamed elsewhere" not in _validity_labels(_read(study)[0])  # inside the window (documented: 5 s)
    _later(monkeypatch, 5.1)
    tasks, queries = _read(study)
    assert queries == 2
    assert "Renamed elsewhere" in _validity_labels(tasks)


def test_it_sees_a_study_given_another_task_at_once(tasks_cache, admin, physician_a):
    study = make_running_study(admin, [physician_a], tasks=("narrative-quality",))
    assert [t.slug for t in _read(study)[0]] == ["narrative-quality"]
    study.tasks.add(TaskType.objects.get(slug="advice-quality"))
    assert {t.slug for t in _read(study)[0]} == {"narrative-quality", "advice-quality"}


def test_it_sees_a_scale_renamed_and_a_task_edited_at_once(tasks_cache, admin, physician_a):
    study = make_running_study(admin, [physician_a], tasks=("narrative-quality",))
    _read(study)
    task = TaskType.objects.get(slug="narrative-quality")
    task.instructions = "Rate the narrative as a clinician would."
    task.save()
    assert _read(study)[0][0].instructions == "Rate the narrative as a clinician would."
    scale = Scale.objects.get(pk=task.scale_id)
    scale.name = "Renamed scale"
    scale.save()
    assert _read(study)[0][0].scale.name == "Renamed scale"


def test_it_refuses_a_label_whose_category_was_deleted_in_this_process(tasks_cache, admin, physician_a):
    study = make_running_study(admin, [physician_a], tasks=("narrative-quality",))
    api = api_client_for(physician_a)
    body = api.post(api_url("claim_next", study_pk=study.pk)).json()
    field = body["fields"][0]
    gone = field["categories"][-1]["value"]
    ScaleCategory.objects.get(scale__tasks__slug="narrative-quality", value=gone).delete()
    response = api.post(api_url("submit", pk=body["assignment"]["id"]),
                        {"labels": {field["id"]: {"label": gone, "comment": "why"}}, "seconds_spent": 9},
                        format="json")
    assert response.status_code == 400, response.content
    assert not study.items.filter(assignments__ratings__isnull=False).exists()
