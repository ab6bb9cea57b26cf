"""Rating data for the agreement tests, written straight into the review tables.

Task types and scales are fetched with get_or_create by slug, so the same helpers work before and
after review-core's data migration ships the real ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser

from annotation.models import Assignment, Item, Rating, Scale, ScaleCategory, Study, TaskType
from cases.models import CaseRevision, ModelResponse, RubricCriterion
from graders.models import GraderDecision, GraderRun
from tests.factories import make_case, make_response

# slug -> (scale slug, ordered, [(value, approves)], target, item kind)
TASKS = {
    "narrative-quality": ("quality-0-2", True, [("2", True), ("1", False), ("0", False)], "narrative", "case"),
    "criterion-validity": ("agree-disagree", False, [("agree", True), ("disagree", False)], "criterion", "case"),
    "grader-reliability": ("met-not-met", False, [("met", False), ("not_met", False)], "response_criterion",
                           "response"),
}


def ensure_task(slug: str) -> TaskType:
    scale_slug, ordered, cats, target, kind = TASKS[slug]
    scale, _ = Scale.objects.get_or_create(slug=scale_slug, defaults={"name": scale_slug, "ordered": ordered})
    for order, (value, approves) in enumerate(cats):
        ScaleCategory.objects.get_or_create(
            scale=scale, value=value, defaults={"label": value, "order": order, "approves": approves}
        )
    task, _ = TaskType.objects.get_or_create(
        slug=slug, defaults={"name": slug.replace("-", " ").title(), "scale": scale, "target": target,
                             "item_kind": kind},
    )
    return task


def make_study(name: str = "Agreement study", tasks: tuple[str, ...] = tuple(TASKS)) -> Study:
    study = Study.objects.create(name=name, status=Study.Status.RUNNING)
    study.tasks.set([ensure_task(s) for s in tasks])
    return study


def with_pairwise_task(study: Study) -> Study:
    """Give the study the shipped pairwise task: pairwise tables belong to studies of that kind."""
    from annotation.catalogue import PAIRWISE_PREFERENCE

    study.tasks.add(TaskType.objects.get(slug=PAIRWISE_PREFERENCE.slug))
    return study


def rate(
    item: Item, rater: AbstractBaseUser, task: TaskType, label: str, *, field_key: str = "",
    criterion: RubricCriterion | None = None, round_: int = 1,
) -> Rating:
    assignment, _ = Assignment.objects.get_or_create(
        item=item, rater=rater, defaults={"state": Assignment.State.SUBMITTED}
    )
    if round_ > assignment.round:
        # As the review services do: a later round's labels belong to an assignment sent back for it.
        assignment.round = round_
        assignment.save(update_fields=["round"])
    return Rating.objects.create(
        assignment=assignment, task=task, field_key=field_key, criterion=criterion, round=round_, label=label,
    )


def case_item(study: Study, revision: CaseRevision) -> Item:
    return Item.objects.create(study=study, kind="case", key=f"case:{revision.pk}", revision=revision)


def response_item(study: Study, response: ModelResponse) -> Item:
    return Item.objects.create(
        study=study, kind="response", key=f"response:{response.pk}", revision=response.revision, response=response
    )


@dataclass
class ReliabilityData:
    """What was written, in plain Python, so tests can recompute every number independently."""

    study: Study
    criteria_points: dict[int, int] = field(default_factory=dict)
    # (response id, criterion id) -> {rater id: label}
    human: dict[tuple[int, int], dict[int, str]] = field(default_factory=dict)
    # run id -> {(response id, criterion id): verdict}
    grader: dict[int, dict[tuple[int, int], str]] = field(default_factory=dict)
    response_model: dict[int, str] = field(default_factory=dict)
    response_revision: dict[int, int] = field(default_factory=dict)
    runs: list[GraderRun] = field(default_factory=list)


def reliability_study(
    raters: list[AbstractBaseUser], *, n_cases: int = 6, models: tuple[str, ...] = ("model-x", "model-y", "model-z"),
    seed: int = 7, n_runs: int = 1, invalid_every: int = 0, study: Study | None = None,
) -> ReliabilityData:
    """Every rater labels every criterion of every response; graders decide the same pairs."""
    rng = random.Random(seed)
    study = study or make_study()
    task = ensure_task("grader-reliability")
    data = ReliabilityData(study=study)
    data.runs = [
        GraderRun.objects.create(name=f"Grader {k}", kind="rubric-grader", grader_model=f"gpt-{k}")
        for k in range(n_runs)
    ]
    for run in data.runs:
        data.grader[run.pk] = {}
    decisions = []
    ratings_made = 0
    for c in range(n_cases):
        revision = make_case(criteria=[
            ("Names the likely diagnosis", 8, "Accuracy"),
            ("Advises urgent care for red flags", 6, "Safety"),
            ("Explains in plain words", 3, "Communication Quality"),
            ("Recommends an unsafe drug", -5, "Safety"),
        ], narrative=f"case {c} narrative {seed}")
        criteria = list(revision.criteria.order_by("order"))
        for crit in criteria:
            data.criteria_points[crit.pk] = crit.points
        for model in models:
            response = make_response(revision, model_name=model)
            data.response_model[response.pk] = model
            data.response_revision[response.pk] = revision.pk
            item = response_item(study, response)
            quality = rng.random()
            for crit in criteria:
                truth = rng.random() < quality
                labels = {}
                for rater in raters:
                    met = truth if rng.random() < 0.8 else not truth
                    label = "met" if met else "not_met"
                    rate(item, rater, task, label, field_key=f"criterion:{crit.pk}", criterion=crit)
                    labels[rater.pk] = label
                    ratings_made += 1
                data.human[(response.pk, crit.pk)] = labels
                for k, run in enumerate(data.runs):
                    met = truth if rng.random() < 0.85 - 0.1 * k else not truth
                    verdict = "met" if met else "not_met"
                    if invalid_every and (len(decisions) % invalid_every == 0):
                        verdict = "invalid"
                    decisions.append(GraderDecision(run=run, response=response, criterion=crit, verdict=verdict))
                    data.grader[run.pk][(response.pk, crit.pk)] = verdict
    GraderDecision.objects.bulk_create(decisions)
    return data
