"""The template context of the label-task pages (what each screen shows, and what it must not)."""

from __future__ import annotations

from typing import Any

from django.http import QueryDict
from django.urls import reverse

from liveclin.labelling import selectors
from liveclin.models import LabelAnswer, LabelTask, LabelUnit


def levels(task: LabelTask) -> int:
    return task.taxonomy.levels.count() if task.taxonomy_id and task.taxonomy else 0


def template(task: LabelTask) -> str:
    return "labelling/assign.html" if task.kind == LabelTask.Kind.ASSIGNMENT else "labelling/audit.html"


def _level_options(task: LabelTask) -> list[dict[str, Any]]:
    assert task.taxonomy is not None
    return [{"depth": lv.depth, "name": lv.name, "name_zh": lv.name_zh}
            for lv in task.taxonomy.levels.order_by("depth")]


def _nodes_url(task: LabelTask) -> str:
    return reverse("cases_api:taxonomy_nodes", args=[task.taxonomy_id])


def unit_context(unit: LabelUnit, user: Any, *, posted: QueryDict | None = None) -> dict[str, Any]:
    """A rater's screen. Assignment: the case text and the pickers, never the AI's label; audit: the
    item, its caption and the AI's label."""
    task = unit.task
    own = LabelAnswer.objects.filter(unit=unit, rater_id=user.pk).select_related("node__parent__parent").first()
    context: dict[str, Any] = {"task": task, "unit": unit, "own": own,
                               "progress": selectors.task_progress(task, user), "posted": posted or {}}
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        assert task.taxonomy is not None
        context.update(
            case=selectors.case_content(unit), levels=_level_options(task), nodes_url=_nodes_url(task),
            top_nodes=list(task.taxonomy.nodes.filter(level=1).order_by("order")),
            own_path=selectors.node_path(own.node) if own else [],
        )
    else:
        item = selectors.audited_item(unit)
        context.update(item=item, suggestions=selectors.family_labels(task, item["target"], user))
    return context


def inspection_context(unit: LabelUnit) -> dict[str, Any]:
    """Inspectors are senior: they see every answer and, after the raters, the AI's label too."""
    task = unit.task
    answers = list(unit.answers.select_related("rater__profile", "node__parent__parent"))
    context: dict[str, Any] = {"task": task, "unit": unit, "answers": [
        {"answer": a, "path": selectors.node_path(a.node)} for a in answers]}
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        assert task.taxonomy is not None
        ai = selectors.ai_paths(task).get(unit.revision_id, {})
        context.update(case=selectors.case_content(unit), levels=_level_options(task), ai_path=ai,
                       nodes_url=_nodes_url(task),
                       top_nodes=list(task.taxonomy.nodes.filter(level=1).order_by("order")))
    else:
        context.update(item=selectors.audited_item(unit), suggestions=selectors.family_labels(task, unit.ai_label.target))
    return context
