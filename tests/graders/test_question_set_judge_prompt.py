"""The question-set judge (LiveClin's Judge agent): its Figure 14 prompt, the two information views
inside it, and parsing of what it answers."""

import json

from graders.kinds.prompts import (
    DEFAULT_PROMPTS,
    QUESTION_SET_JUDGE,
    json_schema,
    parse_question_set_judge,
    question_set_values,
    render,
    validate_template,
)

MCQS = [
    {"stage": "Diagnosis", "question": "Which diagnosis?", "options": {"B": "Pheo", "A": "Conn"},
     "correct_answer": "B", "image_details": [], "table_details": []},
    {"stage": "Investigation", "question": "Next imaging?", "options": {"A": "CT", "B": "CXR"},
     "correct_answer": "A",
     "image_details": [{"caption": "CAPTION-MARKER adrenal mass", "type": "CT", "url": "https://x/1.png"}],
     "table_details": [{"caption": "Labs", "markdown": "| a | b |"}]},
]


def values() -> dict:
    return question_set_values(
        scenario="A 29-year-old with headaches.", case_report="REPORT-MARKER full text",
        captions=[{"mcq": 2, "image": 1, "caption": "CAPTION-MARKER adrenal mass"}], mcqs=MCQS,
    )


def test_the_default_prompt_follows_figure_14() -> None:
    prompt = DEFAULT_PROMPTS[QUESTION_SET_JUDGE]
    for phrase in (
        "QA Verifier for Medical Case Simulations", "Information Segregation", "Backend Auditor",
        '"Examinee"', "Erase all memory of the privileged information",
        '"factual_validation"', '"is_factually_correct"', '"logical_solvability"', '"is_logically_solvable"',
    ):
        assert phrase in prompt
    assert validate_template(QUESTION_SET_JUDGE, prompt) == []
    assert validate_template(QUESTION_SET_JUDGE, "no placeholders") == [
        "The template must contain {case_report}.", "The template must contain {scenario}.",
        "The template must contain {mcqs}.",
    ]


def test_privileged_text_sits_only_in_the_privileged_block() -> None:
    system, user = render(DEFAULT_PROMPTS[QUESTION_SET_JUDGE], values())
    for placeholder in ("{case_report}", "{image_captions}", "{scenario}", "{mcqs}", "{mcq_count}"):
        assert placeholder not in system["content"] + user["content"]
    privileged, visible = user["content"].split("<test_taker_visible_information>")
    assert "REPORT-MARKER" in privileged and "CAPTION-MARKER" in privileged
    assert "REPORT-MARKER" not in visible and "CAPTION-MARKER" not in visible
    assert "[image 1: CT] https://x/1.png" in visible
    assert "A. Conn\nB. Pheo\nCorrect answer: B" in visible
    assert "Validate each of the 2 questions" in visible
    assert "exactly one entry for each of the 2 questions" in system["content"]


def test_a_missing_report_is_said_not_replaced() -> None:
    got = question_set_values(scenario="S", case_report=" ", captions=[], mcqs=MCQS[:1])
    assert got["case_report"] == "(The source case report is not available.)"
    assert got["image_captions"] == "(No image captions.)"


def answer(*entries: dict) -> str:
    return json.dumps({"mcqs": list(entries)})


def entry(n: int, factual: object = True, solvable: object = True) -> dict:
    return {"mcq": n, "factual_validation": {"is_factually_correct": factual, "explanation": "f"},
            "logical_solvability": {"is_logically_solvable": solvable, "explanation": "s"}}


def test_it_parses_every_mcq_verdict() -> None:
    got = parse_question_set_judge("```json\n" + answer(entry(1), entry(2, True, False)) + "\n```", mcq_count=2)
    assert got.valid and got.error == ""
    assert [(n, m.factual.passed, m.solvability.passed) for n, m in got.mcqs.items()] == [
        (1, True, True), (2, True, False),
    ]


def test_incomplete_or_out_of_range_or_non_boolean_output_is_invalid_but_kept() -> None:
    missing = parse_question_set_judge(answer(entry(1)), mcq_count=2)
    assert missing.error == "Invalid output: no verdict for MCQ 2" and list(missing.mcqs) == [1]
    extra = parse_question_set_judge(answer(entry(1), entry(2), entry(3)), mcq_count=2)
    assert extra.error == "Invalid output: MCQ 3 out of range (the set has 2)" and list(extra.mcqs) == [1, 2]
    text = parse_question_set_judge(answer(entry(1, "true")), mcq_count=1)
    assert text.error == "Invalid output: not a boolean verdict: MCQ 1 factual"
    assert parse_question_set_judge("I think it is fine.", mcq_count=1).error.startswith("Invalid output: no JSON")


def test_structured_output_asks_for_both_blocks_per_mcq() -> None:
    schema = json_schema(QUESTION_SET_JUDGE)["json_schema"]["schema"]
    item = schema["properties"]["mcqs"]["items"]
    assert item["required"] == ["mcq", "factual_validation", "logical_solvability"]
    assert item["properties"]["logical_solvability"]["required"] == ["is_logically_solvable", "explanation"]
