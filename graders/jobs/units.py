"""Work units of a grading job: what to ask, how it is keyed, and which are already stored.

A unit key is a tuple that matches the unique constraint of the row the answer is stored in:
- rubric-grader: (response_id, criterion_id)      -> GraderDecision(run, response, criterion)
- llm-judge:     (response_id, "")                 -> JudgeScore(run, response, axis="")
- likert-judge:  (response_id, axis)               -> JudgeScore(run, response, axis)
- pairwise:      (response_a_id, response_b_id, order) with a < b, order "ab" / "ba"
                                                   -> PairwiseJudgement(run, response_a, response_b, order)
- question-set-judge: (question_set_id,)          -> QuestionSetJudgement(run, question_set)
"""

from collections import defaultdict
from itertools import combinations
from typing import Any

from django.db.models import Q, QuerySet

from cases.models import Dataset, ModelResponse, Release, RubricCriterion
from graders.models import GraderDecision, GraderKind, GraderRun, JudgeScore, PairwiseJudgement

UnitKey = tuple[Any, ...]


class SelectionError(ValueError):
    """The selection names nothing that exists, or nothing to grade."""


def selection_responses(selection: dict[str, Any]) -> QuerySet[ModelResponse]:
    """The model responses a selection covers ({"study"}, {"release"} or {"dataset", "models"})."""
    if "study" in selection:
        from annotation.models import Item

        items = Item.objects.filter(study_id=selection["study"])
        linked = Q(pk__in=items.values("response_id")) | Q(pk__in=items.values("response_b_id"))
        responses = ModelResponse.objects.filter(linked)
        if not responses.exists():
            # A study over cases or criteria (no responses in its items): grade the responses to its cases.
            responses = ModelResponse.objects.filter(revision__in=items.values("revision_id"))
        return responses
    if "release" in selection:
        release_id = selection["release"]
        return ModelResponse.objects.filter(Q(release_id=release_id) | Q(revision__release_id=release_id))
    if "dataset" in selection:
        responses = ModelResponse.objects.filter(revision__case__dataset_id=selection["dataset"])
        if selection.get("models"):
            responses = responses.filter(model_name__in=selection["models"])
        return responses
    raise SelectionError("Choose a study, a release, or a dataset and model names.")


def selection_label(selection: dict[str, Any]) -> str:
    if "study" in selection:
        from annotation.models import Study

        study = Study.objects.filter(pk=selection["study"]).first()
        return f"Study: {study.name}" if study else f"Study #{selection['study']}"
    if "release" in selection:
        release = Release.objects.select_related("dataset").filter(pk=selection["release"]).first()
        label = f"Release: {release}" if release else f"Release #{selection['release']}"
        return label + (f" ({release.model_name})" if release and release.model_name else "")
    dataset = Dataset.objects.filter(pk=selection.get("dataset")).first()
    models = ", ".join(selection.get("models") or []) or "all models"
    return f"{dataset or 'Dataset #' + str(selection.get('dataset'))}: {models}"


def all_units(kind: str, responses: QuerySet[ModelResponse], *, axes: list[str]) -> list[UnitKey]:
    """Every unit of the selection, in a stable order (so chunks are reproducible)."""
    response_ids = responses.values("pk")
    if kind == GraderKind.RUBRIC_GRADER:
        pairs = (
            RubricCriterion.objects.filter(revision__responses__in=response_ids)
            .values_list("revision__responses__id", "id")
            .order_by("revision__responses__id", "order", "id")
        )
        return [(r, c) for r, c in pairs]
    ids = list(responses.order_by("pk").values_list("pk", flat=True))
    if kind == GraderKind.LLM_JUDGE:
        return [(r, "") for r in ids]
    if kind == GraderKind.LIKERT_JUDGE:
        return [(r, axis) for r in ids for axis in axes]
    if kind == GraderKind.PAIRWISE_JUDGE:
        by_revision: dict[int, list[int]] = defaultdict(list)
        for pk, revision_id in responses.order_by("revision_id", "pk").values_list("pk", "revision_id"):
            by_revision[revision_id].append(pk)
        return [
            (a, b, order)
            for ids_ in by_revision.values()
            for a, b in combinations(sorted(ids_), 2)
            for order in ("ab", "ba")
        ]
    raise SelectionError(f"Unknown grader kind {kind!r}")


def stored_units(kind: str, run: GraderRun, *, among: list[UnitKey] | None = None) -> set[UnitKey]:
    """Units of the run that already have a stored answer (valid, invalid or failed)."""
    if kind == GraderKind.QUESTION_SET_JUDGE:
        from graders.kinds import question_set_judge  # it builds on this module's key shape

        return question_set_judge.stored_units(run, among=among)
    if kind == GraderKind.RUBRIC_GRADER:
        qs = GraderDecision.objects.filter(run=run)
        if among is not None:
            qs = qs.filter(response_id__in={k[0] for k in among})
        return set(qs.values_list("response_id", "criterion_id"))
    if kind in (GraderKind.LLM_JUDGE, GraderKind.LIKERT_JUDGE):
        qs = JudgeScore.objects.filter(run=run)
        if among is not None:
            qs = qs.filter(response_id__in={k[0] for k in among})
        return set(qs.values_list("response_id", "axis"))
    qs = PairwiseJudgement.objects.filter(run=run)
    if among is not None:
        qs = qs.filter(response_a_id__in={k[0] for k in among})
    return set(qs.values_list("response_a_id", "response_b_id", "order"))


def as_key(unit: list[Any] | tuple[Any, ...]) -> UnitKey:
    """JSON stores tuples as lists; keys compare as tuples."""
    return tuple(unit)
