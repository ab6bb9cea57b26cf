"""The curation rules, as pure functions from (case, review, rules) to a `CaseDecision`.

Rubric formats (LiveMedBench, HealthBench, generic): a criterion whose final validity label rejects
it is dropped (or kept, marked, when the rules say so); a narrative or advice whose final rating is
a flag label (0 Poor) flags the case, which is kept. LiveClin: a question set is kept only when it
is *validated*: every MCQ has a final label on every check it was reviewed for, and all of them pass.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cases.exporters.base import REASONS, CaseDecision, CaseReview, CurationRules, FieldOutcome, Note
from cases.importers.base import ParsedCase


def _history(outcome: FieldOutcome | None, review: CaseReview) -> tuple[str, ...]:
    if outcome is not None and outcome.history:
        return (outcome.history,)
    return review.history


def _case_flags(case: ParsedCase, review: CaseReview, rules: CurationRules) -> list[Note]:
    notes = []
    for what, outcome, code in (("narrative", review.narrative, "narrative-rated-0"),
                                ("advice", review.advice, "advice-rated-0")):
        if outcome is not None and outcome.label in rules.flag_labels:
            notes.append(Note(case.external_id, what, "flagged", code, _history(outcome, review)))
    return notes


def decide_rubric_case(case: ParsedCase, review: CaseReview | None, rules: CurationRules) -> CaseDecision:
    """Which criteria of a rubric case stay, which are marked, and whether the case is flagged."""
    if review is None:
        return CaseDecision(case=case, review=None, kept_criteria=tuple(range(1, len(case.criteria) + 1)))
    kept: list[int] = []
    marked: list[int] = []
    notes: list[Note] = _case_flags(case, review, rules)
    for position in range(1, len(case.criteria) + 1):
        outcome = review.criteria.get(position)
        what = f"criterion {position}"
        if outcome is None or outcome.label not in rules.reject_labels:
            kept.append(position)
            if outcome is not None and not outcome.resolved:
                notes.append(Note(case.external_id, what, "kept", "criterion-unresolved", _history(outcome, review)))
            continue
        history = _history(outcome, review)
        if rules.keep_rejected_criteria:
            kept.append(position)
            marked.append(position)
            notes.append(Note(case.external_id, what, "marked", "criterion-rejected", history))
        else:
            notes.append(Note(case.external_id, what, "dropped", "criterion-rejected", history))
    flags = tuple(n.reason for n in notes if n.action == "flagged")
    return CaseDecision(case=case, review=review, kept_criteria=tuple(kept), marked_criteria=tuple(marked),
                        flags=flags, notes=tuple(notes))


def question_set_status(mcq_count: int, review: CaseReview | None, rules: CurationRules) -> str:
    """validated | rejected | unresolved | not reviewed (a failing check outranks a missing one)."""
    if review is None:
        return "not reviewed"
    if review.set_rejection:
        return "rejected"
    outcomes = [o for checks in review.mcqs.values() for o in checks.values()]
    if any(o.resolved and o.label not in rules.pass_labels for o in outcomes):
        return "rejected"
    if any(not o.resolved for o in outcomes):
        return "unresolved"
    if mcq_count == 0 or any(not review.mcqs.get(n) for n in range(1, mcq_count + 1)):
        return "not reviewed"
    return "validated"


def decide_question_set(case: ParsedCase, review: CaseReview | None, rules: CurationRules) -> CaseDecision:
    """Keep a LiveClin question set only when it is validated; its text is never changed."""
    mcq_count = len(case.question_set.mcqs) if case.question_set else 0
    status = question_set_status(mcq_count, review, rules)
    if status == "validated":
        return CaseDecision(case=case, review=review, status=status)
    code = "question-set-" + status.replace(" ", "-")
    if review is not None and review.set_rejection:
        code = "question-set-rejected-by-inspector"
    history = review.history if review is not None else ()
    note = Note(case.external_id, "question set", "dropped", code, history)
    return CaseDecision(case=case, review=review, keep=False, status=status, notes=(note,))


def unresolved_fields(reviews: Mapping[str, CaseReview]) -> list[tuple[str, str]]:
    """(case id, field) of every unresolved field, sorted: what "resolved only" refuses."""
    return sorted(
        (case_id, name)
        for case_id, review in reviews.items()
        for name, outcome in review.outcomes()
        if not outcome.resolved
    )


def reason_table(notes: Iterable[Note]) -> dict[str, dict[str, Any]]:
    """Per reason code: its meaning and how many things it dropped, flagged, marked or kept."""
    counts: dict[str, Counter[str]] = {}
    for note in notes:
        counts.setdefault(note.reason, Counter())[note.action] += 1
    return {code: {"meaning": REASONS[code], **dict(sorted(c.items()))} for code, c in sorted(counts.items())}


def rubric_counts(decisions: Sequence[CaseDecision]) -> dict[str, Any]:
    criteria_source = sum(len(d.case.criteria) for d in decisions)
    kept = sum(len(d.kept_criteria) for d in decisions)
    reviewed = sum(len(d.review.criteria) for d in decisions if d.review is not None)
    unresolved = sum(1 for d in decisions if d.review for o in d.review.criteria.values() if not o.resolved)
    return {
        "cases": {
            "source": len(decisions), "kept": sum(d.keep for d in decisions),
            "dropped": sum(not d.keep for d in decisions), "flagged": sum(bool(d.flags) for d in decisions),
            "reviewed": sum(d.review is not None for d in decisions),
        },
        "criteria": {
            "source": criteria_source, "kept": kept, "dropped": criteria_source - kept,
            "marked": sum(len(d.marked_criteria) for d in decisions), "reviewed": reviewed,
            "unresolved": unresolved, "not_reviewed": criteria_source - reviewed,
        },
    }


def question_set_counts(decisions: Sequence[CaseDecision]) -> dict[str, Any]:
    statuses = Counter(d.status for d in decisions)
    mcqs = [len(d.case.question_set.mcqs) if d.case.question_set else 0 for d in decisions]
    return {
        "question_sets": {
            "source": len(decisions), "kept": sum(d.keep for d in decisions),
            "dropped": sum(not d.keep for d in decisions),
            **{status.replace(" ", "_"): statuses.get(status, 0)
               for status in ("validated", "rejected", "unresolved", "not reviewed")},
        },
        "mcqs": {"source": sum(mcqs), "kept": sum(n for n, d in zip(mcqs, decisions, strict=True) if d.keep)},
    }
