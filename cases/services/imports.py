"""Importing a release file (command line, API, and the worker of a browser import job).

A file is parsed completely (outside any transaction) before anything is written; then one
transaction writes it with bulk inserts, or nothing at all.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction
from django.db.models import Subquery

from cases import bulk
from cases.importers import ImportIssue, ParsedCase, ParseResult
from cases.importers.limits import check_argument_lengths, check_lengths
from cases.importers.writers import grade_writer, judgement_writer
from cases.models import (
    MCQ,
    Case,
    CaseRevision,
    Dataset,
    ImportFormat,
    ModelResponse,
    QuestionSet,
    Release,
    RubricCriterion,
    Specialty,
    Theme,
)
from cases.services import liveclin_import
from cases.services.outside_import import OUTSIDE_FORMATS, outside_import
from cases.taxonomies.label_import import AI_LABEL_FORMATS, ai_label_import

log = logging.getLogger(__name__)

DEFAULT_GRADER_MODEL = "gpt-4.1-2025-04-14"
CREATED_KEYS = ("cases", "criteria", "question_sets", "mcqs", "responses", "grader_decisions", "revisions")
NEEDS_MODEL = {ImportFormat.LIVEMEDBENCH_RESPONSES, ImportFormat.LIVEMEDBENCH_GRADES}
DEFAULT_DATASETS = {
    ImportFormat.LIVEMEDBENCH: "LiveMedBench",
    ImportFormat.LIVEMEDBENCH_RESPONSES: "LiveMedBench",
    ImportFormat.LIVEMEDBENCH_GRADES: "LiveMedBench",
    ImportFormat.LIVECLIN: "LiveClin",
    ImportFormat.LIVECLIN_JUDGE: "LiveClin",
    ImportFormat.HEALTHBENCH: "HealthBench",
    ImportFormat.GENERIC: "ClinConsensus",
    ImportFormat.AI_LABELS: "LiveClin",
    ImportFormat.LIVECLIN_LABELS: "LiveClin",
}
Progress = Callable[[str, int, int], None]


@dataclass
class ImportReport:
    """What an import did (or, in a dry run, would do). `to_dict()` is the CLI's `--json` shape."""

    status: str  # imported | unchanged | dry-run | refused
    format: str
    file_name: str
    sha256: str
    dataset: str
    release_label: str
    model_name: str = ""
    created: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CREATED_KEYS, 0))
    unchanged: dict[str, int] = field(default_factory=lambda: {"cases": 0, "responses": 0})
    changed: list[str] = field(default_factory=list)
    errors: list[ImportIssue] = field(default_factory=list)
    records: int = 0
    release_id: int | None = None
    grader_run_id: int | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status != "refused"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "format": self.format,
            "file": self.file_name,
            "sha256": self.sha256,
            "dataset": self.dataset,
            "release": self.release_label,
            "model": self.model_name,
            "records": self.records,
            "created": dict(self.created),
            "unchanged": dict(self.unchanged),
            "changed": list(self.changed),
            "errors": [e.as_dict() for e in self.errors],
            "release_id": self.release_id,
            "grader_run_id": self.grader_run_id,
            "seconds": round(self.seconds, 3),
        }


class _Refused(Exception):
    def __init__(self, errors: list[ImportIssue]) -> None:
        super().__init__(f"{len(errors)} errors")
        self.errors = errors


@dataclass
class _Plan:
    """What the import will write, decided from the parsed file and the rows already there."""

    errors: list[ImportIssue] = field(default_factory=list)
    new_cases: list[ParsedCase] = field(default_factory=list)
    changed: list[tuple[ParsedCase, int, int]] = field(default_factory=list)  # (case, case id, number)
    reverted: list[tuple[ParsedCase, int, int]] = field(default_factory=list)  # (case, case id, revision id)
    unchanged_cases: int = 0
    responses: list[tuple[Any, int]] = field(default_factory=list)  # (ParsedResponse, revision id)
    unchanged_responses: int = 0
    decisions: list[tuple[Any, int, int]] = field(default_factory=list)  # (ParsedDecision, response, criterion)
    judgements: list[tuple[Any, int, list[int]]] = field(default_factory=list)  # (judgement, set, MCQ ids)
    embedded_judged: int = 0  # MCQs judged in `judge` blocks of a liveclin file

    def created(self) -> dict[str, int]:
        written = [*self.new_cases, *(c for c, _, _ in self.changed)]
        question_sets = [c.question_set for c in written if c.question_set is not None]
        return {
            "cases": len(self.new_cases),
            "criteria": sum(len(c.criteria) for c in written),
            "question_sets": len(question_sets),
            "mcqs": sum(len(q.mcqs) for q in question_sets),
            "responses": len(self.responses),
            # A Judge file counts the MCQs it judged (each with a factual and a solvability verdict).
            "grader_decisions": len(self.decisions) + sum(len(j.mcqs) for j, _, _ in self.judgements)
            + self.embedded_judged,
            "revisions": len(self.changed),
        }


def _notify(progress: Progress | None, stage: str, done: int, total: int) -> None:
    if progress is not None:
        progress(stage, done, total)


def release_import(
    *,
    fmt: str,
    data: bytes,
    file_name: str,
    dataset_name: str,
    release_label: str,
    model_name: str | None = None,
    grader_model: str = DEFAULT_GRADER_MODEL,
    user: AbstractBaseUser | None = None,
    dry_run: bool = False,
    progress: Progress | None = None,
    case_reports: tuple[str, bytes] | None = None,
    taxonomy: str = "",
) -> ImportReport:
    """Import one release file: all of it in one transaction, or nothing (status "refused").

    `case_reports` is a LiveClin side file (name, bytes) mapping record ids to source case reports;
    the release's SHA-256 then covers both files. `taxonomy` (AI-label formats): the taxonomy that
    taxonomy labels resolve in, `key` or `key@version` (default `liveclin`)."""
    started = time.monotonic()
    model_name = (model_name or "").strip()
    dataset_name = dataset_name.strip()
    release_label = (release_label or "").strip() or Path(file_name).stem
    digest = hashlib.sha256(data)
    if case_reports is not None:
        digest.update(b"\0case-reports\0" + case_reports[1])
    sha256 = digest.hexdigest()
    report = ImportReport(
        status="dry-run" if dry_run else "imported", format=fmt, file_name=file_name, sha256=sha256,
        dataset=dataset_name, release_label=release_label, model_name=model_name,
    )

    def finish(status: str | None = None, errors: Iterable[ImportIssue] = ()) -> ImportReport:
        if status:
            report.status = status
        report.errors = list(errors)
        report.seconds = time.monotonic() - started
        _notify(progress, "done", 1, 1)
        return report

    problems = _check_arguments(fmt, file_name, dataset_name, model_name)
    # The names given with the file must fit their columns too: checked before anything is written.
    problems += check_argument_lengths(file_name=file_name, dataset_name=dataset_name, release_label=release_label,
                                       model_name=model_name,
                                       grader_model=grader_model if fmt == ImportFormat.LIVEMEDBENCH_GRADES else "")
    if problems:
        return finish("refused", problems)
    if _same_file(fmt, sha256, dataset_name, model_name).exists():
        return finish("unchanged")
    pipeline = _own_pipeline(fmt, taxonomy)
    if pipeline is not None:
        return pipeline(report, data, user=user, dry_run=dry_run, finish=finish)

    _notify(progress, "parse", 0, 1)
    parsed = liveclin_import.parse_with_case_reports(fmt, data, file_name, case_reports)
    report.records = parsed.records
    _notify(progress, "parse", 1, 1)
    if parsed.issues:
        return finish("refused", parsed.issues)
    # Values longer than their columns: the dry run refuses them too, so a validated file never
    # fails at confirm with a DataError.
    too_long = check_lengths(parsed, file_name)
    if too_long:
        return finish("refused", too_long)

    if dry_run:
        plan = _plan(parsed, Dataset.objects.filter(name=dataset_name).first(), fmt, model_name, file_name)
        if plan.errors:
            return finish("refused", plan.errors)
        _fill(report, plan)
        return finish()

    try:
        # One transaction per file: any error and nothing is written. The dataset row is locked
        # so that two imports into one dataset cannot both number a case's next revision.
        with transaction.atomic():
            dataset, _ = Dataset.objects.get_or_create(name=dataset_name)
            dataset = Dataset.objects.select_for_update().get(pk=dataset.pk)
            if _same_file(fmt, sha256, dataset_name, model_name).exists():
                return finish("unchanged")
            plan = _plan(parsed, dataset, fmt, model_name, file_name)
            if plan.errors:
                raise _Refused(plan.errors)
            _fill(report, plan)
            release = Release.objects.create(
                dataset=dataset, label=release_label, format=fmt, model_name=model_name,
                file_name=file_name, sha256=sha256, imported_by=user,
                counts={**report.created, "unchanged": report.unchanged},
            )
            report.release_id = release.pk
            if parsed.kind == "cases":
                _write_cases(plan, dataset, release, progress)
                report.grader_run_id = liveclin_import.write_embedded_judgements(parsed, dataset, release, grader_model)
            elif parsed.kind == "responses":
                _write_responses(plan, release, model_name, progress)
            elif parsed.kind == "judgements":
                report.grader_run_id = _write_judgements(plan, release, grader_model, progress)
            else:
                report.grader_run_id = _write_decisions(plan, release, model_name, grader_model, progress)
    except _Refused as refused:
        report.created = dict.fromkeys(CREATED_KEYS, 0)
        return finish("refused", refused.errors)
    return finish()


def _own_pipeline(fmt: str, taxonomy: str) -> Callable[..., ImportReport] | None:
    """Formats whose rows point at cases already imported and are written by their own module."""
    if fmt in OUTSIDE_FORMATS:  # judge scores / pairwise verdicts collected outside medreview
        return outside_import
    if fmt in AI_LABEL_FORMATS:  # labels an LLM gave to cases, questions, images and tables
        return partial(ai_label_import, taxonomy=taxonomy)
    return None


def _check_arguments(fmt: str, file_name: str, dataset_name: str, model_name: str) -> list[ImportIssue]:
    problems = []
    if fmt not in ImportFormat.values:
        problems.append(ImportIssue(
            None, "format", f"unknown format {fmt!r}; expected one of {', '.join(ImportFormat.values)}", file_name
        ))
    if fmt in NEEDS_MODEL and not model_name:
        problems.append(ImportIssue(
            None, "model_name", f"a {fmt} file needs the name of the model that answered (--model)", file_name
        ))
    if not dataset_name:
        problems.append(ImportIssue(None, "dataset", "the dataset name must not be empty", file_name))
    return problems


def _same_file(fmt: str, sha256: str, dataset_name: str, model_name: str) -> models.QuerySet[Release]:
    return Release.objects.filter(
        dataset__name=dataset_name, format=fmt, sha256=sha256, model_name=model_name
    )


def _fill(report: ImportReport, plan: _Plan) -> None:
    report.created = plan.created()
    report.unchanged = {"cases": plan.unchanged_cases, "responses": plan.unchanged_responses}
    report.changed = [c.external_id for c, _, _ in (*plan.changed, *plan.reverted)]


def _plan(parsed: ParseResult, dataset: Dataset | None, fmt: str, model_name: str, file_name: str) -> _Plan:
    if parsed.kind == "cases":
        plan = _plan_cases(parsed, dataset)
        plan.embedded_judged = sum(len(j.mcqs) for j in parsed.judgements)
        return plan
    plan = _Plan()
    if dataset is None or not Case.objects.filter(dataset=dataset).exists():
        name = dataset.name if dataset else "(new)"
        plan.errors.append(ImportIssue(
            None, "dataset", f"dataset {name!r} has no cases yet; import its cases before {fmt} files", file_name
        ))
        return plan
    current = dict(Case.objects.filter(dataset=dataset).values_list("external_id", "current_revision_id"))
    if parsed.kind == "responses":
        return _plan_responses(parsed, dataset, current, model_name, file_name, plan)
    if parsed.kind == "judgements":
        errors, plan.judgements = liveclin_import.plan_judgements(parsed, dataset, current, file_name)
        plan.errors.extend(errors)
        return plan
    return _plan_decisions(parsed, dataset, current, model_name, file_name, plan)


def _plan_cases(parsed: ParseResult, dataset: Dataset | None) -> _Plan:
    plan = _Plan()
    cases: dict[str, tuple[int, int | None]] = {}
    revisions: dict[int, dict[str, int]] = defaultdict(dict)
    last_number: dict[int, int] = defaultdict(int)
    if dataset is not None:
        for case_id, external_id, current in Case.objects.filter(dataset=dataset).values_list(
            "id", "external_id", "current_revision_id"
        ):
            cases[external_id] = (case_id, current)
        for case_id, revision_id, content_hash, number in CaseRevision.objects.filter(
            case__dataset=dataset
        ).values_list("case_id", "id", "content_hash", "number"):
            revisions[case_id][content_hash] = revision_id
            last_number[case_id] = max(last_number[case_id], number)
    for case in parsed.cases:
        if case.external_id not in cases:
            plan.new_cases.append(case)
            continue
        case_id, current = cases[case.external_id]
        known = revisions[case_id].get(case.content_hash)
        if known is not None and known == current:
            plan.unchanged_cases += 1
        elif known is not None:
            # The text went back to an earlier revision: that revision becomes current again
            # (a case never holds two revisions with the same content).
            plan.reverted.append((case, case_id, known))
        else:
            plan.changed.append((case, case_id, last_number[case_id] + 1))
    return plan


def _plan_responses(
    parsed: ParseResult, dataset: Dataset, current: dict[str, int | None], model_name: str, file_name: str,
    plan: _Plan,
) -> _Plan:
    existing = dict(
        ModelResponse.objects.filter(revision__case__dataset=dataset, model_name=model_name)
        .values_list("revision_id", "text")
    )
    for response in parsed.responses:
        revision_id = current.get(response.case_id)
        if revision_id is None:
            plan.errors.append(ImportIssue(
                response.record, "case_id",
                f"no case {response.case_id!r} in dataset {dataset.name!r}; import the cases first", file_name,
            ))
        elif revision_id in existing and existing[revision_id] == response.text:
            plan.unchanged_responses += 1
        elif revision_id in existing:
            plan.errors.append(ImportIssue(
                response.record, "model_response",
                f"model {model_name!r} already has a different response to the current text of case "
                f"{response.case_id!r}; responses are never replaced", file_name,
            ))
        else:
            plan.responses.append((response, revision_id))
    return plan


def _plan_decisions(
    parsed: ParseResult, dataset: Dataset, current: dict[str, int | None], model_name: str, file_name: str,
    plan: _Plan,
) -> _Plan:
    responses = dict(
        ModelResponse.objects.filter(revision__case__dataset=dataset, model_name=model_name)
        .values_list("revision_id", "id")
    )
    criteria: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for revision_id, criterion_id, text in (
        RubricCriterion.objects.filter(
            revision_id__in=Subquery(Case.objects.filter(dataset=dataset).values("current_revision_id"))
        ).order_by("revision_id", "order").values_list("revision_id", "id", "text")
    ):
        criteria[revision_id][text.strip()].append(criterion_id)
    for grade in parsed.grades:
        revision_id = current.get(grade.case_id)
        if revision_id is None:
            plan.errors.append(ImportIssue(
                grade.record, "case_id",
                f"no case {grade.case_id!r} in dataset {dataset.name!r}; import the cases first", file_name,
            ))
            continue
        response_id = responses.get(revision_id)
        if response_id is None:
            plan.errors.append(ImportIssue(
                grade.record, "case_id",
                f"no response of model {model_name!r} to case {grade.case_id!r}; import the responses first",
                file_name,
            ))
            continue
        # Criteria are matched by exact text; a text that occurs twice in a case is matched in order.
        pool = {text: deque(ids) for text, ids in criteria[revision_id].items()}
        for decision in grade.decisions:
            ids = pool.get(decision.criterion)
            if not ids:
                plan.errors.append(ImportIssue(
                    grade.record, f"evaluations.{decision.key}.criterion",
                    f"matches none of the current criteria of case {grade.case_id!r}: "
                    f"{decision.criterion[:120]!r}", file_name,
                ))
                continue
            plan.decisions.append((decision, response_id, ids.popleft()))
    return plan


def _names(model: type[Specialty] | type[Theme], names: set[str]) -> dict[str, int]:
    if not names:
        return {}
    model.objects.bulk_create([model(name=n) for n in sorted(names)], ignore_conflicts=True)
    return dict(model.objects.filter(name__in=names).values_list("name", "id"))


def _write_cases(plan: _Plan, dataset: Dataset, release: Release, progress: Progress | None) -> None:
    created = plan.created()
    total = sum(created.values()) + len(plan.reverted)
    case_ids, written = _insert_cases_and_revisions(plan, dataset, release)
    done = len(case_ids) + len(written)
    _notify(progress, "write", done, total)
    _insert_name_links(written)
    done += _insert_criteria(written)
    _notify(progress, "write", done, total)
    _insert_question_sets(written)

    new_revisions, changed_revisions = written[: len(case_ids)], written[len(case_ids):]
    moves = [(case_id, rev) for (_, case_id, _), (_, rev) in zip(plan.changed, changed_revisions, strict=True)]
    moves += [(case_id, revision_id) for _, case_id, revision_id in plan.reverted]
    if not bulk.is_postgres():
        moves += [(case_id, rev) for case_id, (_, rev) in zip(case_ids, new_revisions, strict=True)]
    bulk.set_current_revisions(moves)
    _notify(progress, "write", total, total)


def _insert_cases_and_revisions(
    plan: _Plan, dataset: Dataset, release: Release
) -> tuple[list[int], list[tuple[ParsedCase, int]]]:
    """New cases, then the revisions of new and changed cases (new cases' first): the new cases' ids,
    and each revision's parsed case with the revision's id, in that order.

    Rows go in as values, not model instances: building 5,500 instances cost a LiveMedBench release
    about 50 ms of its import (docs/performance.md)."""
    numbered = [(c, 1) for c in plan.new_cases] + [(c, number) for c, _, number in plan.changed]
    revisions = [
        {
            "number": number, "release_id": release.pk, "content_hash": c.content_hash,
            "post_time": c.post_time, "language": c.language, "narrative": c.narrative,
            "core_request": c.core_request, "doctor_advice": c.doctor_advice, "conversation": c.conversation,
            "difficulty": c.difficulty, "register": c.register, "icd_chapter": c.icd_chapter,
            "disease_cluster": c.disease_cluster, "rarity": c.rarity, "source": c.source, "extra": c.extra,
            "raw": c.raw,
        }
        for c, number in numbered
    ]
    cases = [{"dataset_id": dataset.pk, "external_id": c.external_id} for c in plan.new_cases]
    if bulk.is_postgres():
        # Ids first, so a new case is written already pointing at its first revision.
        for row, pk in zip(revisions, bulk.allocate_id_values(CaseRevision, len(revisions)), strict=True):
            row["id"] = pk
        for case, revision in zip(cases, revisions, strict=False):
            case["current_revision_id"] = revision["id"]
    case_ids = bulk.insert_rows(Case, cases)
    owners = case_ids + [case_id for _, case_id, _ in plan.changed]
    for revision, case_id in zip(revisions, owners, strict=True):
        revision["case_id"] = case_id
    revision_ids = bulk.insert_rows(CaseRevision, revisions)
    return case_ids, [(c, rev) for (c, _), rev in zip(numbered, revision_ids, strict=True)]


def _insert_name_links(written: list[tuple[ParsedCase, int]]) -> None:
    specialties = _names(Specialty, {s for c, _ in written for s in c.specialties})
    themes = _names(Theme, {t for c, _ in written for t in c.themes})
    SpecialtyLink = CaseRevision.specialties.through
    ThemeLink = CaseRevision.themes.through
    bulk.insert([
        SpecialtyLink(caserevision_id=rev, specialty_id=specialties[name])
        for c, rev in written for name in dict.fromkeys(c.specialties)
    ])
    bulk.insert([
        ThemeLink(caserevision_id=rev, theme_id=themes[name])
        for c, rev in written for name in dict.fromkeys(c.themes)
    ])


def _insert_criteria(written: list[tuple[ParsedCase, int]]) -> int:
    return bulk.insert_values(RubricCriterion, [
        {"revision_id": rev, "order": order, "text": crit.text, "points": crit.points, "axis": crit.axis,
         "tags": list(crit.tags)}
        for c, rev in written
        for order, crit in enumerate(c.criteria, start=1)
    ])


def _insert_question_sets(written: list[tuple[ParsedCase, int]]) -> None:
    with_sets = [(c, rev) for c, rev in written if c.question_set]
    question_sets = bulk.insert([
        QuestionSet(
            revision_id=rev, scenario=c.question_set.scenario,
            scenario_images=c.question_set.scenario_images, scenario_tables=c.question_set.scenario_tables,
            case_report=c.question_set.case_report, report_source=c.question_set.report_source,
            captions=list(c.question_set.captions),
        )
        for c, rev in with_sets
    ])
    bulk.insert([
        MCQ(
            question_set_id=qs.pk, order=order, stage=m.stage, question=m.question, options=m.options,
            correct_answer=m.correct_answer, image_details=m.image_details, table_details=m.table_details,
        )
        for (c, _), qs in zip(with_sets, question_sets, strict=True)
        for order, m in enumerate(c.question_set.mcqs, start=1)
    ])


def _write_responses(plan: _Plan, release: Release, model_name: str, progress: Progress | None) -> None:
    bulk.insert([
        ModelResponse(
            revision_id=revision_id, model_name=model_name, text=r.text, finish_reason=r.finish_reason,
            release=release, raw=r.raw,
        )
        for r, revision_id in plan.responses
    ])
    _notify(progress, "write", len(plan.responses), len(plan.responses))


def _write_decisions(
    plan: _Plan, release: Release, model_name: str, grader_model: str, progress: Progress | None
) -> int:
    # Grader output belongs to `graders`, which registered this writer (cases never imports graders).
    run_id = grade_writer()(
        release=release, model_name=model_name, grader_model=grader_model, decisions=plan.decisions
    )
    _notify(progress, "write", len(plan.decisions), len(plan.decisions))
    return run_id


def _write_judgements(plan: _Plan, release: Release, grader_model: str, progress: Progress | None) -> int:
    # Judge verdicts are grader output: `graders` registered this writer (cases never imports graders).
    run_id = judgement_writer()(release=release, grader_model=grader_model, judgements=plan.judgements)
    _notify(progress, "write", len(plan.judgements), len(plan.judgements))
    return run_id
