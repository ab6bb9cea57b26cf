"""The Django admin over imported data, and two imports of one file at the same time."""

import threading
from pathlib import Path

import pytest
from django.contrib import admin as django_admin
from django.db import connection
from django.test import Client
from django.urls import reverse

from cases.models import Case, CaseRevision, Release, RubricCriterion
from cases.services import release_import
from tests.conftest import login

FIXTURES = Path(__file__).parent / "fixtures"


def superuser(user):
    user.is_staff = user.is_superuser = True
    user.save()
    return user


@pytest.mark.django_db
def test_it_lists_every_cases_model_in_the_admin_read_only(client: Client, admin) -> None:
    release_import(fmt="liveclin", data=(FIXTURES / "liveclin.jsonl").read_bytes(), file_name="lc.jsonl",
                   dataset_name="LiveClin", release_label="x")
    login(client, superuser(admin))
    # Grader output moved to the graders app with its tables; it is still imported data, read-only.
    grader_output = {"GraderRun", "GraderDecision", "JudgeScore", "PairwiseJudgement"}
    models = [m for m in django_admin.site._registry if m._meta.app_label == "cases" or m.__name__ in grader_output]
    assert {m.__name__ for m in models} >= {"Case", "CaseRevision", "RubricCriterion", "QuestionSet", "MCQ",
                                            "ModelResponse", "GraderRun", "GraderDecision", "Release", "ImportJob"}
    for model in models:
        changelist = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        assert client.get(changelist).status_code == 200, model.__name__
        assert client.get(changelist, {"q": "PMC"}).status_code == 200, model.__name__
    revision = CaseRevision.objects.get(case__external_id="PMC-DEMO-0001")
    assert client.get(reverse("admin:cases_caserevision_change", args=[revision.pk])).status_code == 200
    # Imported text is never edited in place: no add, change or delete.
    assert client.get(reverse("admin:cases_case_add")).status_code == 403
    release_import(fmt="livemedbench", data=(FIXTURES / "livemedbench_cases.json").read_bytes(),
                   file_name="c.json", dataset_name="LiveMedBench", release_label="x")
    criterion = RubricCriterion.objects.first()
    criterion_change = reverse("admin:cases_rubriccriterion_change", args=[criterion.pk])
    assert client.post(criterion_change, {"text": "edited", "points": 1}).status_code == 403
    mcq_change = reverse("admin:cases_mcq_change", args=[revision.question_set.mcqs.first().pk])
    assert client.post(mcq_change, {"question": "edited"}).status_code == 403
    assert client.post(reverse("admin:cases_case_delete", args=[revision.case_id]), {"post": "yes"}).status_code == 403
    criterion.refresh_from_db()
    assert criterion.text != "edited" and Case.objects.count() == 6


@pytest.mark.django_db(transaction=True)
def test_it_imports_one_file_once_when_two_imports_race(postgres_only) -> None:
    data = (FIXTURES / "livemedbench_cases.json").read_bytes()
    statuses: list[str] = []
    start = threading.Barrier(2)

    def worker() -> None:
        try:
            start.wait()
            report = release_import(fmt="livemedbench", data=data, file_name="f.json", dataset_name="Race",
                                    release_label="v1")
            statuses.append(report.status)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == ["imported", "unchanged"]
    assert Release.objects.count() == 1
    assert Case.objects.count() == 3 and CaseRevision.objects.count() == 3
