"""Where rows that belong to a higher app are written during an import.

A `livemedbench-grades` file holds grader decisions and a `liveclin-judge` file Judge verdicts, which
live in `graders`; `cases` sits below `graders` and never imports it, so `graders` registers its
writers here when Django starts (`GradersConfig.ready`). The import pipeline parses, plans and locks; the writer only inserts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from cases.importers.base import ParsedDecision
    from cases.importers.liveclin_judge import ParsedJudgement
    from cases.models import Release


class GradeWriter(Protocol):
    def __call__(
        self,
        *,
        release: Release,
        model_name: str,
        grader_model: str,
        decisions: Sequence[tuple[ParsedDecision, int, int]],
    ) -> int:
        """Write one grader run with its decisions ((decision, response id, criterion id)); return the run's id."""
        ...


_grade_writer: GradeWriter | None = None


def register_grade_writer(writer: GradeWriter) -> None:
    global _grade_writer  # one process-wide registration, made at startup
    _grade_writer = writer


def grade_writer() -> GradeWriter:
    if _grade_writer is None:
        raise ImproperlyConfigured("importing grades needs the `graders` app in INSTALLED_APPS")
    return _grade_writer


class JudgementWriter(Protocol):
    def __call__(
        self,
        *,
        release: Release,
        grader_model: str,
        judgements: Sequence[tuple[ParsedJudgement, int, list[int]]],
    ) -> int:
        """Write one question-set judge run ((judgement, question set id, MCQ ids in order)); return its id."""
        ...


_judgement_writer: JudgementWriter | None = None


def register_judgement_writer(writer: JudgementWriter) -> None:
    global _judgement_writer  # one process-wide registration, made at startup
    _judgement_writer = writer


def judgement_writer() -> JudgementWriter:
    if _judgement_writer is None:
        raise ImproperlyConfigured("importing Judge verdicts needs the `graders` app in INSTALLED_APPS")
    return _judgement_writer
