"""Where rows that belong to a higher app are written during an import.

A `livemedbench-grades` file holds grader decisions, which live in `graders`; `cases` sits below
`graders` and never imports it, so `graders` registers its writer here when Django starts
(`GradersConfig.ready`). The import pipeline parses, plans and locks; the writer only inserts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from django.core.exceptions import ImproperlyConfigured

if TYPE_CHECKING:
    from cases.importers.base import ParsedDecision
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
