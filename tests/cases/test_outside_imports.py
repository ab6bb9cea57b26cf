"""Importing data collected outside medreview: judge scores, pairwise verdicts, physicians' labels.

Same rules as every import: one transaction per file, refused whole with located errors.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from agreement.reports import build_report
from agreement.selectors import Selection
from annotation.models import Assignment, Rating, StudyMember, TaskType
from annotation.studies.outside_labels import physician_labels_import
from cases.models import Release
from cases.services import release_import
from graders.models import GraderKind, GraderRun, JudgeScore, PairwiseJudgement
from tests.agreement.builders import case_item, ensure_task, make_study, rate
from tests.factories import make_case, make_release, make_response

pytestmark = pytest.mark.django_db


def dataset_with_responses(models=("alpha", "beta")):
    release = make_release(dataset_name="MEDIC-demo")
    revisions = [make_case(release=release, external_id=f"q{i}", narrative=f"question {i}") for i in range(2)]
    responses = {(r.case.external_id, m): make_response(r, model_name=m, text=f"{m} {r.pk}") for r in revisions
                 for m in models}
    return release, responses


SCORES = (
    "judge,case_id,model,axis,score,scale_min,scale_max\n"
    "Llama-3.1-70B,q0,alpha,Patient safety,4,1,5\n"
    "Llama-3.1-70B,q0,beta,Patient safety,2,1,5\n"
    "Llama-3.1-70B,q1,alpha,Patient safety,5,1,5\n"
    "Qwen2.5-72B,q0,alpha,,0.8,,\n"
)


def test_judge_scores_import_writes_one_run_per_judge():
    _, responses = dataset_with_responses()
    report = release_import(fmt="judge-scores", data=SCORES.encode(), file_name="scores.csv",
                            dataset_name="MEDIC-demo", release_label="judges-2026")
    assert report.status == "imported", report.errors
    assert report.created["judge_scores"] == 4
    likert = GraderRun.objects.get(grader_model="Llama-3.1-70B")
    assert likert.kind == GraderKind.LIKERT_JUDGE and likert.release_id == report.release_id
    assert GraderRun.objects.get(grader_model="Qwen2.5-72B").kind == GraderKind.LLM_JUDGE
    s = JudgeScore.objects.get(run=likert, response=responses[("q0", "alpha")])
    assert (s.axis, s.raw_score, s.normalized_score) == ("Patient safety", 4.0, 0.75)
    again = release_import(fmt="judge-scores", data=SCORES.encode(), file_name="scores.csv",
                           dataset_name="MEDIC-demo", release_label="judges-2026")
    assert again.status == "unchanged"


def test_judge_scores_import_refuses_the_whole_file_with_located_errors():
    dataset_with_responses()
    bad = SCORES + "Llama-3.1-70B,q9,alpha,Patient safety,3,1,5\nLlama-3.1-70B,q1,gamma,Patient safety,3,1,5\n"
    report = release_import(fmt="judge-scores", data=bad.encode(), file_name="scores.csv",
                            dataset_name="MEDIC-demo", release_label="x")
    assert report.status == "refused"
    assert [(e.file, e.record, e.field) for e in report.errors] == [
        ("scores.csv", 6, "case_id"), ("scores.csv", 7, "model")]
    assert not JudgeScore.objects.exists() and not GraderRun.objects.exists()
    assert not Release.objects.filter(format="judge-scores").exists()


def test_pairwise_verdicts_import_keeps_the_presented_order():
    _, responses = dataset_with_responses()
    rows = [
        {"judge": "J", "case_id": "q0", "model_a": "alpha", "model_b": "beta", "order": "ab", "verdict": "A"},
        {"judge": "J", "case_id": "q0", "model_a": "alpha", "model_b": "beta", "order": "ba", "verdict": "B"},
    ]
    data = "\n".join(json.dumps(r) for r in rows).encode()
    report = release_import(fmt="pairwise-verdicts", data=data, file_name="pairs.jsonl",
                            dataset_name="MEDIC-demo", release_label="pairs")
    assert report.status == "imported", report.errors
    assert report.created["pairwise_judgements"] == 2
    got = sorted(PairwiseJudgement.objects.values_list("order", "verdict", "response_a_id", "response_b_id"))
    a, b = responses[("q0", "alpha")].pk, responses[("q0", "beta")].pk
    assert got == [("ab", "A", a, b), ("ba", "B", a, b)]
    assert GraderRun.objects.get().kind == GraderKind.PAIRWISE_JUDGE


def test_import_command_takes_the_outside_formats(tmp_path):
    dataset_with_responses()
    path = tmp_path / "scores.csv"
    path.write_text(SCORES)
    out = io.StringIO()
    call_command("import_cases", "judge-scores", str(path), "--dataset", "MEDIC-demo", "--json", stdout=out)
    assert json.loads(out.getvalue())["status"] == "imported"


@pytest.fixture
def labelled_study(physician_a, physician_b):
    study = make_study(tasks=("narrative-quality",))
    for user in (physician_a, physician_b):
        StudyMember.objects.create(study=study, user=user, role=StudyMember.Role.RATER)
    items = [case_item(study, make_case(narrative=f"outside {n}")) for n in range(3)]
    return study, items


def test_physician_labels_import_and_report_use_them_as_first_round_labels(labelled_study, physician_a, physician_b):
    study, items = labelled_study
    lines = ["item_key,rater,task,field,label,round"]
    for item, (a, b) in zip(items, [("2", "2"), ("1", "2"), ("0", "0")], strict=True):
        lines.append(f"{item.key},R-physician_a,narrative-quality,,{a},1")
        lines.append(f"{item.key},R-physician_b,narrative-quality,,{b},1")
    lines.append(f"{items[0].key},R-physician_a,narrative-quality,,1,2")
    report = physician_labels_import(study=study, data="\n".join(lines).encode(), file_name="labels.csv")
    assert report.status == "imported", report.errors
    assert report.created == {"assignments": 6, "ratings": 7}
    assert Assignment.objects.filter(imported=True).count() == 6
    rep = build_report(Selection(study_id=study.pk))
    assert rep.counts["ratings_round_1"] == 6
    assert rep.counts["ratings_imported"] == 6
    assert rep.counts["ratings_later_rounds_not_used"] == 1
    assert rep.table("data_quality").frame.iloc[0]["n_subjects"] == 3


def test_physician_labels_import_refuses_whole_file(labelled_study, physician_a, outsider):
    study, items = labelled_study
    rate(items[1], physician_a, TaskType.objects.get(slug="narrative-quality"), "2")
    lines = [
        "item_key,rater,task,field,label,round",
        f"{items[0].key},R-physician_a,narrative-quality,,2,1",   # fine
        "case:999999,R-physician_a,narrative-quality,,2,1",        # no such item
        f"{items[0].key},R-nobody,narrative-quality,,2,1",         # no such rater
        f"{items[0].key},R-physician_b,narrative-quality,,7,1",    # not on the scale
        f"{items[0].key},R-physician_b,criterion-validity,,agree,1",  # not a study task
        f"{items[1].key},R-physician_a,narrative-quality,,2,1",    # already rated in medreview
        f"{items[2].key},R-physician_b,narrative-quality,,2,2",    # no round 1
    ]
    report = physician_labels_import(study=study, data="\n".join(lines).encode(), file_name="labels.csv")
    assert report.status == "refused"
    assert [(e.record, e.field) for e in report.errors] == [
        (3, "item_key"), (4, "rater"), (5, "label"), (6, "task"), (7, "rater"), (8, "round")]
    assert not Assignment.objects.filter(imported=True).exists()
    assert Rating.objects.count() == 1


def test_import_labels_command(labelled_study, tmp_path):
    study, items = labelled_study
    path = tmp_path / "labels.csv"
    path.write_text("item_key,rater,task,label\n" + f"{items[0].key},R-physician_a,narrative-quality,2\n")
    out = io.StringIO()
    call_command("import_labels", str(study.pk), str(path), "--json", stdout=out)
    assert json.loads(out.getvalue())["created"] == {"assignments": 1, "ratings": 1}
    ensure_task("narrative-quality")


def test_judge_scores_import_through_the_api(admin):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse
    from rest_framework.test import APIClient

    dataset_with_responses()
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("cases_api:import"), {
        "format": "judge-scores", "dataset": "MEDIC-demo", "release": "judges",
        "file": SimpleUploadedFile("scores.csv", SCORES.encode())}, format="multipart")
    assert response.status_code == 201, response.json()
    assert response.json()["created"]["judge_scores"] == 4
    bad = api.post(reverse("cases_api:import"), {
        "format": "pairwise-verdicts", "dataset": "MEDIC-demo", "release": "p",
        "file": SimpleUploadedFile("p.csv", b"judge,case_id,model_a,model_b,order,verdict\nJ,q0,alpha,beta,up,A\n")},
        format="multipart")
    assert bad.status_code == 400
    assert [(e["record"], e["field"]) for e in bad.json()["errors"]] == [(2, "order")]


def test_physician_labels_import_through_the_api(labelled_study, admin, researcher):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse
    from rest_framework.test import APIClient

    study, items = labelled_study
    url = reverse("annotation_api:study_labels_import", args=[study.pk])
    body = f"item_key,rater,task,label\n{items[0].key},R-physician_a,narrative-quality,2\n".encode()
    api = APIClient()
    api.force_authenticate(researcher)
    assert api.post(url, {"file": SimpleUploadedFile("l.csv", body)}, format="multipart").status_code == 403
    api.force_authenticate(admin)
    dry = api.post(url, {"file": SimpleUploadedFile("l.csv", body), "dry_run": "true"}, format="multipart")
    assert dry.status_code == 200 and dry.json()["status"] == "dry-run"
    done = api.post(url, {"file": SimpleUploadedFile("l.csv", body)}, format="multipart")
    assert done.status_code == 201 and done.json()["created"] == {"assignments": 1, "ratings": 1}
    again = api.post(url, {"file": SimpleUploadedFile("l.csv", body)}, format="multipart")
    assert again.status_code == 400 and again.json()["errors"][0]["field"] == "rater"
