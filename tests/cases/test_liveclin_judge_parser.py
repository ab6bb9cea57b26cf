"""The `liveclin-judge` parser: Appendix G's per-MCQ verdict blocks in, plain dataclasses and every
located problem out; matching against the question sets (unknown record, MCQ out of range)."""

import json

from cases.importers import liveclin_judge
from cases.importers.base import Issues


def verdict(factual: object = True, solvable: object = True, why: str = "ok") -> dict:
    return {
        "factual_validation": {"is_factually_correct": factual, "explanation": f"fact: {why}"},
        "logical_solvability": {"is_logically_solvable": solvable, "explanation": f"logic: {why}"},
    }


def lines(*records: dict) -> bytes:
    return "\n".join(json.dumps(r) for r in records).encode()


def test_it_reads_per_mcq_verdicts_in_order_with_explanations() -> None:
    data = lines(
        {"pmc": "PMC1", "judge": [verdict(), verdict(False, True, "dose wrong")]},
        {"pmid": 990000002, "judge": {"mcqs": [verdict(True, False, "needs the caption")]}},
    )
    result = liveclin_judge.parse(data, "judge.jsonl")
    assert result.issues == [] and result.records == 2
    first, second = result.judgements
    assert (first.external_id, second.external_id, second.id_key) == ("PMC1", "990000002", "pmid")
    assert [m.position for m in first.mcqs] == [1, 2]
    assert first.mcqs[1].factual.passed is False
    assert first.mcqs[1].factual.explanation == "fact: dose wrong"
    assert first.mcqs[1].solvability.passed is True
    assert first.mcqs[1].field == "judge[2]"
    assert second.mcqs[0].field == "judge.mcqs[1]"
    assert (first.passed, second.passed) == (False, False)
    assert liveclin_judge.parse(lines({"pmc": "P", "judge": [verdict()]}), "j").judgements[0].passed is True


def test_explicit_numbers_place_verdicts_whatever_their_order() -> None:
    numbered = {"pmc": "P", "judge": {"mcqs": [dict(verdict(False), mcq=2), dict(verdict(), mcq=1)]}}
    keyed = {"pmc": "Q", "judge": {"MCQ 2": verdict(False), "MCQ 1": verdict()}}
    result = liveclin_judge.parse(lines(numbered, keyed), "j")
    assert result.issues == []
    for judgement in result.judgements:
        assert [(m.position, m.factual.passed) for m in judgement.mcqs] == [(1, True), (2, False)]


def test_a_non_boolean_verdict_is_kept_as_invalid_not_dropped() -> None:
    result = liveclin_judge.parse(lines({"pmc": "P", "judge": [verdict("yes", None)]}), "j")
    assert result.issues == []
    mcq = result.judgements[0].mcqs[0]
    assert (mcq.factual.passed, mcq.factual.valid, mcq.solvability.valid) == (None, False, False)
    assert mcq.factual.raw == {"is_factually_correct": "yes", "explanation": "fact: ok"}
    assert result.judgements[0].passed is False


def test_structural_problems_are_located() -> None:
    data = lines(
        {"judge": [verdict()]},
        {"pmc": "A"},
        {"pmc": "B", "judge": [{"factual_validation": "yes"}]},
        {"pmc": "C", "judge": [verdict(), dict(verdict(), mcq=1)]},
        {"pmc": "D", "judge": "all fine"},
        {"pmc": "A", "judge": []},
        {"pmc": "E", "judge": [dict(verdict(), mcq=0)]},
    )
    issues = liveclin_judge.parse(data, "judge.jsonl").issues
    assert [(i.record, i.field) for i in issues] == [
        (1, "pmc"),
        (2, "judge"),
        (3, "judge[1].factual_validation"),
        (3, "judge[1].logical_solvability"),
        (4, "judge[2]"),
        (5, "judge"),
        (6, "pmc"),
        (6, "judge"),
        (7, "judge[1].mcq"),
    ]
    assert all(i.file == "judge.jsonl" for i in issues)
    assert issues[4].message == "a second verdict for MCQ 1 (first at judge[1])"
    assert issues[6].message == "duplicate id 'A' (first seen at record 2)"


def test_matching_reports_an_unknown_record_and_an_mcq_out_of_range() -> None:
    data = lines(
        {"pmc": "PMC1", "judge": [verdict(), verdict(), verdict()]},
        {"pmc": "PMC-GONE", "judge": [verdict()]},
        {"doi": "10.1/x", "judge": [verdict()]},
    )
    parsed = liveclin_judge.parse(data, "judge.jsonl")
    issues = Issues("judge.jsonl")
    liveclin_judge.match(parsed.judgements, {"PMC1": 2, "10.1/x": 2}, issues, dataset="LiveClin")
    assert [(i.record, i.field, i.message) for i in issues.items] == [
        (1, "judge[3]", "MCQ 3 out of range: the question set of 'PMC1' has 2 MCQs"),
        (2, "pmc", "no question set 'PMC-GONE' in dataset 'LiveClin'; import the liveclin release first"),
        (3, "judge", "no verdict for MCQ 2 of 2; the Judge assesses every MCQ"),
    ]


def test_bad_json_lines_are_reported_by_line() -> None:
    result = liveclin_judge.parse(b'{"pmc": "P", "judge": [\n', "j")
    assert [(i.record, i.field) for i in result.issues] == [(1, None)]
    assert result.judgements == []
