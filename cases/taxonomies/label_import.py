"""Importing AI labels (`ai-labels`, `liveclin-labels`): the same pipeline as every release file.

`release_import` hands these formats here after its argument and same-file checks. The file is
parsed completely (`cases.importers.ai_labels`); under the dataset's lock each label is matched to
the current revision of its case, to its MCQ, image or table, and (taxonomy labels) to a node of
the taxonomy; then one transaction writes the release and every label. Any error and nothing is
written (status "refused", every error with its file, record and field).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction

from cases import bulk
from cases.importers.ai_labels import AILabelParseResult, ParsedAILabel, parse_jsonl, parse_liveclin
from cases.importers.base import ImportIssue
from cases.importers.limits import max_length
from cases.models import (
    MCQ,
    AILabel,
    Case,
    Dataset,
    ImportFormat,
    QuestionSet,
    Release,
    Taxonomy,
    TaxonomyNode,
)
from cases.taxonomies.resolve import IndexedNode, NodeIndex

AI_LABEL_FORMATS = (ImportFormat.AI_LABELS, ImportFormat.LIVECLIN_LABELS)
DEFAULT_TAXONOMY = "liveclin"


def parse(fmt: str, data: bytes, file_name: str, model_name: str) -> AILabelParseResult:
    if fmt == ImportFormat.LIVECLIN_LABELS:
        return parse_liveclin(data, file_name, model=model_name)
    return parse_jsonl(data, file_name, default_model=model_name)


def find_taxonomy(name: str) -> Taxonomy | None:
    """`key@version`, or `key` for its most recently loaded version."""
    key, _, version = (name or DEFAULT_TAXONOMY).partition("@")
    found = Taxonomy.objects.filter(key=key)
    return (found.filter(version=version) if version else found.order_by("-imported_at", "-pk")).first()


@dataclass
class _Where:
    """What one case's current revision offers to be labelled."""

    revision_id: int
    mcqs: list[tuple[int, int, int]] = field(default_factory=list)  # (MCQ id, images, tables) in order
    scenario: tuple[int, int] = (0, 0)  # (images, tables)
    has_set: bool = False


def _places(dataset: Dataset, case_ids: set[str]) -> dict[str, _Where]:
    """The current revision of each named case with its question set's MCQs and detail counts (3 queries)."""
    current = dict(Case.objects.filter(dataset=dataset, external_id__in=case_ids)
                   .values_list("external_id", "current_revision_id"))
    places = {ext: _Where(rev) for ext, rev in current.items() if rev is not None}
    by_revision = {w.revision_id: w for w in places.values()}
    sets = {}
    for set_id, revision_id, images, tables in QuestionSet.objects.filter(revision_id__in=by_revision).values_list(
        "pk", "revision_id", "scenario_images", "scenario_tables"
    ):
        where = by_revision[revision_id]
        where.has_set, where.scenario = True, (len(images or []), len(tables or []))
        sets[set_id] = where
    for set_id, mcq_id, images, tables in MCQ.objects.filter(question_set_id__in=sets).order_by(
        "question_set_id", "order"
    ).values_list("question_set_id", "pk", "image_details", "table_details"):
        sets[set_id].mcqs.append((mcq_id, len(images or []), len(tables or [])))
    return places


def _locate(label: ParsedAILabel, where: _Where) -> tuple[int | None, str, str]:
    """(MCQ id or None, field, problem) for the label's place in the case's current question set."""
    if label.target == "case":
        return None, "", ""
    if not where.has_set:
        return None, "target", f"case {label.case_id!r} has no question set to hold a {label.target} label"
    count = len(where.mcqs)
    if label.mcq and label.mcq > count:
        return None, "mcq", f"MCQ {label.mcq} out of range: the question set of {label.case_id!r} has {count} MCQs"
    mcq_id, images, tables = where.mcqs[label.mcq - 1] if label.mcq else (None, *where.scenario)
    available = images if label.target == "image" else tables
    if label.target in ("image", "table") and (label.position or 0) > available:
        owner = f"MCQ {label.mcq}" if label.mcq else "the scenario"
        return None, "position", f"{label.target} {label.position} out of range: {owner} of {label.case_id!r} has {available}"
    return mcq_id, "", ""


def _node_index(taxonomy: Taxonomy) -> NodeIndex:
    return NodeIndex.build(
        IndexedNode(pk, level, code, (name, name_zh, *(aliases or [])))
        for pk, level, code, name, name_zh, aliases in TaxonomyNode.objects.filter(taxonomy=taxonomy)
        .values_list("pk", "level", "code", "name", "name_zh", "aliases")
    )


@dataclass
class _Plan:
    rows: list[AILabel] = field(default_factory=list)
    errors: list[ImportIssue] = field(default_factory=list)


def _plan(parsed: AILabelParseResult, dataset: Dataset | None, taxonomy_name: str, file_name: str) -> _Plan:
    plan = _Plan()

    def error(label: ParsedAILabel | None, field_name: str | None, message: str) -> None:
        plan.errors.append(ImportIssue(label.record if label else None, field_name, message, file_name))

    if dataset is None or not Case.objects.filter(dataset=dataset).exists():
        error(None, "dataset", f"dataset {dataset.name if dataset else '(new)'!r} has no cases yet; import its "
                               "cases before their AI labels")
        return plan
    taxonomy = None
    if any(label.kind == "taxonomy" for label in parsed.labels):
        taxonomy = find_taxonomy(taxonomy_name)
        if taxonomy is None:
            error(None, "taxonomy", f"no taxonomy {taxonomy_name or DEFAULT_TAXONOMY!r} is loaded; load it first "
                                    "(manage.py load_taxonomy liveclin, or a taxonomy file)")
            return plan
    index = _node_index(taxonomy) if taxonomy is not None else NodeIndex()
    places = _places(dataset, {label.case_id for label in parsed.labels})
    for label in parsed.labels:
        where = places.get(label.case_id)
        if where is None:
            error(label, label.id_key, f"no case {label.case_id!r} in dataset {dataset.name!r}; import the cases first")
            continue
        mcq_id, field_name, problem = _locate(label, where)
        if problem:
            error(label, field_name, problem)
            continue
        node_id = index.resolve(label.level, label.value, label.code) if label.kind == "taxonomy" else None
        if label.kind == "taxonomy" and node_id is None:
            error(label, label.field, f"{(label.code or label.value)[:120]!r} is not a level-{label.level} node of "
                                      f"taxonomy {str(taxonomy)!r} (by code, range, chapter number or name)")
            continue
        plan.rows.append(AILabel(
            revision_id=where.revision_id, target=label.target, kind=label.kind, mcq_id=mcq_id,
            position=label.position, taxonomy=taxonomy if node_id else None, level=label.level if node_id else None,
            node_id=node_id, value=label.value, model_name=label.model, raw=label.raw,
        ))
    return plan


def _too_long(parsed: AILabelParseResult, file_name: str) -> list[ImportIssue]:
    limits = {"value": max_length(AILabel, "value"), "model": max_length(AILabel, "model_name")}
    return [
        ImportIssue(label.record, label.field if name == "value" else "model",
                    f"{len(text)} characters; at most {limits[name]} fit (starts {text[:40]!r})", file_name)
        for label in parsed.labels for name, text in (("value", label.value), ("model", label.model))
        if len(text) > limits[name]
    ]


def ai_label_import(
    report: Any, data: bytes, *, user: Any, dry_run: bool, finish: Callable[..., Any], taxonomy: str
) -> Any:
    """Parse, plan and write one AI-label file for `release_import`, which made `report` (its
    `ImportReport`; typed Any: importing `cases.services` back would be a cycle) and `finish`."""
    fmt, file_name = report.format, report.file_name
    parsed = parse(fmt, data, file_name, report.model_name)
    report.records = parsed.records
    problems = parsed.issues or _too_long(parsed, file_name)
    if problems:
        return finish("refused", problems)
    if dry_run:
        plan = _plan(parsed, Dataset.objects.filter(name=report.dataset).first(), taxonomy, file_name)
        if plan.errors:
            return finish("refused", plan.errors)
        report.created = {**report.created, "ai_labels": len(plan.rows)}
        return finish()
    # One transaction per file, the dataset row locked like every import into it: the labels are
    # matched to current revisions that a concurrent import into the dataset cannot move meanwhile.
    with transaction.atomic():
        dataset = Dataset.objects.select_for_update().filter(name=report.dataset).first()
        if Release.objects.filter(dataset__name=report.dataset, format=fmt, sha256=report.sha256,
                                  model_name=report.model_name).exists():
            return finish("unchanged")
        plan = _plan(parsed, dataset, taxonomy, file_name)
        if plan.errors:
            return finish("refused", plan.errors)
        report.created = {**report.created, "ai_labels": len(plan.rows)}
        release = Release.objects.create(
            dataset=dataset, label=report.release_label, format=fmt, model_name=report.model_name,
            file_name=file_name, sha256=report.sha256, imported_by=user, counts=dict(report.created),
        )
        for row in plan.rows:
            row.release = release
        bulk.insert(plan.rows)
        report.release_id = release.pk
    return finish()
