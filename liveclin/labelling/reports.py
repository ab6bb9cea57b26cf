"""The label tasks' reports: App. E's accuracy table (the AI against the experts' final label, per
level, Wilson CI) with the experts' agreement where two rated a case, and App. J's audit accuracy
per label family. Statistics come from `agreement.metrics.label_audit` (pure, tested there)."""

from __future__ import annotations

from typing import Any

from agreement.metrics.label_audit import audit_accuracy, expert_agreement_by_level, taxonomy_accuracy
from agreement.metrics.results import AgreementResult
from liveclin.labelling.selectors import ai_paths, answers_by_unit, final_labels, node_path
from liveclin.models import LabelAnswer, LabelTask, LabelUnit


def _coefficient(result: AgreementResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"value": result.value, "ci": list(result.ci) if result.ci else None, "n_subjects": result.n_subjects,
            "reason": result.reason}


def _status_counts(task: LabelTask) -> dict[str, int]:
    counts = dict.fromkeys(LabelUnit.Status.values, 0)
    for status in task.units.values_list("status", flat=True):
        counts[status] += 1
    return counts


def _expert_agreement(task: LabelTask, depth: int) -> list[Any]:
    """Per level, items x experts for the items two experts (or more) assigned."""
    ratings: dict[int, list[list[Any]]] = {level: [] for level in range(1, depth + 1)}
    for answers in answers_by_unit(task).values():
        if len(answers) < 2:
            continue
        paths = [[n.code for n in node_path(a.node)] for a in answers]
        for level in range(1, depth + 1):
            ratings[level].append([p[level - 1] if len(p) >= level else None for p in paths])
    width = max((len(row) for rows in ratings.values() for row in rows), default=0)
    for rows in ratings.values():
        for row in rows:
            row.extend([None] * (width - len(row)))
    return expert_agreement_by_level(ratings) if width >= 2 else []


def assignment_report(task: LabelTask) -> dict[str, Any]:
    """Per level: the AI's accuracy against the final expert label; the experts' agreement."""
    assert task.taxonomy is not None
    levels = list(task.taxonomy.levels.order_by("depth"))
    depth = len(levels)
    ai = ai_paths(task)
    finals = final_labels(task)
    ai_rows = [[ai.get(f.unit.revision_id, {}).get(level) for level in range(1, depth + 1)] for f in finals]
    expert_rows = [[n.code for n in node_path(f.node)] for f in finals]
    accuracy = taxonomy_accuracy(ai_rows, expert_rows, levels=depth)
    agreement = _expert_agreement(task, depth)
    return {
        "task": task.pk, "kind": task.kind, "taxonomy": str(task.taxonomy), "ai_model": task.ai_model,
        "units": _status_counts(task), "compared": len(finals),
        "levels": [{"level": lv.depth, "name": lv.name, "name_zh": lv.name_zh, **accuracy[lv.depth].as_dict()}
                   for lv in levels],
        "expert_agreement": [{"level": a.level, "items": a.n_items, "cohen_kappa": _coefficient(a.cohen),
                              "gwet_ac1": _coefficient(a.gwet_ac1)} for a in agreement],
    }


def audit_report(task: LabelTask) -> dict[str, Any]:
    """Per label family (image, table ...) and pooled: the share of AI labels physicians kept."""
    finals = final_labels(task)
    families = [f.unit.ai_label.target for f in finals if f.unit.ai_label]
    correct = [f.verdict == LabelAnswer.Verdict.CORRECT for f in finals if f.unit.ai_label]
    accuracy = audit_accuracy(families, correct) if finals else {}
    corrections = [{"unit": f.unit.pk, "family": f.unit.ai_label.target, "ai_label": f.unit.ai_label.value,
                    "label": f.value, "source": f.source}
                   for f in finals if f.unit.ai_label and f.verdict == LabelAnswer.Verdict.EDITED]
    return {
        "task": task.pk, "kind": task.kind, "ai_model": task.ai_model, "units": _status_counts(task),
        "compared": len(finals),
        "families": [{"family": str(k), **p.as_dict()} for k, p in accuracy.items() if k != "all"],
        "all": accuracy["all"].as_dict() if "all" in accuracy else None,
        "corrections": corrections,
    }


def task_report(task: LabelTask) -> dict[str, Any]:
    return assignment_report(task) if task.kind == LabelTask.Kind.ASSIGNMENT else audit_report(task)
