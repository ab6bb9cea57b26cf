"""Small builders for test data. Each returns saved rows with the fewest fields that make sense."""

import hashlib
import itertools

from cases.models import (
    MCQ,
    Case,
    CaseRevision,
    Dataset,
    ModelResponse,
    QuestionSet,
    Release,
    RubricCriterion,
)
from graders.models import GraderDecision, GraderRun, Verdict

_seq = itertools.count(1)


def make_release(*, dataset_name: str = "LiveMedBench", label: str = "v202601", fmt: str = "livemedbench") -> Release:
    dataset, _ = Dataset.objects.get_or_create(name=dataset_name)
    n = next(_seq)
    return Release.objects.create(
        dataset=dataset, label=label, format=fmt, file_name=f"file{n}.json",
        sha256=hashlib.sha256(str(n).encode()).hexdigest(),
    )


def make_case(
    *,
    release: Release | None = None,
    external_id: str | None = None,
    narrative: str = "45-year-old with three days of fever and cough.",
    core_request: str = "Do I need antibiotics?",
    doctor_advice: str = "Likely viral; rest, fluids, return if breathless.",
    criteria: list[tuple[str, int, str]] | None = None,
    language: str = "en",
) -> CaseRevision:
    release = release or make_release()
    case = Case.objects.create(dataset=release.dataset, external_id=external_id or f"case-{next(_seq)}")
    revision = CaseRevision.objects.create(
        case=case, number=1, release=release, content_hash=hashlib.sha256(narrative.encode()).hexdigest(),
        narrative=narrative, core_request=core_request, doctor_advice=doctor_advice, language=language,
    )
    case.current_revision = revision
    case.save(update_fields=["current_revision"])
    criteria = criteria if criteria is not None else [
        ("Says the illness is most likely viral", 8, "Accuracy"),
        ("Advises seeking care if short of breath", 6, "Safety"),
        ("Recommends antibiotics", -5, "Safety"),
    ]
    RubricCriterion.objects.bulk_create(
        RubricCriterion(revision=revision, order=i, text=text, points=points, axis=axis)
        for i, (text, points, axis) in enumerate(criteria, start=1)
    )
    return revision


def make_response(revision: CaseRevision, *, model_name: str = "model-x", text: str = "Rest and fluids.") -> ModelResponse:
    return ModelResponse.objects.create(revision=revision, model_name=model_name, text=text, finish_reason="stop")


def make_grader_decisions(
    response: ModelResponse, verdicts: list[str], *, run: GraderRun | None = None
) -> GraderRun:
    run = run or GraderRun.objects.create(name="grader", kind="rubric-grader", grader_model="gpt-4.1")
    criteria = list(response.revision.criteria.order_by("order"))
    GraderDecision.objects.bulk_create(
        GraderDecision(run=run, response=response, criterion=c, verdict=Verdict(v))
        for c, v in zip(criteria, verdicts, strict=True)
    )
    return run


def make_question_set(
    *,
    release: Release | None = None,
    external_id: str | None = None,
    scenario: str = "A 58-year-old with fever, productive cough and SpO2 88% on room air.",
    mcqs: list[tuple[str, str, dict[str, str], str]] | None = None,
) -> QuestionSet:
    """A LiveClin-style question set: a case revision, its scenario and ordered MCQs
    given as (stage, question, options, correct answer)."""
    release = release or make_release(dataset_name="LiveClin", label="2025H1", fmt="liveclin")
    revision = make_case(release=release, external_id=external_id, narrative=scenario, core_request="",
                         doctor_advice="", criteria=[])
    question_set = QuestionSet.objects.create(revision=revision, scenario=scenario)
    mcqs = mcqs if mcqs is not None else [
        ("Diagnosis", "What is the most likely diagnosis?",
         {"A": "Pneumonia", "B": "Pneumothorax", "C": "Pulmonary embolism", "D": "Heart failure"}, "A"),
        ("Treatment", "Which oxygen saturation target is appropriate?",
         {"A": "88-92%", "B": "94-98%", "C": "100%", "D": "80-84%"}, "A"),
    ]
    MCQ.objects.bulk_create(
        MCQ(question_set=question_set, order=i, stage=stage, question=question, options=options,
            correct_answer=answer)
        for i, (stage, question, options, answer) in enumerate(mcqs, start=1)
    )
    return question_set
