"""Importing judge scores and pairwise verdicts collected outside medreview (`judge-scores`,
`pairwise-verdicts`): the same pipeline as every release file, for rows that point at responses.

`release_import` hands these formats here after its argument and same-file checks. The file is
parsed completely (`cases.importers.outside`), each row's case and model are resolved to a response
of the dataset under the dataset's lock, and the writer `graders` registered inserts the rows; any
error and nothing is written (status "refused", every error with its file, record and field).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured
from django.db import transaction

from cases.importers.base import ImportIssue
from cases.importers.limits import check_outside_lengths
from cases.importers.outside import JUDGE_SCORES, OUTSIDE_PARSERS, PAIRWISE_VERDICTS, OutsideParseResult
from cases.models import Case, Dataset, ModelResponse, Release

OUTSIDE_FORMATS = (JUDGE_SCORES, PAIRWISE_VERDICTS)
#: What a format creates, reported in `ImportReport.created` beside the other formats' zeros.
CREATED = {JUDGE_SCORES: "judge_scores", PAIRWISE_VERDICTS: "pairwise_judgements"}


class OutsideWriter(Protocol):
    def __call__(self, *, release: Release, rows: Sequence[tuple[Any, ...]]) -> list[int]:
        """Insert the rows ((parsed row, response id[, response id])); return the grader run ids."""
        ...


_writers: dict[str, OutsideWriter] = {}


def register_outside_writer(fmt: str, writer: OutsideWriter) -> None:
    _writers[fmt] = writer  # process-wide, registered by GradersConfig.ready


def _writer(fmt: str) -> OutsideWriter:
    if fmt not in _writers:
        raise ImproperlyConfigured(f"importing {fmt} needs the `graders` app in INSTALLED_APPS")
    return _writers[fmt]


class _Refused(Exception):
    def __init__(self, errors: list[ImportIssue]) -> None:
        super().__init__(f"{len(errors)} errors")
        self.errors = errors


def _plan(parsed: OutsideParseResult, dataset: Dataset | None, file_name: str) -> tuple[list[tuple], list[ImportIssue]]:
    """Each row with its response id(s), or the located errors of rows pointing at nothing."""
    errors: list[ImportIssue] = []
    if dataset is None or not Case.objects.filter(dataset=dataset).exists():
        name = dataset.name if dataset else "(new)"
        return [], [ImportIssue(None, "dataset", f"dataset {name!r} has no cases yet; import its cases and "
                                                 "responses first", file_name)]
    current = dict(Case.objects.filter(dataset=dataset).values_list("external_id", "current_revision_id"))
    responses = {
        (rev, model): pk for pk, rev, model in ModelResponse.objects.filter(
            revision_id__in=[r for r in current.values() if r is not None]).values_list("pk", "revision_id", "model_name")
    }

    def response(row: Any, model: str, field_name: str) -> int | None:
        revision = current.get(row.case_id)
        if revision is None:
            errors.append(ImportIssue(row.record, "case_id", f"no case {row.case_id!r} in dataset {dataset.name!r}",
                                      file_name))
            return None
        pk = responses.get((revision, model))
        if pk is None:
            errors.append(ImportIssue(row.record, field_name, f"no response of model {model!r} to the current text "
                                                              f"of case {row.case_id!r}", file_name))
        return pk

    planned: list[tuple] = []
    for row in parsed.rows:
        if parsed.kind == JUDGE_SCORES:
            pk = response(row, row.model, "model")
            if pk is not None:
                planned.append((row, pk))
            continue
        a = response(row, row.model_a, "model_a")
        b = response(row, row.model_b, "model_b") if a is not None or row.case_id in current else None
        if a is not None and b is not None:
            planned.append((row, a, b))
    return planned, errors


def outside_import(report: Any, data: bytes, *, user: Any, dry_run: bool, finish: Callable[..., Any]) -> Any:
    """Parse, plan and write one outside-data file for `release_import`, which made `report` (its
    `ImportReport`, typed Any here: importing `cases.services` back would be a cycle) and `finish`."""
    fmt, file_name = report.format, report.file_name
    parsed = OUTSIDE_PARSERS[fmt](data, file_name)
    report.records = parsed.records
    # Values longer than their columns are refused here, before the dry run returns: a file that
    # validated never fails at confirm with a DataError.
    problems = parsed.issues or check_outside_lengths(parsed, file_name)
    if problems:
        return finish("refused", problems)
    if dry_run:
        planned, errors = _plan(parsed, Dataset.objects.filter(name=report.dataset).first(), file_name)
        if errors:
            return finish("refused", errors)
        report.created = {**report.created, CREATED[fmt]: len(planned)}
        return finish()
    try:
        # One transaction per file, the dataset row locked like every import into it: rows are
        # matched to responses that a concurrent import into the same dataset cannot change meanwhile.
        with transaction.atomic():
            dataset = Dataset.objects.select_for_update().filter(name=report.dataset).first()
            if Release.objects.filter(dataset__name=report.dataset, format=fmt, sha256=report.sha256,
                                      model_name=report.model_name).exists():
                return finish("unchanged")
            planned, errors = _plan(parsed, dataset, file_name)
            if errors:
                raise _Refused(errors)
            report.created = {**report.created, CREATED[fmt]: len(planned)}
            release = Release.objects.create(
                dataset=dataset, label=report.release_label, format=fmt, model_name=report.model_name,
                file_name=file_name, sha256=report.sha256, imported_by=user, counts=dict(report.created),
            )
            report.release_id = release.pk
            runs = _writer(fmt)(release=release, rows=planned)
            report.grader_run_id = runs[0] if runs else None
    except _Refused as refused:
        report.created = {**report.created, CREATED[fmt]: 0}
        return finish("refused", refused.errors)
    return finish()
