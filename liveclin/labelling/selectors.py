"""Reads the label-task pages, API and reports share: the next unit for a rater, what a unit shows
(never the AI's taxonomy label in a blind assignment), a node's path, and each unit's final label."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Q

from cases.models import AILabel, TaxonomyNode
from liveclin.models import LabelAnswer, LabelDecision, LabelTask, LabelUnit


def next_unit(task: LabelTask, user: Any) -> LabelUnit | None:
    """The first open unit the user has not answered that still lacks answers."""
    return (task.units.filter(status=LabelUnit.Status.OPEN).exclude(answers__rater_id=user.pk)
            .annotate(n=Count("answers")).filter(n__lt=task.raters_per_unit).order_by("order").first())


def task_progress(task: LabelTask, user: Any) -> dict[str, int]:
    counts = task.units.aggregate(
        units=Count("pk", distinct=True),
        mine=Count("pk", filter=Q(answers__rater_id=user.pk), distinct=True),
        inspection=Count("pk", filter=Q(status=LabelUnit.Status.INSPECTION), distinct=True),
        resolved=Count("pk", filter=Q(status=LabelUnit.Status.RESOLVED), distinct=True),
    )
    return {k: int(v or 0) for k, v in counts.items()}


def node_path(node: TaxonomyNode | None) -> list[TaxonomyNode]:
    """Level 1 first, down to `node`."""
    path: list[TaxonomyNode] = []
    while node is not None:
        path.insert(0, node)
        node = node.parent
    return path


def case_content(unit: LabelUnit) -> dict[str, Any]:
    """What a blind assignment shows of a case: its text only. Never the revision's chapter, cluster,
    ICD-10 fields or raw record, which carry the labels the case came with."""
    revision = unit.revision
    qs = getattr(revision, "question_set", None)
    return {
        "language": revision.language,
        "narrative": revision.narrative,
        "scenario": qs.scenario if qs else "",
        "case_report": qs.case_report if qs else "",
    }


def audited_item(unit: LabelUnit) -> dict[str, Any]:
    """The image or table an audited label is about, its caption, and where it sits in the case."""
    label = unit.ai_label
    assert label is not None
    detail: dict[str, Any] = {}
    if label.target in (AILabel.Target.IMAGE, AILabel.Target.TABLE) and label.position:
        if label.mcq_id:
            details = label.mcq.image_details if label.target == AILabel.Target.IMAGE else label.mcq.table_details
        else:
            qs = getattr(unit.revision, "question_set", None)
            details = (qs.scenario_images if label.target == AILabel.Target.IMAGE else qs.scenario_tables) if qs else []
        if 0 < label.position <= len(details or []) and isinstance(details[label.position - 1], dict):
            detail = details[label.position - 1]
    return {
        "target": label.target,
        "mcq": label.mcq.order if label.mcq_id else None,
        "question": label.mcq.question if label.mcq_id else "",
        "position": label.position,
        "caption": str(detail.get("caption", "")),
        "url": str(detail.get("url", "")),
        "file": str(detail.get("file", "")),
        "table": detail,
        "ai_label": label.value,
        "ai_model": label.model_name,
    }


def family_labels(task: LabelTask, target: str, user: Any = None) -> list[str]:
    """Suggestions for the correction box: the AI's labels of this family in the task and, for a
    rater, their own corrections (never another rater's before inspection); every correction for
    an inspector (`user` None)."""
    ai = AILabel.objects.filter(label_units__task=task, target=target).values_list("value", flat=True)
    edited = LabelAnswer.objects.filter(unit__task=task, unit__ai_label__target=target).exclude(value="")
    if user is not None:
        edited = edited.filter(rater_id=user.pk)
    return sorted({*ai, *edited.values_list("value", flat=True)})[:500]


@dataclass(frozen=True)
class FinalLabel:
    unit: LabelUnit
    source: str  # "agreed" | "inspection"
    node: TaxonomyNode | None
    verdict: str
    value: str


def final_labels(task: LabelTask) -> list[FinalLabel]:
    """Each resolved unit's final label: the inspector's decision, else the raters' agreed answer."""
    units = list(task.units.filter(status=LabelUnit.Status.RESOLVED).select_related("ai_label").order_by("order"))
    decisions = {d.unit_id: d for d in LabelDecision.objects.filter(unit__in=units).select_related("node__parent__parent")}
    answers: dict[int, LabelAnswer] = {}
    for a in LabelAnswer.objects.filter(unit__in=units).select_related("node__parent__parent").order_by("pk"):
        answers.setdefault(a.unit_id, a)
    out = []
    for unit in units:
        chosen: LabelDecision | LabelAnswer | None = decisions.get(unit.pk) or answers.get(unit.pk)
        if chosen is None:
            continue
        out.append(FinalLabel(unit, "inspection" if unit.pk in decisions else "agreed", chosen.node,
                              chosen.verdict, chosen.value))
    return out


def answers_by_unit(task: LabelTask) -> dict[int, list[LabelAnswer]]:
    out: dict[int, list[LabelAnswer]] = {}
    for a in LabelAnswer.objects.filter(unit__task=task).select_related("node__parent__parent").order_by("pk"):
        out.setdefault(a.unit_id, []).append(a)
    return out


def ai_paths(task: LabelTask) -> dict[int, dict[int, str]]:
    """{revision id: {level: node code}}: the AI's taxonomy labels of the task's cases (the latest
    label per level when several were imported; `task.ai_model` when set)."""
    labels = AILabel.objects.filter(kind=AILabel.Kind.TAXONOMY, taxonomy=task.taxonomy,
                                    revision__label_units__task=task).select_related("node").order_by("pk")
    if task.ai_model:
        labels = labels.filter(model_name=task.ai_model)
    out: dict[int, dict[int, str]] = {}
    for label in labels.distinct():
        out.setdefault(label.revision_id, {})[int(label.level or 0)] = label.node.code
    return out
