"""Writes of consolidations: load a version from a file, review a label's place, revise (a new
version carrying the accepted moves as explicit mappings), approve a version."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from liveclin.consolidation.placing import KEYWORD, MAPPING
from liveclin.models import Consolidation, ConsolidationCategory, ConsolidationReview, ConsolidationRule
from medreview.errors import ConflictError


def _problem(file_name: str, where: str, message: str) -> ValidationError:
    return ValidationError({where: f"{file_name}: {where}: {message}"})


def _named(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("code"), str) and isinstance(entry.get("name"), str)


def _check_categories(finals: Any, file_name: str) -> set[str]:
    """The final categories and their intermediate ones; returns the intermediate codes."""
    if not isinstance(finals, list) or not finals:
        raise _problem(file_name, "categories", "a non-empty list of final categories")
    codes: list[str] = []
    intermediate: set[str] = set()
    for i, final in enumerate(finals, 1):
        if not _named(final):
            raise _problem(file_name, f"categories[{i}]", "needs code and name")
        codes.append(final["code"])
        for j, inter in enumerate(final.get("intermediate") or [], 1):
            if not _named(inter):
                raise _problem(file_name, f"categories[{i}].intermediate[{j}]", "needs code and name")
            codes.append(inter["code"])
            intermediate.add(inter["code"])
    doubled = sorted({c for c in codes if codes.count(c) > 1})
    if doubled:
        raise _problem(file_name, "categories", f"code {doubled[0]!r} used twice")
    return intermediate


def parse_consolidation(data: bytes, file_name: str) -> dict[str, Any]:
    """Check a consolidation file (docs/formats.md, "Consolidations") completely; ValidationError
    names the file, the record and the field."""
    try:
        doc = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _problem(file_name, "file", f"not UTF-8 JSON ({exc})") from exc
    if not isinstance(doc, dict):
        raise _problem(file_name, "file", "expected a JSON object")
    for field in ("key", "kind", "name"):
        if not isinstance(doc.get(field), str) or not doc[field].strip():
            raise _problem(file_name, field, "required text")
    if doc["kind"] not in Consolidation.Kind.values:
        raise _problem(file_name, "kind", f"{doc['kind']!r}: use one of {', '.join(Consolidation.Kind.values)}")
    intermediate = _check_categories(doc.get("categories"), file_name)
    for kind, field in ((KEYWORD, "keywords"), (MAPPING, "mappings")):
        for k, rule in enumerate(doc.get(field) or [], 1):
            text = "pattern" if kind == KEYWORD else "label"
            if not isinstance(rule, dict) or not isinstance(rule.get(text), str):
                raise _problem(file_name, f"{field}[{k}]", f"needs {text}")
            if rule.get("category") not in intermediate:
                raise _problem(file_name, f"{field}[{k}].category",
                               f"{rule.get('category')!r} is not an intermediate category of this file")
    return doc


def _next_version(key: str) -> int:
    return (Consolidation.objects.filter(key=key).aggregate(v=Max("version"))["v"] or 0) + 1


def consolidation_load(*, data: bytes, file_name: str, created_by: Any = None) -> Consolidation:
    """A new version of the file's consolidation (its key's next version)."""
    doc = parse_consolidation(data, file_name)
    # One transaction: the version, its categories and rules appear together (new rows only).
    with transaction.atomic():
        consolidation = Consolidation.objects.create(
            key=doc["key"], version=_next_version(doc["key"]), kind=doc["kind"], name=doc["name"],
            note=str(doc.get("note", "")), created_by=created_by)
        order = 0
        by_code: dict[str, ConsolidationCategory] = {}
        for final in doc["categories"]:
            order += 1
            parent = ConsolidationCategory.objects.create(
                consolidation=consolidation, level=1, code=final["code"], name=final["name"],
                name_zh=str(final.get("name_zh", "")), order=order)
            for inter in final.get("intermediate") or []:
                order += 1
                by_code[inter["code"]] = ConsolidationCategory.objects.create(
                    consolidation=consolidation, level=2, code=inter["code"], name=inter["name"],
                    name_zh=str(inter.get("name_zh", "")), parent=parent, order=order)
        rules = [ConsolidationRule(consolidation=consolidation, kind=KEYWORD, pattern=r["pattern"],
                                   category=by_code[r["category"]], order=n)
                 for n, r in enumerate(doc.get("keywords") or [], 1)]
        rules += [ConsolidationRule(consolidation=consolidation, kind=MAPPING, pattern=r["label"],
                                    category=by_code[r["category"]], order=len(rules) + n, note=str(r.get("note", "")))
                  for n, r in enumerate(doc.get("mappings") or [], 1)]
        ConsolidationRule.objects.bulk_create(rules)
    return consolidation


def consolidation_review(*, consolidation: Consolidation, label: str, reviewer: Any, action: str,
                         category: ConsolidationCategory | None = None, reason: str = "") -> ConsolidationReview:
    """A physician accepts a label's place, or moves it to another intermediate category with a reason."""
    if consolidation.status != Consolidation.Status.REVIEW:
        raise ConflictError(_("This version is approved; review the newest version instead."))
    if action not in ConsolidationReview.Action.values:
        raise ValidationError({"action": _("Accept the label's place, or move it.")})
    if action == ConsolidationReview.Action.MOVE:
        if category is None or category.consolidation_id != consolidation.pk or category.level != 2:
            raise ValidationError({"category": _("Choose the intermediate category to move the label to.")})
        if not reason.strip():
            raise ValidationError({"reason": _("Say why the label moves.")})
    else:
        category = None
    # One row per reviewer and label (a second review replaces the first): update_or_create is atomic.
    with transaction.atomic():
        review, _created = ConsolidationReview.objects.update_or_create(
            consolidation=consolidation, label=label.strip(), reviewer=reviewer,
            defaults={"action": action, "category": category, "reason": reason.strip()})
    return review


def consolidation_revise(*, base: Consolidation, actor: Any, note: str = "") -> Consolidation:
    """A new version: `base`'s categories and rules, plus an explicit mapping for each label the
    reviewers moved (the latest move per label; its reason kept on the mapping)."""
    moves: dict[str, ConsolidationReview] = {}
    for review in base.reviews.filter(action=ConsolidationReview.Action.MOVE).select_related("category").order_by("created_at", "pk"):
        moves[review.label] = review
    # One transaction, `base` locked: two revisions of one version at once would take the same number.
    with transaction.atomic():
        Consolidation.objects.select_for_update().get(pk=base.pk)
        new = Consolidation.objects.create(key=base.key, version=_next_version(base.key), kind=base.kind, name=base.name,
                                           based_on=base, note=note, created_by=actor)
        new.reviewers.set(base.reviewers.all())
        copies: dict[int, ConsolidationCategory] = {}
        for category in base.categories.order_by("level", "order"):
            copies[category.pk] = ConsolidationCategory.objects.create(
                consolidation=new, level=category.level, code=category.code, name=category.name,
                name_zh=category.name_zh, parent=copies.get(category.parent_id), order=category.order)
        rules = [r for r in base.rules.order_by("order") if not (r.kind == MAPPING and r.pattern in moves)]
        copied = [ConsolidationRule(consolidation=new, kind=r.kind, pattern=r.pattern, category=copies[r.category_id],
                                    order=n, note=r.note) for n, r in enumerate(rules, 1)]
        copied += [ConsolidationRule(consolidation=new, kind=MAPPING, pattern=label, category=copies[m.category_id],
                                     order=len(copied) + n, note=m.reason)
                   for n, (label, m) in enumerate(sorted(moves.items()), 1)]
        ConsolidationRule.objects.bulk_create(copied)
    return new


def consolidation_approve(*, consolidation: Consolidation, actor: Any) -> Consolidation:
    """Approve a version: reports and curated releases use a key's newest approved version."""
    # A single-row compare-and-swap: only a version still in review is approved.
    updated = Consolidation.objects.filter(pk=consolidation.pk, status=Consolidation.Status.REVIEW).update(
        status=Consolidation.Status.APPROVED, approved_at=timezone.now())
    if not updated:
        raise ConflictError(_("This version is already approved."))
    consolidation.refresh_from_db()
    return consolidation
