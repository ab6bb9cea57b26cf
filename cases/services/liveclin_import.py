"""The LiveClin parts of importing a release (`cases.services.release_import` calls these): a side
file of source case reports read with the `liveclin` file, and `liveclin-judge` verdicts matched to
the current question sets by record id and MCQ order (an unknown record or an MCQ out of range is
a located error, and the file is refused whole)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from cases.importers import ImportIssue, ParseResult, liveclin, liveclin_judge, parse
from cases.importers.base import Issues
from cases.importers.writers import judgement_writer
from cases.models import MCQ, Case, Dataset, ImportFormat, QuestionSet, Release


def parse_with_case_reports(fmt: str, data: bytes, file_name: str, case_reports: tuple[str, bytes] | None) -> ParseResult:
    """The format's parser; a LiveClin file with a side file of case reports (name, bytes) reads both.
    Side-file errors name the side file."""
    if case_reports is None:
        return parse(fmt, data, file_name)
    if fmt != ImportFormat.LIVECLIN:
        return ParseResult(kind="cases", issues=[ImportIssue(
            None, "case_reports", "a side file of case reports goes with a liveclin file only", case_reports[0]
        )])
    reports, issues = liveclin.parse_case_reports(case_reports[1], case_reports[0])
    if issues:
        return ParseResult(kind="cases", issues=issues)
    return liveclin.parse(data, file_name, case_reports=reports)


def plan_judgements(
    parsed: ParseResult, dataset: Dataset, current: dict[str, int | None], file_name: str
) -> tuple[list[ImportIssue], list[tuple[Any, int, list[int]]]]:
    """(errors, [(judgement, question set id, MCQ ids in order)]): each record's verdicts go to the
    current question set of that record (two queries)."""
    sets = dict(
        QuestionSet.objects.filter(revision_id__in=[r for r in current.values() if r is not None])
        .values_list("revision_id", "pk")
    )
    mcqs: dict[int, list[int]] = defaultdict(list)
    for set_id, mcq_id in MCQ.objects.filter(question_set_id__in=sets.values()).order_by(
        "question_set_id", "order"
    ).values_list("question_set_id", "pk"):
        mcqs[set_id].append(mcq_id)
    by_record = {ext: sets[rev] for ext, rev in current.items() if rev in sets}
    issues = Issues(file_name)
    liveclin_judge.match(parsed.judgements, {ext: len(mcqs[s]) for ext, s in by_record.items()}, issues,
                         dataset=dataset.name)
    planned = [(j, by_record[j.external_id], mcqs[by_record[j.external_id]])
               for j in parsed.judgements if j.external_id in by_record]
    return issues.items, planned


def write_embedded_judgements(parsed: ParseResult, dataset: Dataset, release: Release, grader_model: str) -> int | None:
    """A `liveclin` file whose records carry `judge` blocks: once its cases are written, the verdicts
    go to the records' (now current) question sets as one question-set judge run. Runs inside the
    import's transaction; the blocks were checked against their own MCQs when parsed."""
    if not parsed.judgements:
        return None
    current = dict(Case.objects.filter(dataset=dataset).values_list("external_id", "current_revision_id"))
    errors, planned = plan_judgements(parsed, dataset, current, release.file_name)
    if errors:  # cannot happen for a file that parsed: its own MCQs were counted
        raise ValueError("; ".join(str(e) for e in errors))
    return judgement_writer()(release=release, grader_model=grader_model, judgements=planned)
