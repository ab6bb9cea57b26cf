"""Reads of consolidations: the labels to place (with how often they occur), each label's place and
the rule that put it there, the reviews, and the distribution a report shows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, Q

from cases.models import AILabel, Release
from liveclin.consolidation.placing import Rule, place
from liveclin.models import Consolidation, ConsolidationCategory, ConsolidationReview


def rules_of(consolidation: Consolidation) -> tuple[list[Rule], dict[str, ConsolidationCategory]]:
    categories = {c.code: c for c in consolidation.categories.select_related("parent")}
    by_pk = {c.pk: c for c in categories.values()}
    rules = [Rule(r.kind, r.pattern, by_pk[r.category_id].code, r.order, r.pk)
             for r in consolidation.rules.order_by("order")]
    return rules, categories


def label_counts(consolidation: Consolidation, release: Release | None = None) -> dict[str, int]:
    """{label: how many AI labels carry it} for the consolidation's kind, in one release (the cases'
    or the labels' release) or in all."""
    labels = AILabel.objects.filter(kind=consolidation.kind)
    if release is not None:
        labels = labels.filter(Q(release=release) | Q(revision__release=release))
    return {row["value"]: row["n"] for row in labels.values("value").annotate(n=Count("pk")).order_by("value")}


@dataclass
class Placed:
    label: str
    count: int
    rule: Rule | None
    reviews: list[ConsolidationReview] = field(default_factory=list)
    index: int = 0  # the label's number on the page (its form's element ids)


def mapping(consolidation: Consolidation, counts: dict[str, int]) -> dict[str, Any]:
    """Final categories, their intermediate ones and the labels each holds with the rule that placed
    them; the labels no rule places."""
    rules, categories = rules_of(consolidation)
    reviews: dict[str, list[ConsolidationReview]] = {}
    for review in consolidation.reviews.select_related("reviewer__profile", "category"):
        reviews.setdefault(review.label, []).append(review)
    held: dict[str, list[Placed]] = {}
    unplaced: list[Placed] = []
    for index, (label, count) in enumerate(counts.items(), 1):
        rule = place(label, rules)
        placed = Placed(label, count, rule, reviews.get(label, []), index)
        (held.setdefault(rule.category, []) if rule else unplaced).append(placed)
    finals = []
    for final in (c for c in categories.values() if c.level == 1):
        inter = [{"category": c, "labels": held.get(c.code, []), "count": sum(p.count for p in held.get(c.code, []))}
                 for c in categories.values() if c.parent_id == final.pk]
        finals.append({"category": final, "intermediate": inter, "count": sum(i["count"] for i in inter)})
    return {"finals": finals, "unplaced": unplaced, "total": sum(counts.values()),
            "intermediate_categories": [c for c in categories.values() if c.level == 2]}


def chosen_version(key: str) -> Consolidation | None:
    """The version reports and curated releases use: the key's newest approved version."""
    return Consolidation.objects.filter(key=key, status=Consolidation.Status.APPROVED).order_by("-version").first()


def distribution(consolidation: Consolidation, release: Release | None = None) -> dict[str, Any]:
    """Fig. 7C / Fig. 8 as a table: labels per final and intermediate category, with shares."""
    view = mapping(consolidation, label_counts(consolidation, release))
    total = view["total"]

    def share(n: int) -> float | None:
        return n / total if total else None

    return {
        "consolidation": {"id": consolidation.pk, "key": consolidation.key, "version": consolidation.version,
                          "status": consolidation.status},
        "release": release.pk if release else None, "total": total,
        "categories": [{"code": f["category"].code, "name": f["category"].name, "name_zh": f["category"].name_zh,
                        "count": f["count"], "share": share(f["count"]),
                        "intermediate": [{"code": i["category"].code, "name": i["category"].name,
                                          "name_zh": i["category"].name_zh, "count": i["count"],
                                          "share": share(i["count"])} for i in f["intermediate"]]}
                       for f in view["finals"]],
        "unplaced": {"labels": len(view["unplaced"]), "count": sum(p.count for p in view["unplaced"])},
    }


def chosen_versions() -> list[Consolidation]:
    """The newest approved version of every consolidation key (what curated releases use)."""
    newest: dict[str, Consolidation] = {}
    for c in Consolidation.objects.filter(status=Consolidation.Status.APPROVED).order_by("key", "-version"):
        newest.setdefault(c.key, c)
    return list(newest.values())


def _final_of(consolidation: Consolidation) -> Any:
    rules, categories = rules_of(consolidation)

    def final(value: str) -> dict[str, str] | None:
        rule = place(value, rules)
        if rule is None:
            return None
        inter = categories[rule.category]
        return {"final": inter.parent.code, "final_name": inter.parent.name, "intermediate": inter.code}

    return final


def categories_by_revision(revision_ids: list[int]) -> tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]:
    """(the versions used, {revision id: categories}) for a curated release: each question's stage
    category and each image's or table's modality category under the chosen versions. Empty when no
    version is approved."""
    versions = chosen_versions()
    out: dict[int, dict[str, Any]] = {}
    for consolidation in versions:
        final = _final_of(consolidation)
        labels = AILabel.objects.filter(kind=consolidation.kind, revision_id__in=revision_ids).select_related("mcq")
        for label in labels.order_by("pk"):
            where = f"mcq {label.mcq.order}" if label.mcq_id else "scenario"
            if label.position:
                where += f" {label.target} {label.position}"
            block = out.setdefault(label.revision_id, {}).setdefault(consolidation.key, {})
            block[where] = final(label.value)
    used = [{"key": c.key, "version": c.version, "kind": c.kind, "name": c.name} for c in versions]
    return used, out
