"""LiveClin's privileged source on import: the case report (record field or side file) and the image
captions are kept apart from what an examinee sees; the scenario never stands in for a report."""

import json
from pathlib import Path

from cases.importers import liveclin
from cases.importers.liveclin import (
    REPORT_FROM_RECORD,
    REPORT_FROM_SIDE_FILE,
    LiveClinQuestionSet,
    parse_case_reports,
    source_url,
)

FIXTURE = (Path(__file__).parent / "fixtures" / "liveclin.jsonl").read_bytes()
RECORDS = [json.loads(line) for line in FIXTURE.splitlines() if line.strip()]


def jsonl(records: list[dict]) -> bytes:
    return "\n".join(json.dumps(r, ensure_ascii=False) for r in records).encode()


def question_set(result, n: int = 0) -> LiveClinQuestionSet:  # noqa: ANN001
    qs = result.cases[n].question_set
    assert isinstance(qs, LiveClinQuestionSet)
    return qs


def test_a_case_report_field_is_the_privileged_source_and_not_extra() -> None:
    record = dict(RECORDS[0], case_report="# Case report\n\nA 29-year-old woman ... REPORT-MARKER")
    result = liveclin.parse(jsonl([record]), "lc.jsonl")
    assert result.issues == []
    qs = question_set(result)
    assert qs.case_report.endswith("REPORT-MARKER")
    assert qs.report_source == REPORT_FROM_RECORD
    assert "case_report" not in result.cases[0].extra
    # The scenario is still the scenario (and the revision's narrative), never the report.
    assert qs.scenario == RECORDS[0]["exam_creation"]["final_policy"]["scenario"]
    assert result.cases[0].narrative == qs.scenario


def test_a_missing_report_stays_missing_never_the_scenario() -> None:
    result = liveclin.parse(FIXTURE, "lc.jsonl")
    assert result.issues == []
    for n in range(3):
        qs = question_set(result, n)
        assert (qs.case_report, qs.report_source) == ("", "")


def test_a_blank_case_report_counts_as_missing_and_a_non_text_one_is_located() -> None:
    blank = liveclin.parse(jsonl([dict(RECORDS[0], case_report="   ")]), "lc.jsonl")
    assert question_set(blank).report_source == ""
    wrong = liveclin.parse(jsonl([dict(RECORDS[0], case_report=["x"])]), "lc.jsonl")
    assert [(i.record, i.field, i.message) for i in wrong.issues] == [
        (1, "case_report", "wrong type: expected text, got list")
    ]


def test_a_side_file_mapping_ids_to_reports_fills_records_without_one() -> None:
    side = json.dumps({"PMC-DEMO-0001": "Side report one", "990000002": "Side report two"}, indent=2).encode()
    reports, issues = parse_case_reports(side, "reports.json")
    assert issues == []
    record_one = dict(RECORDS[0], case_report="Own report wins")
    result = liveclin.parse(jsonl([record_one, RECORDS[1], RECORDS[2]]), "lc.jsonl", case_reports=reports)
    assert result.issues == []
    assert (question_set(result, 0).case_report, question_set(result, 0).report_source) == (
        "Own report wins", REPORT_FROM_RECORD,
    )
    assert (question_set(result, 1).case_report, question_set(result, 1).report_source) == (
        "Side report two", REPORT_FROM_SIDE_FILE,
    )
    assert question_set(result, 2).report_source == ""


def test_a_jsonl_side_file_works_too_and_its_errors_are_located() -> None:
    good = b'{"pmid": "990000002", "case_report": "JSONL report"}\n'
    assert parse_case_reports(good, "r.jsonl") == ({"990000002": "JSONL report"}, [])
    bad = good + b'{"pmid": "990000002", "case_report": "again"}\n{"doi": "x", "case_report": 3}\n{"title": "y"}\n'
    _, issues = parse_case_reports(bad, "r.jsonl")
    assert [(i.file, i.record, i.field) for i in issues] == [
        ("r.jsonl", 2, "pmid"), ("r.jsonl", 3, "case_report"), ("r.jsonl", 4, "pmc"),
    ]
    assert "duplicate id '990000002'" in issues[0].message
    mapping_issues = parse_case_reports(b'{"PMC1": 5}', "r.json")[1]
    assert [(i.field, i.message) for i in mapping_issues] == [("PMC1", "wrong type: expected text, got number")]


def test_a_side_file_id_that_no_record_names_refuses_the_file() -> None:
    result = liveclin.parse(jsonl([RECORDS[0]]), "lc.jsonl", case_reports={"PMC-NOPE": "r"})
    assert [(i.record, i.field) for i in result.issues] == [(None, "case_report")]
    assert "'PMC-NOPE'" in result.issues[0].message


def test_image_captions_are_collected_apart_from_the_images() -> None:
    result = liveclin.parse(FIXTURE, "lc.jsonl")
    first, second = question_set(result, 0), question_set(result, 1)
    assert first.captions == (
        {"mcq": 2, "image": 1, "caption": "Figure 1. Axial CT showing a 4 cm left adrenal mass"},
    )
    assert second.captions[0] == {"mcq": 0, "image": 1, "caption": "Chest radiograph on admission"}
    # The image details are kept exactly as imported (the export writes the text unchanged).
    assert first.mcqs[1].image_details == RECORDS[0]["exam_creation"]["final_policy"]["mcqs"][1]["image_details"]


def test_the_public_source_of_a_report_is_linked_from_its_id() -> None:
    assert source_url("pmc:PMC11000001") == "https://pmc.ncbi.nlm.nih.gov/articles/PMC11000001/"
    assert source_url("pmid:990000002") == "https://pubmed.ncbi.nlm.nih.gov/990000002/"
    assert source_url("doi:10.1000/x.1") == "https://doi.org/10.1000/x.1"
    assert source_url("") == source_url("pmc:") == ""
