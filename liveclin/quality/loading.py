"""The database reads of the quality check: a release's question sets as `rules.SetReview`s.

Fixed number of queries whatever the size of the release: the sets and their MCQs, the Judge's
verdicts (the run the studies reviewing the release pinned, or the run asked for, or the latest
when no study pins one: `liveclin.judge_runs.release_judge_run`), the review items holding the sets
in any study, their final labels, first-round ratings, set rejections and review events.

Which physician task is which check: an MCQ task that shows the privileged source is factual
validation, one that does not is logical solvability (`liveclin.phases`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from annotation.models import Assignment, FinalLabel, Item, ItemKind, Rating, TaskTarget
from annotation.outcomes.histories import review_histories, set_rejections
from cases.models import MCQ, QuestionSet, Release
from graders.models import GraderRun, QuestionSetJudgement, Verdict
from liveclin.judge_runs import ReportRun, release_judge_run
from liveclin.quality.rules import FACTUAL, SOLVABILITY, VALIDATED, FinalCheck, McqReview, SetReview, outcome

# A set reviewed in several studies: the least advanced status speaks for it.
_STATUS_ORDER = {Item.Status.OPEN: 0, Item.Status.RETURNED: 1, Item.Status.INSPECTION: 2, Item.Status.RESOLVED: 3}


@dataclass
class ReleaseReview:
    """Everything the release page, the reports and the export need."""

    release: Release
    run: GraderRun | None
    sets: list[SetReview]
    report_run: ReportRun | None = None  # why `run`, the later runs, the reviewing studies' options
    mcq_ids: dict[int, list[int]] = field(default_factory=dict)  # question set id -> MCQ ids in order
    revision_ids: dict[int, int] = field(default_factory=dict)  # question set id -> revision id
    judgement_errors: dict[int, str] = field(default_factory=dict)  # question set id -> invalid output why


def _check_of(privileged: bool) -> str:
    return FACTUAL if privileged else SOLVABILITY


def _judge(run: GraderRun | None, set_ids: list[int]) -> tuple[dict[int, dict[int, dict[str, Any]]], set[int], dict[int, str]]:
    """({set id: {MCQ id: check block}}, screened set ids, {set id: error}). A failed call (no answer
    after retries) is not a screening; an invalid answer is, and its missing checks count as flags."""
    if run is None:
        return {}, set(), {}
    verdicts: dict[int, dict[int, dict[str, Any]]] = defaultdict(dict)
    screened: set[int] = set()
    errors: dict[int, str] = {}
    for set_id, status, checks, error in QuestionSetJudgement.objects.filter(
        run=run, question_set_id__in=set_ids
    ).values_list("question_set_id", "verdict", "checks", "error"):
        if status == Verdict.FAILED:
            continue
        screened.add(set_id)
        if error:
            errors[set_id] = error
        for block in checks or []:
            verdicts[set_id][int(block["mcq"])] = block
    return verdicts, screened, errors


def _items(set_ids: list[int]) -> tuple[dict[int, str], dict[int, int]]:
    """({set id: review status}, {item id: set id}) over every study holding the sets."""
    status: dict[int, str] = {}
    item_set: dict[int, int] = {}
    for item_id, set_id, item_status in Item.objects.filter(
        kind=ItemKind.QUESTION_SET, question_set_id__in=set_ids
    ).values_list("pk", "question_set_id", "status"):
        item_set[item_id] = set_id
        if set_id not in status or _STATUS_ORDER[item_status] < _STATUS_ORDER[status[set_id]]:
            status[set_id] = item_status
    return status, item_set


def _finals(item_set: dict[int, int]) -> dict[int, dict[str, FinalCheck]]:
    """{MCQ id: {check: final}}; across studies a "no" wins (conservatism)."""
    out: dict[int, dict[str, FinalCheck]] = defaultdict(dict)
    for mcq_id, privileged, label, source, reason in FinalLabel.objects.filter(
        item_id__in=list(item_set), task__target=TaskTarget.MCQ, mcq__isnull=False,
    ).values_list("mcq_id", "task__shows_privileged_source", "label", "source", "reason"):
        check = _check_of(privileged)
        known = out[mcq_id].get(check)
        if known is None or (label == "no" and known.label != "no"):
            out[mcq_id][check] = FinalCheck(label, source, reason)
    return out


def _first_round(item_set: dict[int, int]) -> dict[int, dict[str, dict[int, str]]]:
    """{MCQ id: {check: {rater id: first-round label}}}."""
    out: dict[int, dict[str, dict[int, str]]] = defaultdict(lambda: defaultdict(dict))
    for mcq_id, privileged, rater_id, label in Rating.objects.filter(
        assignment__item_id__in=list(item_set), assignment__state__in=Assignment.RATED_STATES, round=1,
        task__target=TaskTarget.MCQ, mcq__isnull=False,
    ).values_list("mcq_id", "task__shows_privileged_source", "assignment__rater_id", "label"):
        out[mcq_id][_check_of(privileged)][rater_id] = label
    return out


def _mcq_review(position: int, mcq_id: int, judge: dict[str, Any] | None, finals: dict, first: dict) -> McqReview:
    judged: dict[str, bool | None] = {}
    explanations: dict[str, str] = {}
    if judge is not None:
        for check in (FACTUAL, SOLVABILITY):
            value = judge.get(check)
            judged[check] = value if isinstance(value, bool) else None
            explanations[check] = str(judge.get(f"{check}_explanation") or "")
    return McqReview(
        position=position, judge=judged, judge_explanations=explanations,
        first_round={c: dict(v) for c, v in first.get(mcq_id, {}).items()}, final=finals.get(mcq_id, {}),
    )


def _per_set(by_item: dict[int, Any], item_set: dict[int, int]) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = defaultdict(list)
    for item_id in sorted(by_item):
        value = by_item[item_id]
        out[item_set[item_id]].extend(value if isinstance(value, list) else [value])
    return out


def set_reviews(
    sets: list[tuple[int, int, str]], run: GraderRun | None
) -> tuple[list[SetReview], dict[int, list[int]], dict[int, str]]:
    """`sets` as (question set id, revision id, record id): their reviews, MCQ ids, invalid-output errors."""
    set_ids = [pk for pk, _, _ in sets]
    mcqs: dict[int, list[int]] = defaultdict(list)
    for set_id, mcq_id in MCQ.objects.filter(question_set_id__in=set_ids).order_by(
        "question_set_id", "order"
    ).values_list("question_set_id", "pk"):
        mcqs[set_id].append(mcq_id)
    judge, screened, errors = _judge(run, set_ids)
    status, item_set = _items(set_ids)
    finals = _finals(item_set)
    first = _first_round(item_set)
    rejections = _per_set(set_rejections(item_set), item_set)
    events = _per_set(review_histories(item_set), item_set)
    reviews = [
        SetReview(
            key=external_id, question_set_id=set_id, screened=set_id in screened,
            review_status=status.get(set_id, ""), set_rejection="; ".join(rejections.get(set_id, [])),
            events=tuple(sorted(events.get(set_id, []), key=lambda e: e["at"])),
            mcqs=[
                _mcq_review(n, mcq_id, judge[set_id].get(mcq_id) if set_id in screened else None, finals, first)
                for n, mcq_id in enumerate(mcqs[set_id], start=1)
            ],
        )
        for set_id, _, external_id in sets
    ]
    return reviews, dict(mcqs), errors


def release_review(release: Release, *, run_id: int | None = None) -> ReleaseReview:
    """Every question set the release brought, in file order, with what is known about it."""
    sets = list(
        QuestionSet.objects.filter(revision__release=release).order_by("revision_id")
        .values_list("pk", "revision_id", "revision__case__external_id")
    )
    report_run = release_judge_run([pk for pk, _, _ in sets], run_id)
    reviews, mcqs, errors = set_reviews(sets, report_run.run)
    return ReleaseReview(
        release=release, run=report_run.run, sets=reviews, report_run=report_run, mcq_ids=mcqs,
        revision_ids={pk: rid for pk, rid, _ in sets}, judgement_errors=errors,
    )


def validated_revisions(revision_ids: set[int]) -> set[int]:
    """The item-selection filter "validated": revisions whose question set is validated."""
    sets = list(
        QuestionSet.objects.filter(revision_id__in=revision_ids).order_by("revision_id")
        .values_list("pk", "revision_id", "revision__case__external_id")
    )
    reviews, _, _ = set_reviews(sets, release_judge_run([pk for pk, _, _ in sets]).run)
    return {rid for (_, rid, _), r in zip(sets, reviews, strict=True) if outcome(r).status == VALIDATED}
