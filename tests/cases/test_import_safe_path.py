"""Issue 22, finding 4: the import kinds added after issue 9 go through the same safe path.

Judge scores and pairwise verdicts, CSV files of every kind, LiveClin's case-report side file and
translation files: input that used to pass the dry run and then fail at confirm (DataError), answer
500 (csv.Error, a NUL or lone surrogate reaching the database) or print a traceback is refused with
a located error (file, record, field) by the command line, the upload page and the API, and nothing
is written. Duplicate keys and duplicate CSV columns, which used to let the last one win, are refused.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from rest_framework.test import APIClient

from cases.importers.limits import JUDGE_NAME_MAX
from cases.importers.safe_load import CSV_FIELD_MAX
from cases.models import Case, ImportJob, Release
from cases.services import release_import
from graders.models import GraderRun, JudgeScore, PairwiseJudgement
from tests.cases.test_import_hardening import Bad  # (name, fmt, file, bytes, record, field, message)
from tests.conftest import login
from tests.factories import make_case, make_release, make_response

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures"

SCORES_HEADER = "judge,case_id,model,axis,score,scale_min,scale_max\n"
PAIRS_HEADER = "judge,case_id,model_a,model_b,order,verdict\n"
GENERIC_HEADER = "id,narrative,criterion\n"


@pytest.fixture(autouse=True)
def dataset_with_responses(db):
    """Cases and responses for the outside formats, so a file that parses would also plan and write."""
    release = make_release(dataset_name="MEDIC-demo")
    for i in range(2):
        revision = make_case(release=release, external_id=f"q{i}", narrative=f"question {i}")
        for model in ("alpha", "beta"):
            make_response(revision, model_name=model, text=f"{model} {i}")


LONG_JUDGE = "J" * (JUDGE_NAME_MAX + 1)
HUGE_CELL = "x" * (CSV_FIELD_MAX + 1)

BAD_INPUTS = [
    # Passed the dry run, then failed at confirm with a DataError (GraderRun.name / grader_model).
    Bad("a judge name too long for its run (scores)", "judge-scores", "long-judge.csv",
        (SCORES_HEADER + f"{'J' * 201},q0,alpha,,0.5,,\n").encode(), 2, "judge", f"at most {JUDGE_NAME_MAX} fit"),
    Bad("a judge name just over the limit (scores, JSONL)", "judge-scores", "long-judge.jsonl",
        json.dumps({"judge": LONG_JUDGE, "case_id": "q0", "model": "alpha", "score": 0.5}).encode(),
        1, "judge", f"at most {JUDGE_NAME_MAX} fit"),
    Bad("a judge name too long for its run (pairwise)", "pairwise-verdicts", "long-judge-pairs.csv",
        (PAIRS_HEADER + f"{'J' * 201},q0,alpha,beta,ab,A\n").encode(), 2, "judge", f"at most {JUDGE_NAME_MAX} fit"),
    Bad("an axis too long for its column", "judge-scores", "long-axis.csv",
        (SCORES_HEADER + f"J,q0,alpha,{'a' * 101},4,1,5\n").encode(), 2, "axis", "at most 100 fit"),
    Bad("a prompt version too long for its column", "pairwise-verdicts", "long-pv.jsonl",
        json.dumps({"judge": "J", "case_id": "q0", "model_a": "alpha", "model_b": "beta", "order": "ab",
                    "verdict": "A", "prompt_version": "v" * 101}).encode(), 1, "prompt_version", "at most 100 fit"),
    # csv.Error used to answer 500.
    Bad("a CSV cell over the csv module's limit (scores)", "judge-scores", "huge.csv",
        (SCORES_HEADER + "J,q0,alpha,,0.5,,\n" + f"J,q1,alpha,{HUGE_CELL},0.5,,\n").encode(),
        3, None, f"longer than {CSV_FIELD_MAX:,} characters"),
    Bad("a CSV cell over the limit (pairwise)", "pairwise-verdicts", "huge-pairs.csv",
        (PAIRS_HEADER + f"J,q0,alpha,beta,ab,{HUGE_CELL}\n").encode(), 2, None, f"longer than {CSV_FIELD_MAX:,}"),
    Bad("a CSV cell over the limit (generic)", "generic", "huge.csv",
        (GENERIC_HEADER + f"C-1,{HUGE_CELL},c\n").encode(), 2, None, f"longer than {CSV_FIELD_MAX:,}"),
    Bad("a header cell over the limit (generic)", "generic", "huge-header.csv",
        (f"id,narrative,criterion,{HUGE_CELL}\nC-1,n,c,x\n").encode(), 1, None, f"longer than {CSV_FIELD_MAX:,}"),
    Bad("a header cell over the limit (scores)", "judge-scores", "huge-header-scores.csv",
        (f"judge,case_id,model,score,{HUGE_CELL}\nJ,q0,alpha,0.5,x\n").encode(), 1, None,
        f"longer than {CSV_FIELD_MAX:,}"),
    Bad("a quote left open at the end (scores)", "judge-scores", "open-quote.csv",
        (SCORES_HEADER + 'J,q0,alpha,"Patient safety,4,1,5\n').encode(), 2, None, "invalid CSV"),
    # Duplicate columns used to let the last one win.
    Bad("a column twice (scores)", "judge-scores", "dup-col.csv",
        (b"judge,case_id,model,score,score\nJ,q0,alpha,0.1,0.9\n"), 1, "score", "appears twice"),
    Bad("a column twice (pairwise)", "pairwise-verdicts", "dup-col-pairs.csv",
        (b"judge,case_id,model_a,model_b,order,verdict,verdict\nJ,q0,alpha,beta,ab,A,B\n"), 1, "verdict",
        "appears twice"),
    Bad("a column twice (generic)", "generic", "dup-col.csv",
        (b"id,narrative,criterion,narrative\nC-1,first,c,second\n"), 1, "narrative", "appears twice"),
    Bad("a column twice once trimmed (generic)", "generic", "dup-col-space.csv",
        (b"id,narrative,criterion, id\nC-1,n,c,C-2\n"), 1, "id", "appears twice"),
    # JSON values that could not be stored, in the outside formats' JSON Lines.
    Bad("a lone surrogate in a judge name", "judge-scores", "surrogate.jsonl",
        b'{"judge": "J\\ud800", "case_id": "q0", "model": "alpha", "score": 0.5}', 1, "judge", "lone surrogate"),
    Bad("NUL in a pairwise verdict's model", "pairwise-verdicts", "nul.jsonl",
        b'{"judge": "J", "case_id": "q0", "model_a": "al\\u0000pha", "model_b": "beta", "order": "ab", '
        b'"verdict": "A"}', 1, "model_a", "NUL character"),
    Bad("a duplicate key in a judge score", "judge-scores", "dup.jsonl",
        b'{"judge": "J", "case_id": "q0", "model": "alpha", "score": 0.1, "score": 0.9}', 1, None,
        "duplicate key 'score'"),
    Bad("a score scale overflowing to infinity", "judge-scores", "overflow.csv",
        (SCORES_HEADER + "J,q0,alpha,,1e308,-1e308,1e308\n").encode(), 2, "score", "cannot be normalised"),
]
IDS = [b.name for b in BAD_INPUTS]


def assert_located(errors: list[dict], bad: Bad) -> dict:
    matching = [e for e in errors if bad.message in e["message"]]
    assert matching, errors
    error = matching[0]
    assert (error["file"], error["record"], error["field"]) == (bad.file_name, bad.record, bad.field), error
    return error


def assert_nothing_written() -> None:
    assert not JudgeScore.objects.exists() and not PairwiseJudgement.objects.exists()
    assert not GraderRun.objects.exists()
    assert Release.objects.count() == 1  # the fixture's
    assert Case.objects.count() == 2


def run_command(bad: Bad, tmp_path: Path, *options: str) -> dict:
    path = tmp_path / bad.file_name
    path.write_bytes(bad.data)
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("import_cases", bad.fmt, str(path), "--dataset", "MEDIC-demo", "--json", *options,
                     stdout=out, stderr=io.StringIO())
    assert exited.value.code == 1
    return json.loads(out.getvalue())


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_it_is_refused_by_the_dry_run_of_the_command(bad: Bad, tmp_path: Path) -> None:
    report = run_command(bad, tmp_path, "--dry-run")
    assert report["status"] == "refused"
    assert_located(report["errors"], bad)
    assert_nothing_written()


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_it_is_refused_by_the_command(bad: Bad, tmp_path: Path) -> None:
    report = run_command(bad, tmp_path)
    assert report["status"] == "refused"
    assert_located(report["errors"], bad)
    assert_nothing_written()


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry run", "import"])
@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_it_is_refused_by_the_api(bad: Bad, dry_run: bool, admin) -> None:
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("cases_api:import"), {
        "format": bad.fmt, "dataset": "MEDIC-demo", "release": "v1", "dry_run": dry_run,
        "file": SimpleUploadedFile(bad.file_name, bad.data),
    }, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert_located(response.json()["errors"], bad)
    assert_nothing_written()


@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_it_is_refused_by_the_upload_page_at_validation(bad: Bad, client: Client, admin) -> None:
    login(client, admin)
    response = client.post(reverse("cases:import_upload"), {
        "format": bad.fmt, "file": SimpleUploadedFile(bad.file_name, bad.data), "dataset": "MEDIC-demo",
        "release_label": "v1", "model_name": "", "grader_model": "",
    })
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.REFUSED  # never offered for confirmation
    error = assert_located(job.validation["errors"], bad)
    page = client.get(reverse("cases:import_job", args=[job.pk]))
    assert page.status_code == 200 and escape(error["message"]).encode() in page.content
    assert_nothing_written()


def test_a_judge_name_at_the_limit_imports_and_its_run_name_fits() -> None:
    judge = "J" * JUDGE_NAME_MAX
    data = (SCORES_HEADER + f"{judge},q0,alpha,,0.5,,\n").encode()
    report = release_import(fmt="judge-scores", data=data, file_name="ok.csv", dataset_name="MEDIC-demo",
                            release_label="v1")
    assert report.status == "imported", report.errors
    run = GraderRun.objects.get()
    assert run.grader_model == judge and len(run.name) <= GraderRun._meta.get_field("name").max_length
    pairs = (PAIRS_HEADER + f"{judge},q0,alpha,beta,ab,A\n").encode()
    report = release_import(fmt="pairwise-verdicts", data=pairs, file_name="ok-pairs.csv",
                            dataset_name="MEDIC-demo", release_label="v2")
    assert report.status == "imported", report.errors


@pytest.mark.parametrize("newline", ["\r", "\r\n", "\n"], ids=["CR only", "CRLF", "LF"])
def test_csv_files_with_any_line_ending_import_with_their_line_numbers(newline: str) -> None:
    rows = [SCORES_HEADER.strip(), "J,q0,alpha,,0.5,,", "J,q1,beta,,0.25,,"]
    report = release_import(fmt="judge-scores", data=newline.join(rows).encode(), file_name="s.csv",
                            dataset_name="MEDIC-demo", release_label="v1")
    assert report.status == "imported", report.errors
    assert sorted(JudgeScore.objects.values_list("normalized_score", flat=True)) == [0.25, 0.5]
    bad = [*rows[:2], "J,q9,alpha,,0.5,,"]
    refused = release_import(fmt="judge-scores", data=newline.join(bad).encode(), file_name="b.csv",
                             dataset_name="MEDIC-demo", release_label="v2")
    assert [(e.record, e.field) for e in refused.errors] == [(3, "case_id")]


def test_a_generic_csv_with_cr_line_endings_imports() -> None:
    data = (GENERIC_HEADER + "C-1,A patient.,Says hello\n").replace("\n", "\r").encode()
    report = release_import(fmt="generic", data=data, file_name="g.csv", dataset_name="G", release_label="v1")
    assert report.status == "imported", report.errors
    assert report.created["cases"] == 1 and report.created["criteria"] == 1


# --- LiveClin's case-report side file (command line and API; the upload page takes no side file) -----

LIVECLIN = (FIXTURES / "liveclin.jsonl").read_bytes()
SIDE_BAD = [
    ("a lone surrogate in a report", b'{"PMC-DEMO-0001": "report \\ud800"}', None, "PMC-DEMO-0001", "lone surrogate"),
    ("a lone surrogate in an id", b'{"PMC-\\udc00": "report"}', None, None, "lone surrogate"),
    ("NUL in a report", b'{"PMC-DEMO-0001": "report \\u0000 end"}', None, "PMC-DEMO-0001", "NUL character"),
    ("NUL in a JSONL report", b'{"pmc": "PMC-DEMO-0001", "case_report": "a\\u0000b"}\n', 1, "case_report",
     "NUL character"),
    ("a surrogate in a JSONL report", b'{"pmc": "PMC-DEMO-0001", "case_report": "a\\ud800b"}\n', 1, "case_report",
     "lone surrogate"),
    ("a duplicate id", b'{"PMC-DEMO-0001": "first", "PMC-DEMO-0001": "second"}', None, None,
     "duplicate key 'PMC-DEMO-0001'"),
    ("a duplicate key in a JSONL line", b'{"pmc": "PMC-DEMO-0001", "case_report": "a", "case_report": "b"}\n', 1,
     None, "duplicate key 'case_report'"),
    ("nesting 5,000 deep", b'{"PMC-DEMO-0001": ' + b"[" * 5000 + b"]" * 5000 + b"}", None, None, "nested more than"),
]
SIDE_IDS = [s[0] for s in SIDE_BAD]


def assert_side_file_refused(errors: list[dict], record: int | None, field: str | None, message: str) -> None:
    matching = [e for e in errors if message in e["message"]]
    assert matching, errors
    assert (matching[0]["file"], matching[0]["record"], matching[0]["field"]) == ("reports.json", record, field)
    assert not Release.objects.filter(format="liveclin").exists()


@pytest.mark.parametrize(("name", "side", "record", "field", "message"), SIDE_BAD, ids=SIDE_IDS)
def test_a_bad_side_file_is_refused_by_the_api(name: str, side: bytes, record, field, message, admin) -> None:
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("cases_api:import"), {
        "format": "liveclin", "release": "2025H1", "file": SimpleUploadedFile("lc.jsonl", LIVECLIN),
        "case_reports": SimpleUploadedFile("reports.json", side),
    }, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert_side_file_refused(response.json()["errors"], record, field, message)


@pytest.mark.parametrize(("name", "side", "record", "field", "message"), SIDE_BAD, ids=SIDE_IDS)
def test_a_bad_side_file_is_refused_by_the_command(name: str, side: bytes, record, field, message, tmp_path) -> None:
    (tmp_path / "lc.jsonl").write_bytes(LIVECLIN)
    (tmp_path / "reports.json").write_bytes(side)
    out = io.StringIO()
    with pytest.raises(SystemExit):
        call_command("import_cases", "liveclin", str(tmp_path / "lc.jsonl"), "--case-reports",
                     str(tmp_path / "reports.json"), "--json", stdout=out, stderr=io.StringIO())
    assert_side_file_refused(json.loads(out.getvalue())["errors"], record, field, message)


# --- Accounts CSV (admins' bulk import) ----------------------------------------------------------------


def test_an_accounts_csv_with_a_huge_header_cell_is_refused_with_its_line(admin) -> None:
    api = APIClient()
    api.force_authenticate(admin)
    body = f"username,role,{HUGE_CELL}\nx,physician,y\n".encode()
    response = api.post(reverse("accounts_api:account_import"),
                        {"file": SimpleUploadedFile("people.csv", body)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"][0]["line"] == 1
    assert f"longer than {CSV_FIELD_MAX:,} characters" in response.json()["errors"][0]["message"]


# --- The limits are the columns' own, and every parser of outside data shares them -----------------------


def test_the_outside_limits_match_the_columns_they_guard() -> None:
    from annotation.models import Rating
    from cases.importers.limits import JUDGE_AXIS_MAX, PROMPT_VERSION_MAX, RATING_FIELD_KEY_MAX
    from graders.imports.outside import imported_run_name
    from graders.models import GraderKind

    run_name_max = GraderRun._meta.get_field("name").max_length
    assert GraderRun._meta.get_field("grader_model").max_length >= JUDGE_NAME_MAX
    for kind in (GraderKind.LLM_JUDGE, GraderKind.LIKERT_JUDGE, GraderKind.PAIRWISE_JUDGE):
        assert len(imported_run_name("J" * JUDGE_NAME_MAX, kind)) <= run_name_max
    assert JudgeScore._meta.get_field("axis").max_length == JUDGE_AXIS_MAX
    assert GraderRun._meta.get_field("prompt_version").max_length == PROMPT_VERSION_MAX
    assert Rating._meta.get_field("field_key").max_length == RATING_FIELD_KEY_MAX


@pytest.mark.parametrize(("body", "record", "field", "message"), [
    (f"item_key,rater,task,label\ncase:1,R-a,narrative-quality,{HUGE_CELL}\n", 2, None,
     f"longer than {CSV_FIELD_MAX:,}"),
    ("item_key,rater,task,label,label\ncase:1,R-a,narrative-quality,1,2\n", 1, "label", "appears twice"),
    ('item_key,rater,task,label\ncase:1,R-a,"narrative-quality,1\n', 2, None, "invalid CSV"),
], ids=["a huge cell", "a column twice", "a quote never closed"])
def test_the_physician_labels_parser_shares_the_csv_rules(body: str, record, field, message) -> None:
    # The labels import (annotation) parses with cases.importers.outside: the same CSV reader.
    from cases.importers.outside import parse_physician_labels

    result = parse_physician_labels(body.encode(), "labels.csv")
    assert [(i.record, i.field) for i in result.issues if message in i.message] == [(record, field)]


@pytest.mark.parametrize(("body", "message"), [
    (f"item_key,rater,task,label\ncase:1,R-a,narrative-quality,{HUGE_CELL}\n", f"longer than {CSV_FIELD_MAX:,}"),
    ('item_key,rater,task,label\ncase:1,R-a,"narrative-quality,1\n', "invalid CSV"),
    ("item_key,rater,task,label,label\ncase:1,R-a,narrative-quality,1,2\n", "appears twice"),
], ids=["a huge cell", "a quote never closed", "a column twice"])
def test_the_labels_import_route_refuses_a_broken_csv_with_a_400(body: str, message: str, admin) -> None:
    from tests.agreement.builders import make_study

    study = make_study(tasks=("narrative-quality",))
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(reverse("annotation_api:study_labels_import", args=[study.pk]),
                        {"file": SimpleUploadedFile("labels.csv", body.encode())}, format="multipart")
    assert response.status_code == 400, response.content[:300]
    assert any(message in e["message"] for e in response.json()["errors"])
