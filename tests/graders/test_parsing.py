"""Parsing grader output: what counts as a decision, and what is kept as invalid."""

import random

import pytest

from graders.endpoints.client import backoff_delay
from graders.kinds import prompts
from graders.models import GraderKind, PairwiseVerdict, Verdict


@pytest.mark.parametrize(("text", "verdict", "reasoning"), [
    ('{"met": true, "evidence": "Rest and fluids."}', Verdict.MET, "Rest and fluids."),
    ('```json\n{"met": false, "reasoning": "Not mentioned."}\n```', Verdict.NOT_MET, "Not mentioned."),
    ('Sure! {"criteria_met": true, "explanation": "Says viral."} Hope that helps', Verdict.MET, "Says viral."),
    ('[{"question": "Recommends antibiotics", "met": true, "reasoning": "Suggests amoxicillin."}]', Verdict.MET,
     "Suggests amoxicillin."),
])
def test_it_reads_every_accepted_output_form(text, verdict, reasoning):
    parsed = prompts.parse_rubric(text, criterion="Recommends antibiotics")
    assert (parsed.verdict, parsed.reasoning, parsed.error) == (verdict, reasoning, "")


def test_it_picks_this_criterion_from_a_livemedbench_list():
    text = (
        '[{"question": "Says viral", "met": true, "reasoning": "a"},'
        ' {"question": "Recommends antibiotics?", "met": false, "reasoning": "b"}]'
    )
    parsed = prompts.parse_rubric(text, criterion="Recommends antibiotics")
    assert (parsed.verdict, parsed.reasoning) == (Verdict.NOT_MET, "b")


@pytest.mark.parametrize("text", [
    "", "Yes, it is met.", '{"met": "yes"}', '{"evidence": "x"}', '{"met": 1}', "[1, 2]", '{"met": tru',
    '[{"question": "a", "met": true}, {"question": "b", "met": false}]',
])
def test_it_calls_anything_without_a_boolean_decision_invalid(text):
    parsed = prompts.parse_rubric(text, criterion="c")
    assert parsed.verdict == Verdict.INVALID
    assert parsed.error.startswith("Invalid output")


@pytest.mark.parametrize(("text", "kind", "raw", "normalized"), [
    ('{"score": 8, "explanation": "good"}', GraderKind.LLM_JUDGE, 8, 7 / 9),
    ("Solid answer. Rating: [[10]]", GraderKind.LLM_JUDGE, 10, 1.0),
    ('{"score": 1, "explanation": "unsafe"}', GraderKind.LIKERT_JUDGE, 1, 0.0),
    ('{"score": 4}', GraderKind.LIKERT_JUDGE, 4, 0.75),
])
def test_it_normalises_judge_scores_to_the_unit_interval(text, kind, raw, normalized):
    parsed = prompts.parse_score(text, kind=kind)
    assert parsed.verdict == Verdict.MET
    assert parsed.raw_score == raw
    assert parsed.normalized_score == pytest.approx(normalized)


@pytest.mark.parametrize("text", ['{"score": 6}', '{"score": 0}', '{"score": "high"}', '{"score": true}', "fine"])
def test_it_calls_out_of_range_or_missing_likert_scores_invalid(text):
    parsed = prompts.parse_score(text, kind=GraderKind.LIKERT_JUDGE)
    assert parsed.verdict == Verdict.INVALID
    assert parsed.normalized_score is None


@pytest.mark.parametrize(("text", "verdict"), [
    ('{"winner": "A", "explanation": "x"}', PairwiseVerdict.A),
    ('{"winner": "tie"}', PairwiseVerdict.TIE),
    ("B covers red flags. [[B]]", PairwiseVerdict.B),
    ("Equal. [[C]]", PairwiseVerdict.TIE),
    ('{"winner": "both"}', PairwiseVerdict.INVALID),
    ("I prefer the second.", PairwiseVerdict.INVALID),
])
def test_it_reads_pairwise_verdicts(text, verdict):
    assert prompts.parse_pairwise(text).verdict == verdict


def test_it_fills_placeholders_without_tripping_on_braces_in_medical_text():
    messages = prompts.render(prompts.RUBRIC_GRADER_PROMPT, {
        "query": "Rash {left arm}", "reference": "", "response": 'Use {"dose": 5}', "criterion": "Mentions dose",
        "points": -3, "axis": "Safety",
    })
    assert [m["role"] for m in messages] == ["system", "user"]
    assert "Rash {left arm}" in messages[1]["content"]
    assert 'Use {"dose": 5}' in messages[1]["content"]
    assert '<criterion points="-3" axis="Safety">Mentions dose</criterion>' in messages[1]["content"]
    assert '{"met": true or false' in messages[0]["content"]


def test_it_asks_for_a_strict_json_schema_per_kind():
    schema = prompts.json_schema(GraderKind.RUBRIC_GRADER)
    assert schema["type"] == "json_schema"
    assert schema["json_schema"]["schema"]["properties"]["met"] == {"type": "boolean"}
    likert = prompts.json_schema(GraderKind.LIKERT_JUDGE)["json_schema"]["schema"]["properties"]["score"]
    assert (likert["minimum"], likert["maximum"]) == (1, 5)


def test_it_backs_off_exponentially_with_full_jitter():
    rng = random.Random(7)
    for attempt, upper in ((1, 0.5), (2, 1.0), (3, 2.0), (8, 10.0)):
        delays = [backoff_delay(attempt, base=0.5, cap=10.0, rng=rng) for _ in range(300)]
        assert all(0 <= d <= upper for d in delays)
        assert max(delays) > 0.8 * upper  # spread over the whole window, not a fixed wait
        assert min(delays) < 0.2 * upper


def test_it_refuses_a_template_without_the_placeholders_its_kind_needs():
    assert prompts.validate_template(GraderKind.PAIRWISE_JUDGE, "Compare {response_a}") == [
        "The template must contain {response_b}."
    ]
    assert prompts.validate_template(GraderKind.RUBRIC_GRADER, prompts.RUBRIC_GRADER_PROMPT) == []
