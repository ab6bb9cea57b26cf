"""Parsers for data collected outside medreview: judge scores, pairwise verdicts, physician labels.

Bytes in, dataclasses and every problem (file, record, field) out; no database.
"""

from __future__ import annotations

import json

import pytest

from cases.importers import outside as O


def jsonl(rows: list[dict]) -> bytes:
    return "\n".join(json.dumps(r) for r in rows).encode()


def where(result: O.OutsideParseResult) -> list[tuple[int | None, str | None]]:
    return [(i.record, i.field) for i in result.issues]


SCORES_CSV = (
    "judge,case_id,model,axis,score,scale_min,scale_max\n"
    "Llama-3.1-70B,c1,alpha,Patient Safety,4,1,5\n"
    "Llama-3.1-70B,c1,alpha,Practicality,2,1,5\n"
    "Llama-3.1-70B,c1,alpha,,0.75,,\n"
)


def test_judge_scores_csv_per_axis_and_holistic() -> None:
    res = O.parse_judge_scores(SCORES_CSV.encode(), "scores.csv")
    assert res.issues == [] and res.records == 3 and res.kind == "judge-scores"
    safety, prac, overall = res.rows
    assert (safety.record, safety.axis, safety.score, safety.normalized) == (2, "Patient Safety", 4.0, 0.75)
    assert prac.normalized == 0.25
    assert (overall.axis, overall.scale_min, overall.scale_max, overall.normalized) == ("", 0.0, 1.0, 0.75)


def test_judge_scores_jsonl_and_json_list() -> None:
    rows = [{"judge": "J", "case_id": 7, "model": "m", "score": 3, "scale_min": 1, "scale_max": 5}]
    for data in (jsonl(rows), json.dumps(rows).encode()):
        res = O.parse_judge_scores(data, "scores.jsonl")
        assert res.issues == []
        assert (res.rows[0].case_id, res.rows[0].normalized) == ("7", 0.5)


def test_judge_scores_refused_with_located_errors() -> None:
    bad = (
        "judge,case_id,model,axis,score,scale_min,scale_max\n"
        "J,c1,m,Safety,6,1,5\n"          # outside the scale
        "J,c1,m,Risk,3,1,5\n"
        "J,c1,m,Risk,4,1,5\n"            # duplicate of line 3
        "J,c2,m,,high,,\n"               # not a number
        "J,c3,m,,3,1,\n"                 # half a scale
        ",c4,m,,0.5,,\n"                 # no judge
        "J,c5,m,,2,,\n"                  # outside 0..1 without a scale
    )
    res = O.parse_judge_scores(bad.encode(), "bad.csv")
    assert where(res) == [
        (2, "score"), (4, "axis"), (5, "score"), (6, "scale_max"), (7, "judge"), (8, "score"),
    ]
    assert all(i.file == "bad.csv" for i in res.issues)
    assert "outside the scale 1..5" in res.issues[0].message
    assert "first seen at record 3" in res.issues[1].message


def test_missing_csv_column_is_one_file_error() -> None:
    res = O.parse_judge_scores(b"judge,case_id,model\nJ,c1,m\n", "s.csv")
    assert [(i.record, i.message) for i in res.issues] == [(1, "missing column(s): score")]


def test_pairwise_verdicts_with_presented_order() -> None:
    rows = [
        {"judge": "J", "case_id": "c1", "model_a": "x", "model_b": "y", "order": "ab", "verdict": "A"},
        {"judge": "J", "case_id": "c1", "model_a": "x", "model_b": "y", "order": "BA", "verdict": "draw"},
        {"judge": "J", "case_id": "c2", "model_a": "x", "model_b": "y", "order": "ab", "verdict": "invalid"},
    ]
    res = O.parse_pairwise_verdicts(jsonl(rows), "pairs.jsonl")
    assert res.issues == []
    assert [(r.order, r.verdict) for r in res.rows] == [("ab", "A"), ("ba", "tie"), ("ab", "invalid")]


def test_pairwise_verdicts_refused_with_located_errors() -> None:
    rows = [
        {"judge": "J", "case_id": "c1", "model_a": "x", "model_b": "x", "order": "ab", "verdict": "A"},
        {"judge": "J", "case_id": "c1", "model_a": "x", "model_b": "y", "order": "first", "verdict": "A"},
        {"judge": "J", "case_id": "c1", "model_a": "x", "model_b": "y", "order": "ab", "verdict": "C"},
        {"judge": "J", "case_id": "c2", "model_a": "x", "model_b": "y", "order": "ab", "verdict": "A"},
        {"judge": "J", "case_id": "c2", "model_a": "x", "model_b": "y", "order": "ab", "verdict": "B"},
        "not an object",
    ]
    res = O.parse_pairwise_verdicts(jsonl(rows), "pairs.jsonl")
    assert where(res) == [(1, "model_b"), (2, "order"), (3, "verdict"), (5, "order"), (6, None)]


LABELS_CSV = (
    "item_key,rater,task,field,label,round,comment\n"
    "case:12,dr-a,narrative-quality,,2,1,\n"
    "response:5,dr-a,criterion-met,criterion:31,met,,looks fine\n"
    "response:5,dr-b,likert,axis:Patient Safety,4,2,\n"
)


def test_physician_labels_long_format() -> None:
    res = O.parse_physician_labels(LABELS_CSV.encode(), "labels.csv")
    assert res.issues == [] and res.kind == "physician-labels"
    first, second, third = res.rows
    assert (first.item_key, first.rater, first.task, first.field_key, first.label, first.round) == (
        "case:12", "dr-a", "narrative-quality", "", "2", 1)
    assert (second.field_key, second.comment, second.round) == ("criterion:31", "looks fine", 1)
    assert (third.field_key, third.round) == ("axis:Patient Safety", 2)


def test_physician_labels_refused_with_located_errors() -> None:
    bad = (
        "item_key,rater,task,field,label,round\n"
        "case:12,dr-a,narrative-quality,,2,0\n"           # round 0
        "case:12,dr-a,narrative-quality,crit:1,2,1\n"      # unknown field form
        "case:12,dr-a,narrative-quality,,1,1\n"
        "case:12,dr-a,narrative-quality,,2,1\n"            # duplicate
        "case:13,,narrative-quality,,2,1\n"                # no rater
        "case:13,dr-b,narrative-quality,,,1\n"             # no label
    )
    res = O.parse_physician_labels(bad.encode(), "labels.csv")
    assert where(res) == [(2, "round"), (3, "field"), (5, "label"), (6, "rater"), (7, "label")]


@pytest.mark.parametrize("parser", list(O.OUTSIDE_PARSERS.values()))
def test_empty_and_undecodable_files(parser) -> None:
    assert [i.message for i in parser(b"", "e.csv").issues] == ["empty file: expected a header row"]
    res = parser(b"\xff\xfe{}", "x.jsonl")
    assert res.rows == [] and "not UTF-8" in res.issues[0].message


DATASET_KEYED_CSV = (
    "case_id,model,model_b,rater,task,criterion,mcq,axis,label,round\n"
    "MDB-1,,,dr-a,narrative-quality,,,,2,\n"                       # a case item
    "MDB-1,gpt-4.1,,dr-a,grader-reliability,3,,,met,\n"            # a response's third criterion
    "MDB-1,gpt-4.1,claude-3,dr-b,pairwise-preference,,,,A,\n"       # a pair
    "LC-7,,,dr-b,liveclin-factual,,2,,yes,\n"                       # the second MCQ of a question set
    "MDB-2,gpt-4.1,,dr-b,likert-medic,,,Patient safety,4,2\n"      # a Likert axis, round 2
)


def test_physician_labels_keyed_by_what_the_researcher_has() -> None:
    res = O.parse_physician_labels(DATASET_KEYED_CSV.encode(), "labels.csv", dataset_keys=True)
    assert res.issues == []
    case, criterion, pair, mcq, axis = res.rows
    assert (case.item_key, case.case_id, case.model, case.field_key, case.criterion) == ("", "MDB-1", "", "", None)
    assert (criterion.case_id, criterion.model, criterion.criterion, criterion.field_key) == ("MDB-1", "gpt-4.1", 3, "")
    assert (pair.model, pair.model_b, pair.label) == ("gpt-4.1", "claude-3", "A")
    assert (mcq.case_id, mcq.mcq, mcq.criterion) == ("LC-7", 2, None)
    assert (axis.field_key, axis.round) == ("axis:Patient safety", 2)
    # Internal keys still work in the same file format.
    assert O.parse_physician_labels(LABELS_CSV.encode(), "labels.csv", dataset_keys=True).issues == []


def test_physician_labels_keyed_by_case_id_refused_with_located_errors() -> None:
    bad = (
        "item_key,case_id,model,model_b,rater,task,field,criterion,mcq,axis,label\n"
        "response:5,MDB-1,,,dr-a,grader-reliability,,1,,,met\n"        # 2: both keys
        ",,,,dr-a,narrative-quality,,,,,2\n"                            # 3: no item at all
        ",MDB-1,,claude-3,dr-a,pairwise-preference,,,,,A\n"             # 4: model_b without model
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,,0,,,met\n"            # 5: criterion 0
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,criterion:9,2,,,met\n"  # 6: field and criterion
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,,2,1,,met\n"           # 7: criterion and mcq
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,,2.5,,,met\n"          # 8: not a whole number
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,,3,,,met\n"
        ",MDB-1,gpt-4.1,,dr-a,grader-reliability,,3,,,not_met\n"        # 10: duplicate of 9
        "response:5,,gpt-4.1,,dr-a,grader-reliability,,,,,met\n"        # 11: model with an item_key
        ",MDB-1,gpt-4.1,gpt-4.1,dr-a,pairwise-preference,,,,,A\n"       # 12: a pair of one model
    )
    res = O.parse_physician_labels(bad.encode(), "labels.csv", dataset_keys=True)
    assert where(res) == [(2, "case_id"), (3, "case_id"), (4, "model"), (5, "criterion"), (6, "criterion"),
                          (7, "mcq"), (8, "criterion"), (10, "label"), (11, "model"), (12, "model_b")]
    assert all(e.file == "labels.csv" for e in res.issues)
    messages = {e.record: e.message for e in res.issues}
    assert "not both" in messages[2] and "case id" in messages[3] and "first seen at record 9" in messages[10]


def test_a_labels_csv_without_an_item_column_is_refused_as_a_whole() -> None:
    res = O.parse_physician_labels(b"rater,task,label\ndr-a,narrative-quality,2\n", "labels.csv", dataset_keys=True)
    assert [(e.record, e.message) for e in res.issues] == [(1, "missing column(s): case_id or item_key")]
    # Without dataset keys (what the importer asks for today) the study's item key stays required.
    res = O.parse_physician_labels(DATASET_KEYED_CSV.encode(), "labels.csv")
    assert [(e.record, e.message) for e in res.issues] == [(1, "missing column(s): item_key")]


def test_physician_labels_keyed_by_case_id_in_json_lines() -> None:
    rows = [
        {"case_id": 17, "model": "gpt-4.1", "rater": "dr-a", "task": "grader-reliability", "criterion": 2,
         "label": "met"},
        {"case_id": "q9", "rater": "dr-a", "task": "narrative-quality", "label": 2, "axis": ""},
    ]
    res = O.parse_physician_labels(jsonl(rows), "labels.jsonl", dataset_keys=True)
    assert [(r.case_id, r.criterion) for r in res.rows] == [("17", 2)]
    assert where(res) == [(2, "axis")]
