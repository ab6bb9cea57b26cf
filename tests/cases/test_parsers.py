"""The parsers on their own: real-format fixtures in, dataclasses and every problem out."""

import json
from pathlib import Path

import pytest

from cases.importers import parse
from cases.importers.base import ImportIssue

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def issues_as_tuples(issues: list[ImportIssue]) -> list[tuple[int | None, str | None]]:
    return [(i.record, i.field) for i in issues]


def lmb(cases: list[dict]) -> bytes:
    return json.dumps(cases, ensure_ascii=False).encode()


def lmb_case(**overrides: object) -> dict:
    case = {
        "case_id": "c1", "post_time": "2024-01-02T03:04:05", "narrative": "Fever for two days.",
        "core_request": "What should I do?", "doctor_advice": "Rest.",
        "rubric_items": [{"criterion": "Advises rest", "points": 5, "axe": "Accuracy"}],
    }
    case.update(overrides)
    return case


def test_it_parses_livemedbench_cases_keeping_axis_extra_keys_and_raw() -> None:
    result = parse("livemedbench", fixture("livemedbench_cases.json"), "cases.json")
    assert result.issues == []
    assert [c.external_id for c in result.cases] == ["109002500", "LMB-D003", "LMB-D004"]
    first, chinese, third = result.cases
    assert first.criteria[0].axis == "Accuracy"
    assert first.criteria[-1].points < 0
    assert third.criteria[0].axis == "Safety"  # spelled `axis` in this record
    assert third.extra == {"department": "general", "hospital_department": "Cardiology"}
    assert third.raw["hospital_department"] == "Cardiology"
    assert (first.language, chinese.language) == ("en", "zh")
    assert first.post_time is not None and first.post_time.tzinfo is not None


def test_it_reads_the_axis_key_as_well_as_axe() -> None:
    result = parse("livemedbench", lmb([lmb_case(rubric_items=[{"criterion": "x", "points": 1, "axis": "Safety"}])]), "f")
    assert result.cases[0].criteria[0].axis == "Safety"


def test_it_parses_responses_and_grades() -> None:
    responses = parse("livemedbench-responses", fixture("livemedbench_responses.json"), "r.json")
    grades = parse("livemedbench-grades", fixture("evaluation_results_model.json"), "g.json")
    assert responses.issues == [] and grades.issues == []
    assert [r.case_id for r in responses.responses] == ["109002500", "LMB-D003", "LMB-D004"]
    assert responses.responses[0].finish_reason == "stop"
    assert len(grades.grades[0].decisions) == 5
    assert {d.met for d in grades.grades[0].decisions} <= {True, False}


def test_it_parses_liveclin_ids_metadata_and_markdown_tables() -> None:
    result = parse("liveclin", fixture("liveclin.jsonl"), "lc.jsonl")
    assert result.issues == []
    assert [c.external_id for c in result.cases] == ["PMC-DEMO-0001", "990000002", "10.0000/demo.2025.003"]
    first = result.cases[0]
    assert (first.rarity, first.disease_cluster) == ("Rare", "Adrenal disorders")
    assert first.icd_chapter.startswith("Chapter 4")
    assert first.question_set is not None and len(first.question_set.mcqs) == 4
    assert first.question_set.scenario_tables[0]["markdown"].startswith("| Test | Result |")
    assert first.question_set.mcqs[1].image_details[0]["type"] == "CT"
    assert first.question_set.mcqs[0].correct_answer == "B"
    assert result.cases[2].language == "zh"


def test_it_parses_healthbench_conversation_axes_and_themes() -> None:
    result = parse("healthbench", fixture("healthbench.jsonl"), "hb.jsonl")
    assert result.issues == []
    multi_turn = result.cases[1]
    assert [t["role"] for t in multi_turn.conversation] == ["user", "assistant", "user"]
    # Narrative: every user turn; query: the last user turn.
    assert multi_turn.narrative.startswith("I keep getting headaches.\n\nAlmost daily")
    assert multi_turn.core_request.startswith("Almost daily")
    assert result.cases[0].themes == ("emergency_referrals",)
    assert result.cases[0].criteria[0].axis == "Accuracy"
    assert result.cases[0].criteria[3].axis == "Communication Quality"
    assert "level:example" in result.cases[0].criteria[0].tags
    assert result.cases[2].doctor_advice.startswith("80-90 mg/kg/day")


def test_it_parses_generic_json_and_csv_to_the_same_shape() -> None:
    from_json = parse("generic", fixture("generic.json"), "g.json")
    from_csv = parse("generic", fixture("generic.csv"), "g.csv")
    assert from_json.issues == [] and from_csv.issues == []
    first = from_json.cases[0]
    assert first.specialties == ("Gastroenterology", "Cardiology")
    assert (first.difficulty, first.register) == ("medium", "professional")
    assert from_json.cases[1].criteria[0].points == 1  # points default to 1
    csv_case = from_csv.cases[0]
    assert csv_case.specialties == ("Obstetrics", "Neurology")
    assert [c.points for c in csv_case.criteria] == [1, 1, -1]
    assert csv_case.doctor_advice.startswith("Available registry data")


def test_it_reports_invalid_json_with_line_and_column() -> None:
    result = parse("livemedbench", b'[\n  {"case_id": "a",\n   "narrative": }\n]', "bad.json")
    assert len(result.issues) == 1
    assert "line 3 column" in result.issues[0].message
    assert result.issues[0].file == "bad.json"


def test_it_reports_truncated_json() -> None:
    result = parse("livemedbench", lmb([lmb_case()])[:-10], "cut.json")
    assert "invalid JSON at line 1" in result.issues[0].message


def test_it_reports_invalid_jsonl_lines_by_line_number() -> None:
    good = fixture("liveclin.jsonl").splitlines()
    data = b"\n".join([good[0], b'{"pmc": "x", ', good[1]])
    result = parse("liveclin", data, "lc.jsonl")
    assert issues_as_tuples(result.issues) == [(2, None)]
    assert "line 2" in result.issues[0].message


def test_it_reports_bytes_that_are_not_utf8() -> None:
    result = parse("healthbench", "prompt_id,é".encode("latin-1"), "latin.jsonl")
    assert "not UTF-8" in result.issues[0].message


@pytest.mark.parametrize(
    ("case", "field", "message"),
    [
        (lmb_case(narrative=None), "narrative", "missing required field"),
        (lmb_case(core_request=7), "core_request", "wrong type"),
        (lmb_case(rubric_items={"a": 1}), "rubric_items", "wrong type"),
        (lmb_case(rubric_items=[{"criterion": "x", "points": 11}]), "rubric_items[1].points", "outside -10..10"),
        (lmb_case(rubric_items=[{"criterion": "x", "points": -11}]), "rubric_items[1].points", "outside -10..10"),
        (lmb_case(rubric_items=[{"criterion": "x", "points": "many"}]), "rubric_items[1].points", "wrong type"),
        (lmb_case(rubric_items=[{"criterion": "  ", "points": 3}]), "rubric_items[1].criterion", "must not be empty"),
        (lmb_case(post_time="yesterday"), "post_time", "not an ISO 8601"),
    ],
)
def test_it_names_record_field_and_reason(case: dict, field: str, message: str) -> None:
    result = parse("livemedbench", lmb([lmb_case(case_id="ok"), case]), "f.json")
    assert [(i.record, i.field) for i in result.issues] == [(2, field)]
    assert message in result.issues[0].message


def test_it_reports_duplicate_ids_within_a_file() -> None:
    result = parse("livemedbench", lmb([lmb_case(), lmb_case()]), "f.json")
    assert issues_as_tuples(result.issues) == [(2, "case_id")]
    assert "duplicate id 'c1'" in result.issues[0].message


def test_it_collects_every_error_in_one_pass() -> None:
    bad = [lmb_case(case_id="a", narrative=""), lmb_case(case_id="a", rubric_items=[{"points": 99}])]
    result = parse("livemedbench", lmb(bad), "f.json")
    assert issues_as_tuples(result.issues) == [
        (1, "narrative"), (2, "case_id"), (2, "rubric_items[1].criterion"), (2, "rubric_items[1].points"),
    ]


def test_it_rejects_an_mcq_answer_that_is_not_an_option() -> None:
    record = json.loads(fixture("liveclin.jsonl").splitlines()[0])
    record["exam_creation"]["final_policy"]["mcqs"][2]["correct_answer"] = "F"
    result = parse("liveclin", json.dumps(record).encode(), "lc.jsonl")
    assert issues_as_tuples(result.issues) == [(1, "exam_creation.final_policy.mcqs[3].correct_answer")]
    assert "'F' is not one of the options" in result.issues[0].message


def test_it_takes_the_liveclin_id_from_pmc_then_pmid_then_doi() -> None:
    record = {"pmid": "123", "doi": "10.1/x", "exam_creation": {"final_policy": {
        "scenario": "s", "mcqs": [{"question": "q", "options": {"A": "a", "B": "b"}, "correct_answer": "A"}]}}}
    assert parse("liveclin", json.dumps(record).encode(), "f").cases[0].external_id == "123"
    del record["pmid"]
    assert parse("liveclin", json.dumps(record).encode(), "f").cases[0].external_id == "10.1/x"
    del record["doi"]
    result = parse("liveclin", json.dumps(record).encode(), "f")
    assert "one of pmc, pmid, doi" in result.issues[0].message


def test_it_rejects_a_healthbench_case_without_rubrics_and_a_grade_without_criterion_text() -> None:
    hb = parse("healthbench", b'{"prompt_id": "p", "prompt": [{"role": "user", "content": "hi"}]}', "hb")
    assert issues_as_tuples(hb.issues) == [(1, "rubrics")]
    grades = parse("livemedbench-grades", b'[{"case_id": "c", "evaluations": {"rubric_1": {"score": 1}}}]', "g")
    assert issues_as_tuples(grades.issues) == [(1, "evaluations.rubric_1.criterion")]


def test_it_keeps_a_grade_that_is_not_zero_or_one_as_invalid() -> None:
    data = b'[{"case_id": "c", "evaluations": {"rubric_1": {"criterion": "x", "score": 0.5}}}]'
    assert parse("livemedbench-grades", data, "g").grades[0].decisions[0].met is None


def test_it_rejects_conflicting_and_scattered_csv_rows() -> None:
    data = (
        b"id,narrative,criterion,points\n"
        b"a,first text,c1,1\n"
        b"a,other text,c2,1\n"
        b"b,x,c3,1\n"
        b"a,,c4,1\n"
    )
    result = parse("generic", data, "g.csv")
    assert issues_as_tuples(result.issues) == [(3, "narrative"), (5, "id")]


def test_it_rejects_a_csv_without_required_columns() -> None:
    result = parse("generic", b"id,text\n1,x\n", "g.csv")
    assert issues_as_tuples(result.issues) == [(1, "narrative, criterion")]


def test_it_rejects_a_file_that_is_not_a_list() -> None:
    result = parse("livemedbench", b'{"case_id": "x"}', "f.json")
    assert "expected a JSON list of cases, got object" in result.issues[0].message


def test_it_detects_chinese_by_cjk_characters_unless_the_source_says() -> None:
    zh = parse("generic", json.dumps([{"id": "1", "narrative": "患者发热", "criteria": []}]).encode(), "g.json")
    said = parse("generic", json.dumps([{"id": "1", "narrative": "患者", "language": "en", "criteria": []}]).encode(), "g")
    assert zh.cases[0].language == "zh"
    assert said.cases[0].language == "en"


def test_it_gives_the_same_content_hash_whatever_the_key_order() -> None:
    a = lmb_case()
    b = dict(reversed(list(a.items())))
    first = parse("livemedbench", lmb([a]), "f").cases[0]
    assert first.content_hash == parse("livemedbench", lmb([b]), "f").cases[0].content_hash
    changed = parse("livemedbench", lmb([lmb_case(narrative="Fever for three days.")]), "f").cases[0]
    assert changed.content_hash != first.content_hash
