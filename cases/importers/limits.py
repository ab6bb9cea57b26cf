"""The column limits an import write would hit, checked on the parsed file before anything is written.

The dry run (the browser's validation) and the import run the same checks, so a file that
validated never fails at confirm with a DataError. Limits are read from the models, never copied.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db import models

from cases.importers.base import ImportIssue, ParsedCase, ParseResult
from cases.importers.outside import OutsideParseResult
from cases.models import (
    MCQ,
    Case,
    CaseRevision,
    Dataset,
    ModelResponse,
    Release,
    RubricCriterion,
    Specialty,
    Theme,
)

# GraderRun.name is "<grader model> on <model>"; cases cannot import graders, so its limit is named here
# and checked against the model by tests/cases/test_import_hardening.py.
GRADER_RUN_NAME_MAX = 200
# Judge scores and pairwise verdicts collected outside medreview: one run per judge, named
# "<judge> <kind> (imported)" (graders.imports.outside.imported_run_name), whose kind words take at most
# this many characters. GraderRun.grader_model holds the judge's name; GraderRun.prompt_version and
# JudgeScore.axis the others. Checked against the models by tests/cases/test_import_safe_path.py.
IMPORTED_RUN_SUFFIX_MAX = 40
JUDGE_NAME_MAX = GRADER_RUN_NAME_MAX - IMPORTED_RUN_SUFFIX_MAX
JUDGE_AXIS_MAX = 100
PROMPT_VERSION_MAX = 100
# Physicians' labels (annotation.Rating.field_key: "axis:<name>" and the like).
RATING_FIELD_KEY_MAX = 100


def max_length(model: type[models.Model], name: str) -> int:
    return model._meta.get_field(name).max_length  # type: ignore[return-value]


# ParsedCase attribute -> the column it is written to.
_CASE_COLUMNS: dict[str, tuple[type[models.Model], str]] = {
    "external_id": (Case, "external_id"),
    "language": (CaseRevision, "language"),
    "icd_chapter": (CaseRevision, "icd_chapter"),
    "disease_cluster": (CaseRevision, "disease_cluster"),
    "rarity": (CaseRevision, "rarity"),
    "source": (CaseRevision, "source"),
}


def _too_long(value: str, limit: int) -> str | None:
    if len(value) <= limit:
        return None
    return f"{len(value)} characters; at most {limit} fit (starts {value[:40]!r})"


def _case_problems(case: ParsedCase) -> Iterator[tuple[str, str]]:
    for attribute, (model, column) in _CASE_COLUMNS.items():
        if problem := _too_long(getattr(case, attribute), max_length(model, column)):
            yield attribute, problem
    for attribute, model in (("specialties", Specialty), ("themes", Theme)):
        for i, name in enumerate(getattr(case, attribute), start=1):
            if problem := _too_long(name, max_length(model, "name")):
                yield f"{attribute}[{i}]", problem
    for i, criterion in enumerate(case.criteria, start=1):
        if problem := _too_long(criterion.axis, max_length(RubricCriterion, "axis")):
            yield f"criteria[{i}].axis", problem
    if case.question_set is not None:
        for i, mcq in enumerate(case.question_set.mcqs, start=1):
            if problem := _too_long(mcq.stage, max_length(MCQ, "stage")):
                yield f"mcqs[{i}].stage", problem


def check_lengths(parsed: ParseResult, file_name: str) -> list[ImportIssue]:
    """Every value of the parsed file longer than the column it goes to, located by record and field."""
    issues = [
        ImportIssue(case.record, field, problem, file_name)
        for case in parsed.cases
        for field, problem in _case_problems(case)
    ]
    limit = max_length(ModelResponse, "finish_reason")
    issues += [
        ImportIssue(response.record, "finish_reason", problem, file_name)
        for response in parsed.responses
        if (problem := _too_long(response.finish_reason, limit))
    ]
    return issues


def check_argument_lengths(
    *, file_name: str, dataset_name: str, release_label: str, model_name: str, grader_model: str
) -> list[ImportIssue]:
    """The names given with the file (command-line options, form and API fields)."""
    checks = [
        ("file", file_name, max_length(Release, "file_name")),
        ("dataset", dataset_name, max_length(Dataset, "name")),
        ("release", release_label, max_length(Release, "label")),
        ("model_name", model_name, max_length(ModelResponse, "model_name")),
        ("grader_model", grader_model, GRADER_RUN_NAME_MAX - len(" on ") - len(model_name)),
    ]
    return [
        ImportIssue(None, name, problem, file_name)
        for name, value, limit in checks
        if (problem := _too_long(value, max(limit, 0)))
    ]


# Outside rows: attribute -> the most characters its column holds.
_OUTSIDE_COLUMNS: dict[str, int] = {
    "judge": JUDGE_NAME_MAX, "axis": JUDGE_AXIS_MAX, "prompt_version": PROMPT_VERSION_MAX,
    "field_key": RATING_FIELD_KEY_MAX,
}
# How the files spell the attributes that are named differently in the dataclasses.
_OUTSIDE_FIELD_NAMES = {"field_key": "field"}


def check_outside_lengths(parsed: OutsideParseResult, file_name: str) -> list[ImportIssue]:
    """Every value of a judge-scores, pairwise-verdicts or physician-labels file longer than the
    column it is written to, located by record and field. Call it on the parsed file before the
    dry run returns and before the write, so a file that validated never fails with a DataError."""
    issues = []
    for row in parsed.rows:
        for attribute, limit in _OUTSIDE_COLUMNS.items():
            value = getattr(row, attribute, None)
            if isinstance(value, str) and (problem := _too_long(value, limit)):
                field = _OUTSIDE_FIELD_NAMES.get(attribute, attribute)
                issues.append(ImportIssue(row.record, field, problem, file_name))
    return issues
