"""The benchmark's per-category results from imported model answers (LiveClin Fig. 7A, 7C, 8 as
tables): per category and model, the share of questions answered correctly, Wilson 95% interval.

- By stage (7C) or modality (8): a question's categories are those its own labels fall in under
  the consolidation version given (a question with a CT and a table counts in both; the scenario's
  images and tables, shared by every question of a case, are left out).
- By ICD-10 chapter (7A): the case's level-1 taxonomy label (the AI's, as imported).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Q

from agreement.metrics.label_audit import proportion
from cases.models import AILabel, Release
from liveclin.consolidation.placing import place
from liveclin.consolidation.selectors import rules_of
from liveclin.models import Consolidation, ModelAnswer


def _table(groups: dict[int, set[tuple[str, str]]], key_of: str) -> dict[str, Any]:
    """groups {mcq id: {(code, name)}} -> rows per category with one cell per model."""
    tally: dict[tuple[str, str], dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    models: set[str] = set()
    for mcq_id, model, correct in ModelAnswer.objects.filter(mcq_id__in=groups).values_list("mcq_id", "model_name", "correct"):
        models.add(model)
        for category in groups[mcq_id]:
            cell = tally[category][model]
            cell[0] += int(correct)
            cell[1] += 1
    ordered = sorted(models)
    return {"by": key_of, "models": ordered, "rows": [
        {"code": code, "name": name,
         "results": [{"model": m, **proportion(*tally[(code, name)].get(m, [0, 0])).as_dict()} for m in ordered]}
        for code, name in sorted(tally)]}


def _release_filter(release: Release | None) -> Q:
    return Q() if release is None else Q(release=release) | Q(revision__release=release)


def category_results(consolidation: Consolidation, release: Release | None = None) -> dict[str, Any]:
    rules, categories = rules_of(consolidation)
    groups: dict[int, set[tuple[str, str]]] = defaultdict(set)
    labels = AILabel.objects.filter(_release_filter(release), kind=consolidation.kind, mcq__isnull=False)
    for mcq_id, value in labels.values_list("mcq_id", "value"):
        rule = place(value, rules)
        if rule is not None:
            final = categories[rule.category].parent
            groups[mcq_id].add((final.code, final.name))
    return {**_table(groups, consolidation.kind),
            "consolidation": {"key": consolidation.key, "version": consolidation.version}}


def chapter_results(release: Release | None = None) -> dict[str, Any]:
    chapters: dict[int, tuple[str, str]] = {}
    labels = AILabel.objects.filter(_release_filter(release), kind=AILabel.Kind.TAXONOMY, level=1).select_related("node")
    for label in labels.order_by("pk"):
        chapters[label.revision_id] = (label.node.code, label.node.name)
    groups: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for mcq_id, revision_id in ModelAnswer.objects.filter(revision_id__in=chapters).values_list("mcq_id", "revision_id"):
        groups[mcq_id].add(chapters[revision_id])
    return _table(groups, "chapter")
