"""import_cases and load_demo from the command line."""

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from accounts.models import Profile
from cases.models import MCQ, Case, ModelResponse, QuestionSet, Release
from graders.models import GraderDecision

FIXTURES = Path(__file__).parent / "fixtures"


def import_cases(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_cases", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_it_prints_one_json_object_with_the_documented_shape() -> None:
    code, out, _ = import_cases("livemedbench", str(FIXTURES / "livemedbench_cases.json"), "--release", "v202601", "--json")
    assert code == 0
    report = json.loads(out)  # exactly one object: anything else on stdout would fail to parse
    assert report["status"] == "imported"
    assert report["created"] == {"cases": 3, "criteria": 15, "question_sets": 0, "mcqs": 0, "responses": 0,
                                 "grader_decisions": 0, "revisions": 0}
    assert report["errors"] == []
    assert Release.objects.get().label == "v202601"


@pytest.mark.django_db
def test_it_says_unchanged_the_second_time_and_exits_zero() -> None:
    path = str(FIXTURES / "liveclin.jsonl")
    import_cases("liveclin", path, "--json")
    code, out, _ = import_cases("liveclin", path, "--json")
    assert code == 0
    assert json.loads(out)["status"] == "unchanged"
    assert QuestionSet.objects.count() == 3 and MCQ.objects.count() == 10


@pytest.mark.django_db
def test_it_exits_non_zero_on_refusal_with_errors_in_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('[{"case_id": "1", "narrative": "n", "core_request": "q", "rubric_items": [{"criterion": "c", "points": 40}]}]')
    code, out, _ = import_cases("livemedbench", str(bad), "--json")
    assert code == 1
    report = json.loads(out)
    assert report["status"] == "refused"
    assert report["errors"] == [{"file": "bad.json", "record": 1, "field": "rubric_items[1].points",
                                 "message": "points 40 outside -10..10"}]
    assert Case.objects.count() == 0


@pytest.mark.django_db
def test_it_prints_errors_for_people_without_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"prompt_id": "x",\n')
    code, out, err = import_cases("healthbench", str(bad))
    assert code == 1
    assert "Refused bad.jsonl" in err and "line 1" in err and out == ""


@pytest.mark.django_db
def test_it_dry_runs_from_the_command_line() -> None:
    code, out, _ = import_cases("generic", str(FIXTURES / "generic.csv"), "--dry-run", "--json")
    assert code == 0
    assert json.loads(out)["status"] == "dry-run"
    assert Case.objects.count() == 0


@pytest.mark.django_db
def test_it_imports_responses_and_grades_with_model_and_grader_options() -> None:
    import_cases("livemedbench", str(FIXTURES / "livemedbench_cases.json"))
    import_cases("livemedbench-responses", str(FIXTURES / "livemedbench_responses.json"), "--model", "m1")
    code, out, _ = import_cases("livemedbench-grades", str(FIXTURES / "evaluation_results_model.json"),
                                "--model", "m1", "--grader-model", "grader-z", "--json")
    assert code == 0 and json.loads(out)["created"]["grader_decisions"] == 15
    assert GraderDecision.objects.filter(run__grader_model="grader-z").count() == 15


@pytest.mark.django_db
def test_it_fails_cleanly_on_a_missing_file() -> None:
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="cannot read the file"):
        call_command("import_cases", "livemedbench", "/nonexistent/file.json")


@pytest.mark.django_db
def test_it_loads_the_demo_twice_without_error_or_duplicates() -> None:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    counts = (Case.objects.count(), ModelResponse.objects.count(), GraderDecision.objects.count())
    call_command("load_demo", stdout=io.StringIO())
    assert (Case.objects.count(), ModelResponse.objects.count(), GraderDecision.objects.count()) == counts
    assert counts[0] == 8 + 3 + 4 + 4 + 2
    assert counts[1] == 24
    assert set(Case.objects.values_list("dataset__name", flat=True)) == {
        "LiveMedBench", "LiveClin", "HealthBench", "ClinConsensus"}
    admin1 = get_user_model().objects.get(username="admin1")
    assert admin1.is_superuser and admin1.check_password("demo-pass-2026")
    demo_users = ["physician1", "physician2", "inspector1", "researcher1", "admin1"]
    assert dict(Profile.objects.filter(user__username__in=demo_users).values_list("user__username", "role")) == {
        "physician1": "physician", "physician2": "physician", "inspector1": "inspector",
        "researcher1": "researcher", "admin1": "admin"}
    assert "Demo logins" in out.getvalue()
