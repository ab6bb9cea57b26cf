"""Importing LiveClin Judge verdicts (`liveclin-judge`) and case-report side files through the real
import service and command: all or nothing, every error located."""

import json

import pytest
from django.core.management import call_command

from cases.models import QuestionSet
from cases.services import release_import
from graders.models import GraderKind, GraderRun, QuestionSetJudgement, Verdict
from tests.liveclin.builders import import_liveclin, jsonl, judge_block, liveclin_record

pytestmark = pytest.mark.django_db


def import_judge(records: list[dict], **kwargs):
    return release_import(fmt="liveclin-judge", data=jsonl(records), file_name="judge.jsonl",
                          dataset_name="LiveClin", release_label="judge", grader_model="o3", **kwargs)


def test_verdicts_import_as_one_question_set_judge_run() -> None:
    import_liveclin(2)
    report = import_judge([
        {"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]},
        {"pmc": "PMC-QC-2", "judge": {"mcqs": [judge_block(), judge_block(True, "maybe")]}},
    ])
    assert report.status == "imported" and report.created["grader_decisions"] == 4
    run = GraderRun.objects.get(pk=report.grader_run_id)
    assert (run.kind, run.grader_model, run.name) == (GraderKind.QUESTION_SET_JUDGE, "o3", "o3 Judge pre-screen (judge)")
    verdicts = dict(QuestionSetJudgement.objects.filter(run=run).values_list("question_set__revision__case__external_id", "verdict"))
    assert verdicts == {"PMC-QC-1": Verdict.MET, "PMC-QC-2": Verdict.INVALID}
    second = QuestionSetJudgement.objects.get(run=run, question_set__revision__case__external_id="PMC-QC-2")
    assert second.checks[1]["solvability"] is None and second.error == "not a boolean verdict: MCQ 2"
    assert json.loads(second.raw_output)["pmc"] == "PMC-QC-2"
    assert import_judge([{"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block()]},
                         {"pmc": "PMC-QC-2", "judge": {"mcqs": [judge_block(), judge_block(True, "maybe")]}}]
                        ).status == "unchanged"


def test_an_unknown_record_or_an_mcq_out_of_range_refuses_the_whole_file() -> None:
    import_liveclin(1)
    report = import_judge([
        {"pmc": "PMC-QC-1", "judge": [judge_block(), judge_block(), judge_block()]},
        {"pmc": "PMC-NOWHERE", "judge": [judge_block()]},
    ])
    assert report.status == "refused"
    assert [(e.file, e.record, e.field, e.message) for e in report.errors] == [
        ("judge.jsonl", 1, "judge[3]", "MCQ 3 out of range: the question set of 'PMC-QC-1' has 2 MCQs"),
        ("judge.jsonl", 2, "pmc",
         "no question set 'PMC-NOWHERE' in dataset 'LiveClin'; import the liveclin release first"),
    ]
    assert not GraderRun.objects.exists() and not QuestionSetJudgement.objects.exists()


def test_the_command_reads_a_side_file_of_case_reports(tmp_path, capsys) -> None:
    data = tmp_path / "lc.jsonl"
    data.write_bytes(jsonl([liveclin_record(1, report=False), liveclin_record(2, report=False)]))
    side = tmp_path / "reports.json"
    side.write_text(json.dumps({"PMC-QC-2": "# Report two"}))
    call_command("import_cases", "liveclin", str(data), "--case-reports", str(side), "--json")
    assert json.loads(capsys.readouterr().out)["status"] == "imported"
    reports = dict(QuestionSet.objects.values_list("revision__case__external_id", "case_report"))
    assert reports == {"PMC-QC-1": "", "PMC-QC-2": "# Report two"}


def test_a_side_file_error_names_the_side_file(tmp_path) -> None:
    report = release_import(fmt="liveclin", data=jsonl([liveclin_record(1)]), file_name="lc.jsonl",
                            dataset_name="LiveClin", release_label="x",
                            case_reports=("reports.jsonl", b'{"pmc": "PMC-QC-1", "case_report": 7}\n'))
    assert report.status == "refused"
    assert [(e.file, e.record, e.field) for e in report.errors] == [("reports.jsonl", 1, "case_report")]


def test_a_changed_case_report_makes_a_new_revision_and_an_unchanged_one_does_not() -> None:
    import_liveclin(1)
    again = release_import(fmt="liveclin", data=jsonl([liveclin_record(1)]) + b"\n", file_name="again.jsonl",
                           dataset_name="LiveClin", release_label="again")
    assert again.unchanged["cases"] == 1
    changed = liveclin_record(1)
    changed["case_report"] += " Corrected dose."
    report = release_import(fmt="liveclin", data=jsonl([changed]), file_name="changed.jsonl",
                            dataset_name="LiveClin", release_label="changed")
    assert report.created["revisions"] == 1


def test_a_release_read_back_hashes_like_its_import_case_report_included() -> None:
    from cases.models import CaseRevision
    from cases.release_data import release_cases

    release = import_liveclin(2)
    rebuilt = release_cases(release)
    assert [c.content_hash for c in rebuilt] == list(
        CaseRevision.objects.filter(release=release).order_by("pk").values_list("content_hash", flat=True)
    )
    assert rebuilt[0].question_set.case_report.startswith("# Case report 1")


def test_the_api_takes_the_side_file_too(admin) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.urls import reverse
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("cases_api:import"), {
        "format": "liveclin", "release": "api",
        "file": SimpleUploadedFile("lc.jsonl", jsonl([liveclin_record(1, report=False)])),
        "case_reports": SimpleUploadedFile("reports.json", json.dumps({"PMC-QC-1": "API report"}).encode()),
    }, format="multipart")
    assert response.status_code == 201, response.json()
    assert QuestionSet.objects.get().case_report == "API report"


def test_a_judge_block_inside_a_liveclin_record_imports_as_its_prescreen() -> None:
    record = dict(liveclin_record(1), judge=[judge_block(), judge_block(False, True)])
    report = release_import(fmt="liveclin", data=jsonl([record]), file_name="lc.jsonl", dataset_name="LiveClin",
                            release_label="embedded", grader_model="o3")
    assert report.status == "imported" and report.created["grader_decisions"] == 2
    judgement = QuestionSetJudgement.objects.get(run_id=report.grader_run_id)
    assert judgement.verdict == Verdict.NOT_MET and judgement.question_set.revision.case.external_id == "PMC-QC-1"
    bad = dict(liveclin_record(2), judge=[judge_block(), judge_block(), judge_block()])
    refused = release_import(fmt="liveclin", data=jsonl([bad]), file_name="bad.jsonl", dataset_name="LiveClin",
                             release_label="bad")
    assert [(e.record, e.field) for e in refused.errors] == [(1, "judge[3]")]
