"""Model scores for LiveClin's per-category results (Fig. 7A, 7C, 8).

`import_model_scores` reads JSONL, one object a line: {"id": "<case id>", "model": "gpt-5",
"answers": ["B", "C", ...]}, the letter the model chose for each MCQ of the case's current question
set, in order ("" for no answer). Every line is checked first (errors name the file, the line and
the field); then one transaction replaces the models' answers to those MCQs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from cases.models import MCQ, Case, Dataset
from liveclin.models import ModelAnswer


@dataclass(frozen=True)
class ScoreImport:
    models: list[str]
    answers: int
    correct: int


def _mcqs(dataset: Dataset, ids: set[str]) -> dict[str, tuple[int, list[MCQ]]]:
    current = dict(Case.objects.filter(dataset=dataset, external_id__in=ids).values_list("external_id", "current_revision_id"))
    mcqs: dict[int, list[MCQ]] = {}
    for mcq in MCQ.objects.filter(question_set__revision_id__in=[r for r in current.values() if r]).select_related(
            "question_set").order_by("question_set__revision_id", "order"):
        mcqs.setdefault(mcq.question_set.revision_id, []).append(mcq)
    return {ext: (rev, mcqs.get(rev, [])) for ext, rev in current.items() if rev}


def _line_problem(file_name: str, n: int, field: str, message: str) -> str:
    return f"{file_name}: line {n}, field {field}: {message}"


def parse_scores(data: bytes, file_name: str, dataset: Dataset) -> list[ModelAnswer]:
    """Every answer of the file as unsaved rows; ValidationError lists every problem located."""
    problems: list[str] = []
    rows: list[tuple[int, dict[str, Any]]] = []
    for n, line in enumerate(data.decode("utf-8-sig", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(_line_problem(file_name, n, "(line)", f"not JSON ({exc.msg})"))
            continue
        if not isinstance(record, dict):
            problems.append(_line_problem(file_name, n, "(line)", "expected an object"))
            continue
        for field, kind in (("id", str), ("model", str), ("answers", list)):
            if not isinstance(record.get(field), kind) or not record[field]:
                problems.append(_line_problem(file_name, n, field, f"required ({kind.__name__})"))
        rows.append((n, record))
    places = _mcqs(dataset, {str(r.get("id")) for _, r in rows})
    answers: list[ModelAnswer] = []
    seen: dict[tuple[str, str], int] = {}
    for n, record in rows:
        case_id, model, letters = str(record.get("id")), record.get("model"), record.get("answers")
        if not isinstance(model, str) or not isinstance(letters, list):
            continue
        if case_id not in places:
            problems.append(_line_problem(file_name, n, "id", f"no case {case_id!r} in dataset {dataset.name!r}"))
            continue
        if (case_id, model) in seen:
            problems.append(_line_problem(file_name, n, "model", f"{model!r} already answered {case_id!r} on line {seen[case_id, model]}"))
            continue
        seen[case_id, model] = n
        revision_id, mcqs = places[case_id]
        if len(letters) != len(mcqs):
            problems.append(_line_problem(file_name, n, "answers", f"{len(letters)} answers for {len(mcqs)} MCQs"))
            continue
        for mcq, letter in zip(mcqs, letters, strict=True):
            if not isinstance(letter, str) or len(letter) > 1:
                problems.append(_line_problem(file_name, n, f"answers[{mcq.order}]", f"{letter!r} is not one letter"))
                continue
            answers.append(ModelAnswer(mcq=mcq, revision_id=revision_id, model_name=model, answer=letter.upper(),
                                       correct=letter.upper() == mcq.correct_answer, file_name=file_name))
    if problems:
        raise ValidationError(problems)
    return answers


def model_scores_import(*, data: bytes, file_name: str, dataset: Dataset) -> ScoreImport:
    answers = parse_scores(data, file_name, dataset)
    # One transaction: the models' earlier answers to these MCQs are replaced all at once (no lock:
    # a concurrent import of the same models would replace them again, wholly).
    with transaction.atomic():
        ModelAnswer.objects.filter(mcq__in=[a.mcq for a in answers],
                                   model_name__in={a.model_name for a in answers}).delete()
        ModelAnswer.objects.bulk_create(answers)
    return ScoreImport(sorted({a.model_name for a in answers}), len(answers), sum(a.correct for a in answers))
