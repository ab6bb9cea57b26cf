"""release_import: one transaction per file, idempotent, revisions instead of edits."""

import json
from pathlib import Path

import pytest

from cases.models import (
    MCQ,
    Case,
    CaseRevision,
    Dataset,
    ModelResponse,
    QuestionSet,
    Release,
    RubricCriterion,
    Specialty,
    Theme,
)
from cases.services import release_import
from graders.models import GraderDecision, GraderRun, Verdict

FIXTURES = Path(__file__).parent / "fixtures"
TABLES = (Dataset, Release, Case, CaseRevision, RubricCriterion, QuestionSet, MCQ, ModelResponse, GraderRun,
          GraderDecision, Specialty, Theme)


def row_counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in TABLES}


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def run(fmt: str, data: bytes, *, dataset: str = "LiveMedBench", file_name: str = "f.json", **kwargs):
    return release_import(fmt=fmt, data=data, file_name=file_name, dataset_name=dataset, release_label="v1", **kwargs)


def import_livemedbench_with_grades():
    run("livemedbench", fixture("livemedbench_cases.json"))
    run("livemedbench-responses", fixture("livemedbench_responses.json"), model_name="model-a")
    return run("livemedbench-grades", fixture("evaluation_results_model.json"), model_name="model-a")


@pytest.mark.django_db
def test_it_imports_livemedbench_cases_with_criteria_and_release() -> None:
    report = run("livemedbench", fixture("livemedbench_cases.json"), file_name="merged_data_rubric.json")
    assert report.status == "imported"
    assert report.created == {"cases": 3, "criteria": 15, "question_sets": 0, "mcqs": 0, "responses": 0,
                              "grader_decisions": 0, "revisions": 0}
    release = Release.objects.get()
    assert (release.dataset.name, release.label, release.format, release.counts["cases"]) == (
        "LiveMedBench", "v1", "livemedbench", 3)
    case = Case.objects.get(external_id="109002500")
    revision = case.current_revision
    assert revision.number == 1 and revision.release == release
    assert list(revision.criteria.values_list("order", flat=True)) == [1, 2, 3, 4, 5]
    assert revision.criteria.get(order=5).points == -6
    assert Case.objects.get(external_id="LMB-D003").current_revision.language == "zh"
    d004 = Case.objects.get(external_id="LMB-D004").current_revision
    assert d004.extra["hospital_department"] == "Cardiology"
    assert d004.raw["case_id"] == "LMB-D004"


@pytest.mark.django_db
def test_it_attaches_responses_and_grades_to_the_current_revision() -> None:
    report = import_livemedbench_with_grades()
    assert report.status == "imported" and report.created["grader_decisions"] == 15
    run_ = GraderRun.objects.get()
    assert run_.kind == "rubric-grader"
    assert run_.grader_model == "gpt-4.1-2025-04-14"
    assert run_.name == "gpt-4.1-2025-04-14 on model-a"
    assert ModelResponse.objects.filter(model_name="model-a").count() == 3
    decision = GraderDecision.objects.select_related("criterion", "response").get(
        criterion__text__startswith="Recommends testing for group A"
    )
    assert decision.verdict in {Verdict.MET, Verdict.NOT_MET}
    assert decision.response.revision_id == decision.criterion.revision_id
    assert json.loads(decision.raw_output)["points"] == 8


@pytest.mark.django_db
def test_it_imports_liveclin_question_sets_with_ordered_mcqs() -> None:
    report = run("liveclin", fixture("liveclin.jsonl"), dataset="LiveClin", file_name="lc.jsonl")
    assert (report.created["cases"], report.created["question_sets"], report.created["mcqs"]) == (3, 3, 10)
    qs = QuestionSet.objects.get(revision__case__external_id="PMC-DEMO-0001")
    assert [m.stage for m in qs.mcqs.order_by("order")] == ["Diagnosis", "Investigation", "Treatment", "Follow-up"]
    assert qs.scenario_tables[0]["markdown"].count("|") > 10
    assert qs.revision.rarity == "Rare" and qs.revision.disease_cluster == "Adrenal disorders"


@pytest.mark.django_db
def test_it_imports_healthbench_with_themes_and_generic_with_specialties() -> None:
    run("healthbench", fixture("healthbench.jsonl"), dataset="HealthBench", file_name="hb.jsonl")
    run("generic", fixture("generic.json"), dataset="ClinConsensus")
    run("generic", fixture("generic.csv"), dataset="ClinConsensus", file_name="g.csv")
    hb = Case.objects.get(external_id="hb-demo-002").current_revision
    assert len(hb.conversation) == 3
    assert list(hb.themes.values_list("name", flat=True)) == ["context_seeking"]
    cc = Case.objects.get(external_id="CC-DEMO-01").current_revision
    assert sorted(cc.specialties.values_list("name", flat=True)) == ["Cardiology", "Gastroenterology"]
    assert (cc.difficulty, cc.register) == ("medium", "professional")
    assert Case.objects.filter(dataset__name="ClinConsensus").count() == 4


@pytest.mark.django_db
def test_it_reports_the_same_file_again_as_unchanged_and_writes_nothing() -> None:
    import_livemedbench_with_grades()
    before = row_counts()
    for fmt, name, model in [
        ("livemedbench", "livemedbench_cases.json", None),
        ("livemedbench-responses", "livemedbench_responses.json", "model-a"),
        ("livemedbench-grades", "evaluation_results_model.json", "model-a"),
    ]:
        assert run(fmt, fixture(name), model_name=model).status == "unchanged"
    assert row_counts() == before


@pytest.mark.django_db
def test_it_leaves_unchanged_cases_alone_in_a_new_file() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    cases = json.loads(fixture("livemedbench_cases.json"))
    reformatted = json.dumps(cases, indent=4, ensure_ascii=True).encode()  # same content, other bytes
    report = run("livemedbench", reformatted)
    assert report.status == "imported"
    assert report.created == dict.fromkeys(report.created, 0)
    assert report.unchanged["cases"] == 3
    assert CaseRevision.objects.count() == 3


@pytest.mark.django_db
def test_it_adds_a_revision_when_text_changes_and_keeps_the_old_one() -> None:
    import_livemedbench_with_grades()
    old_revision = Case.objects.get(external_id="LMB-D004").current_revision
    old_criteria = set(old_revision.criteria.values_list("pk", flat=True))
    old_decisions = set(GraderDecision.objects.filter(criterion__revision=old_revision).values_list("criterion_id", flat=True))

    cases = json.loads(fixture("livemedbench_cases.json"))
    cases[2]["rubric_items"][0]["criterion"] = "Tells the user to call an ambulance now"
    report = run("livemedbench", json.dumps(cases).encode(), file_name="v2.json")

    assert report.status == "imported"
    assert report.created["revisions"] == 1 and report.created["cases"] == 0
    assert report.created["criteria"] == 5
    assert report.changed == ["LMB-D004"]
    assert report.unchanged["cases"] == 2
    case = Case.objects.get(external_id="LMB-D004")
    assert case.current_revision.number == 2
    assert case.current_revision.criteria.get(order=1).text == "Tells the user to call an ambulance now"
    # The old text, its criteria and the grader decisions made on them are untouched.
    old_revision.refresh_from_db()
    assert old_revision.criteria.get(order=1).text == "Tells the user to call emergency services immediately"
    assert set(old_revision.criteria.values_list("pk", flat=True)) == old_criteria
    assert set(GraderDecision.objects.filter(criterion__revision=old_revision).values_list("criterion_id", flat=True)) == old_decisions
    assert not GraderDecision.objects.filter(criterion__revision=case.current_revision).exists()


@pytest.mark.django_db
def test_it_makes_an_earlier_revision_current_again_when_the_text_goes_back() -> None:
    original = fixture("livemedbench_cases.json")
    run("livemedbench", original)
    cases = json.loads(original)
    cases[0]["narrative"] += " Edited."
    run("livemedbench", json.dumps(cases).encode())
    report = run("livemedbench", json.dumps(json.loads(original), indent=1).encode())
    case = Case.objects.get(external_id="109002500")
    assert case.current_revision.number == 1
    assert report.changed == ["109002500"]
    assert case.revisions.count() == 2


@pytest.mark.django_db
def test_it_writes_nothing_on_a_dry_run_but_reports_what_would_change() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    cases = json.loads(fixture("livemedbench_cases.json"))
    cases[1]["narrative"] += "补充"
    cases.append({**cases[0], "case_id": "NEW-1"})
    before = row_counts()
    report = run("livemedbench", json.dumps(cases, ensure_ascii=False).encode(), dry_run=True)
    assert report.status == "dry-run"
    assert (report.created["cases"], report.created["revisions"], report.created["criteria"]) == (1, 1, 10)
    assert report.changed == ["LMB-D003"]
    assert report.unchanged["cases"] == 2
    assert row_counts() == before


@pytest.mark.django_db
def test_it_writes_nothing_on_a_dry_run_of_a_new_dataset() -> None:
    report = run("liveclin", fixture("liveclin.jsonl"), dataset="LiveClin", dry_run=True)
    assert report.status == "dry-run" and report.created["mcqs"] == 10
    assert row_counts() == dict.fromkeys(row_counts(), 0)


BAD_FILES = {
    "invalid json": ("livemedbench", b'[{"case_id": "1",'),
    "not utf-8": ("livemedbench", "[]".encode("utf-16")),
    "missing field": ("livemedbench", b'[{"case_id": "1", "core_request": "q", "rubric_items": []}]'),
    "wrong type": ("livemedbench", b'[{"case_id": "1", "narrative": ["x"], "core_request": "q", "rubric_items": []}]'),
    "duplicate id": ("livemedbench", json.dumps([
        {"case_id": "1", "narrative": "n", "core_request": "q", "rubric_items": []}] * 2).encode()),
    "points out of range": ("livemedbench", b'[{"case_id": "1", "narrative": "n", "core_request": "q", '
                                             b'"rubric_items": [{"criterion": "c", "points": 12}]}]'),
    "empty criterion": ("livemedbench", b'[{"case_id": "1", "narrative": "n", "core_request": "q", '
                                         b'"rubric_items": [{"criterion": "", "points": 2}]}]'),
    "mcq answer not an option": ("liveclin", b'{"pmc": "P1", "exam_creation": {"final_policy": {"scenario": "s", '
                                             b'"mcqs": [{"question": "q", "options": {"A": "a", "B": "b"}, '
                                             b'"correct_answer": "C"}]}}}'),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_it_refuses_a_bad_file_and_writes_nothing(name: str) -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))  # existing data must stay as it is
    fmt, data = BAD_FILES[name]
    before = row_counts()
    # A good case before the bad one proves the whole file is refused, not just the bad record.
    report = run(fmt, data, file_name="bad.json")
    assert report.status == "refused"
    assert report.errors and all(e.file == "bad.json" for e in report.errors)
    assert row_counts() == before


@pytest.mark.django_db
def test_it_refuses_a_whole_file_when_only_its_last_record_is_bad() -> None:
    cases = json.loads(fixture("livemedbench_cases.json"))
    cases[-1]["rubric_items"][0]["points"] = 50
    report = run("livemedbench", json.dumps(cases).encode())
    assert report.status == "refused"
    assert [(e.record, e.field) for e in report.errors] == [(3, "rubric_items[1].points")]
    assert row_counts() == dict.fromkeys(row_counts(), 0)


@pytest.mark.django_db
def test_it_refuses_grades_whose_criterion_matches_none_and_writes_nothing() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    run("livemedbench-responses", fixture("livemedbench_responses.json"), model_name="model-a")
    grades = json.loads(fixture("evaluation_results_model.json"))
    grades[1]["evaluations"]["rubric_2"]["criterion"] = "A criterion nobody wrote"
    before = row_counts()
    report = run("livemedbench-grades", json.dumps(grades, ensure_ascii=False).encode(), model_name="model-a")
    assert report.status == "refused"
    assert [(e.record, e.field) for e in report.errors] == [(2, "evaluations.rubric_2.criterion")]
    assert "matches none of the current criteria of case 'LMB-D003'" in report.errors[0].message
    assert row_counts() == before


@pytest.mark.django_db
def test_it_refuses_responses_for_unknown_cases_or_without_a_model_name() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    responses = json.loads(fixture("livemedbench_responses.json"))
    responses[0]["case_id"] = "nope"
    before = row_counts()
    unknown = run("livemedbench-responses", json.dumps(responses).encode(), model_name="m")
    assert [(e.record, e.field) for e in unknown.errors] == [(1, "case_id")]
    no_model = run("livemedbench-responses", fixture("livemedbench_responses.json"))
    assert [e.field for e in no_model.errors] == ["model_name"]
    assert row_counts() == before


@pytest.mark.django_db
def test_it_refuses_grades_before_the_responses_exist() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    report = run("livemedbench-grades", fixture("evaluation_results_model.json"), model_name="model-a")
    assert report.status == "refused"
    assert "import the responses first" in report.errors[0].message


@pytest.mark.django_db
def test_it_refuses_a_different_response_for_the_same_text_and_model() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    run("livemedbench-responses", fixture("livemedbench_responses.json"), model_name="model-a")
    responses = json.loads(fixture("livemedbench_responses.json"))
    responses[0]["model_response"] = "Something else entirely."
    report = run("livemedbench-responses", json.dumps(responses).encode(), model_name="model-a")
    assert report.status == "refused"
    assert [(e.record, e.field) for e in report.errors] == [(1, "model_response")]
    assert ModelResponse.objects.get(revision__case__external_id="109002500").text != "Something else entirely."


@pytest.mark.django_db
def test_it_keeps_invalid_grader_scores_as_invalid_decisions() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    run("livemedbench-responses", fixture("livemedbench_responses.json"), model_name="model-a")
    grades = json.loads(fixture("evaluation_results_model.json"))
    grades[0]["evaluations"]["rubric_1"]["score"] = None
    run("livemedbench-grades", json.dumps(grades).encode(), model_name="model-a", grader_model="judge-x")
    invalid = GraderDecision.objects.get(verdict=Verdict.INVALID)
    assert invalid.criterion.order == 1 and invalid.error
    assert GraderRun.objects.get().grader_model == "judge-x"


@pytest.mark.django_db
def test_it_reports_progress_through_the_callback() -> None:
    seen: list[tuple[str, int, int]] = []
    run("livemedbench", fixture("livemedbench_cases.json"), progress=lambda *a: seen.append(a))
    stages = [s for s, _, _ in seen]
    assert stages[0] == "parse" and "write" in stages and stages[-1] == "done"


@pytest.mark.django_db
def test_it_refuses_in_a_dry_run_what_the_import_would_refuse() -> None:
    run("livemedbench", fixture("livemedbench_cases.json"))
    before = row_counts()
    report = run("livemedbench-responses", fixture("livemedbench_responses.json"), dataset="Elsewhere",
                 model_name="m", dry_run=True)
    assert report.status == "refused"
    assert [e.field for e in report.errors] == ["dataset"]
    assert report.created == dict.fromkeys(report.created, 0)
    assert row_counts() == before


@pytest.mark.django_db
def test_it_keeps_ratings_on_the_text_the_physician_saw_after_a_new_revision(physician_a) -> None:
    from annotation.models import Assignment, Item, ItemKind, Rating, Scale, Study, TaskTarget, TaskType

    run("livemedbench", fixture("livemedbench_cases.json"))
    old = Case.objects.get(external_id="LMB-D003").current_revision
    old_criterion = old.criteria.get(order=1)
    scale = Scale.objects.create(slug="t-agree", name="Agree")
    task = TaskType.objects.create(slug="t-criterion", name="Criterion", scale=scale,
                                   target=TaskTarget.CRITERION, item_kind=ItemKind.CASE)
    item = Item.objects.create(study=Study.objects.create(name="s"), kind=ItemKind.CASE, key="case:1", revision=old)
    rating = Rating.objects.create(
        assignment=Assignment.objects.create(item=item, rater=physician_a), task=task,
        field_key=f"criterion:{old_criterion.pk}", criterion=old_criterion, label="agree",
    )

    cases = json.loads(fixture("livemedbench_cases.json"))
    cases[1]["rubric_items"][0]["criterion"] = "指出脱水"
    run("livemedbench", json.dumps(cases, ensure_ascii=False).encode(), file_name="v2.json")

    rating.refresh_from_db()
    item.refresh_from_db()
    assert Case.objects.get(external_id="LMB-D003").current_revision.number == 2
    assert rating.criterion.text == old_criterion.text and rating.criterion.revision_id == old.pk
    assert item.revision_id == old.pk
