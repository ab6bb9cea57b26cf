"""What a rater may see of an item, their own labels, and their queue. Each runs a bounded number of
queries; none checks access: call an `annotation.access` function first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, F, IntegerField, OuterRef, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.fields import Field, strip_captions
from annotation.models import Assignment, Item, ItemKind, Study, StudyMember, TaskTarget
from cases.models import MCQ, CaseRevision, ModelResponse, QuestionSet, RubricCriterion
from medreview.db.precompiled import PrecompiledQuery


@dataclass(frozen=True)
class BlindedMCQ:
    """One MCQ as this rater may see it: the answer key and image captions only with privileged access."""

    mcq: MCQ
    correct_answer: str | None
    image_details: Any


@dataclass(frozen=True)
class RaterContent:
    """The blinding rule: what a rater (or an inspector, in order A-B) reads above the form.

    Never another rater's labels, grader decisions or model names; pairs in this rater's order;
    LiveClin's privileged source (narrative, answer key, image captions) only when every one of the
    item's tasks may see it (factual validation, not solvability; a mix shows the examinee view).
    """

    item: Item
    revision: CaseRevision
    privileged: bool
    show_advice: bool
    response: ModelResponse | None  # a single-response item; never set for pairs
    pair: tuple[ModelResponse, ModelResponse] | None  # (shown as A, shown as B)
    question_set: QuestionSet | None
    criteria: list[RubricCriterion]

    @property
    def show_privileged(self) -> bool:
        """Pages: show the privileged LiveClin source block (question sets only)."""
        return self.privileged and self.question_set is not None

    @property
    def narrative(self) -> str:
        """A question set's source narrative is privileged; a case's narrative is what is rated."""
        if self.item.kind != ItemKind.QUESTION_SET or self.privileged:
            return self.revision.narrative
        return ""

    @property
    def scenario_images(self) -> Any:
        images = self.question_set.scenario_images if self.question_set else []
        return images if self.privileged else strip_captions(images)

    def mcqs(self) -> list[BlindedMCQ]:
        """The question set's MCQs in order (one query; empty for other items)."""
        if self.question_set is None:
            return []
        return [
            BlindedMCQ(
                mcq=m,
                # Solvability raters see only what an examinee sees: never the answer key.
                correct_answer=m.correct_answer if self.privileged else None,
                image_details=m.image_details if self.privileged else strip_captions(m.image_details),
            )
            for m in self.question_set.mcqs.order_by("order")
        ]


def item_content_for_rater(item: Item, fields: list[Field], *, pair_order: str = "ab") -> RaterContent:
    """What may be shown with `item` to someone rating `fields` (no query; `mcqs()` runs one)."""
    tasks = {f.task.pk: f.task for f in fields}.values()
    pair = None
    if item.kind == ItemKind.PAIR and item.response_id and item.response_b_id:
        pair = (item.response_b, item.response) if pair_order == "ba" else (item.response, item.response_b)
    criteria = {f.criterion.pk: f.criterion for f in fields if f.criterion}
    return RaterContent(
        item=item,
        revision=item.revision,
        # Every task must be allowed the source: one examinee-view task (solvability) beside factual
        # validation hides it for the whole item, or its answer key sits next to the solvability fields.
        privileged=all(t.shows_privileged_source for t in tasks) if fields else True,
        show_advice=any(t.target == TaskTarget.ADVICE for t in tasks),
        response=item.response if item.kind == ItemKind.RESPONSE and item.response_id else None,
        pair=pair,
        question_set=item.question_set if item.kind == ItemKind.QUESTION_SET and item.question_set_id else None,
        criteria=sorted(criteria.values(), key=lambda c: c.order),
    )


@dataclass
class RaterQueue:
    in_progress: list[Assignment]
    returned: list[Assignment]
    done: list[Assignment]
    counts: dict[str, int]
    studies: list[Study]
    # Open items in the study (or the rater's studies) the rater has not touched and that have room.
    available: int


def rater_queue(*, rater: AbstractBaseUser, study: Study | None = None, now: datetime | None = None) -> RaterQueue:
    """The rater's own work only; never other raters' labels (4 queries)."""
    now = now or timezone.now()
    studies_qs = Study.objects.filter(memberships__user=rater, memberships__role=StudyMember.Role.RATER)
    if study is not None:
        studies_qs = studies_qs.filter(pk=study.pk)
    studies = list(studies_qs.distinct().order_by("-created_at"))
    study_ids = [s.pk for s in studies]
    assignments = list(
        Assignment.objects.filter(rater=rater, item__study_id__in=study_ids)
        .select_related("item", "item__study", "item__revision", "item__revision__case")
        .order_by("-draft_saved_at", "-claimed_at", "-pk")
    )
    in_progress = [
        a for a in assignments
        if a.state in Assignment.LEASED_STATES and a.lease_expires_at and a.lease_expires_at > now
    ]
    returned = [a for a in assignments if a.state == Assignment.State.RETURNED]
    done = sorted(
        (a for a in assignments if a.state in Assignment.FINISHED_STATES),
        key=lambda a: a.submitted_at or a.claimed_at,
        reverse=True,
    )
    counts = Counter(a.state for a in assignments)
    available = 0
    running = [s.pk for s in studies if s.status == Study.Status.RUNNING]
    if running:
        holders = Assignment.objects.holding_slot(now=now).filter(item=OuterRef("pk")).order_by().values("item")
        holders = holders.annotate(n=Count("pk")).values("n")
        # NOT IN over the rater's own items: one hashed scan of their assignments, not a probe per item.
        mine = Assignment.objects.filter(rater=rater).exclude(state=Assignment.State.EXPIRED).values("item_id")
        available = (
            Item.objects.filter(study_id__in=running, status=Item.Status.OPEN)
            .exclude(pk__in=Subquery(mine))
            .annotate(n=Coalesce(Subquery(holders, output_field=IntegerField()), 0))
            .filter(n__lt=F("study__raters_per_item"))
            .count()
        )
    return RaterQueue(
        in_progress=in_progress,
        returned=returned,
        done=done,
        counts={
            "in_progress": len(in_progress),
            "returned": len(returned),
            "done": len(done),
            "skipped": counts.get(Assignment.State.SKIPPED, 0),
        },
        studies=studies,
        available=available,
    )


# The rater's list beside the rating screen, on every rating page: compiled once per process.
# Only the columns the list shows (issue 27): the cases' texts and their raw records, the study's
# guidelines and the drafts would be read and decoded for every row on every rating page.
_LISTED = ("item", "item__study", "item__revision", "item__revision__case")
_SHOWN = ("item__kind", "item__study__name", "item__revision__case__external_id", "state", "round",
          "lease_expires_at", "draft_saved_at", "claimed_at", "submitted_at")
_DONE_SHOWN = 15


def _mine(rater_id: int, study_id: int) -> QuerySet[Assignment]:
    return Assignment.objects.filter(rater_id=rater_id, item__study_id=study_id)


_MY_UNFINISHED: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda rater_id, study_id: _mine(rater_id, study_id)
    .filter(state__in=Assignment.UNFINISHED_STATES)
    .select_related(*_LISTED).only(*_SHOWN).order_by("-draft_saved_at", "-claimed_at", "-pk")
)
_MY_LATEST_DONE: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda rater_id, study_id: _mine(rater_id, study_id)
    .filter(state__in=Assignment.FINISHED_STATES).select_related(*_LISTED).only(*_SHOWN)
    .latest_work_first()[:_DONE_SHOWN]
)
_MY_COUNTS: PrecompiledQuery[tuple[str, int]] = PrecompiledQuery(
    lambda rater_id, study_id: _mine(rater_id, study_id).order_by().values_list("state").annotate(n=Count("pk"))
)


def rater_queue_on_screen(*, rater: AbstractBaseUser, study: Study, now: datetime | None = None) -> RaterQueue:
    """The rater's queue beside the rating screen, at a cost that does not grow with their history
    in the study (3 queries): their unfinished assignments, the latest submitted ones (`_DONE_SHOWN`)
    and the number of each state. `done` holds those latest rows; `counts["done"]` is the whole
    number; `available` is not counted (the screen does not show it)."""
    now = now or timezone.now()
    unfinished = _MY_UNFINISHED.all(rater_id=rater.pk, study_id=study.pk)
    in_progress = [a for a in unfinished if a.state in Assignment.LEASED_STATES and a.lease_expires_at and a.lease_expires_at > now]
    returned = [a for a in unfinished if a.state == Assignment.State.RETURNED]
    done = _MY_LATEST_DONE.all(rater_id=rater.pk, study_id=study.pk)
    counts = dict(_MY_COUNTS.all(rater_id=rater.pk, study_id=study.pk))
    return RaterQueue(
        in_progress=in_progress,
        returned=returned,
        done=done,
        counts={
            "in_progress": len(in_progress),
            "returned": len(returned),
            "done": sum(counts.get(state, 0) for state in Assignment.FINISHED_STATES),
            "skipped": counts.get(Assignment.State.SKIPPED, 0),
        },
        studies=[study],
        available=0,
    )


def item_content_context(item: Item, assignment: Assignment | None, fields: list[Field]) -> dict[str, Any]:
    """What the rater reads above the form (`item_content_for_rater`), as template variables."""
    content = item_content_for_rater(item, fields, pair_order=assignment.pair_order if assignment else "ab")
    return {
        "revision": content.revision,
        "show_advice": content.show_advice,
        "show_privileged": content.show_privileged,
        "response": content.response,
        "pair": content.pair,
        "question_set": content.question_set,
    }
