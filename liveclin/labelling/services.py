"""Writes of the label tasks: create a task and its units, add members, a physician's answer (and
taking it back while the unit is open), an inspector's decision.

A unit collects `raters_per_unit` answers, then either resolves (the raters agree, and in an audit
nobody corrected the AI) or goes to inspection, where an inspector's decision is the final label.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from cases.models import AILabel, CaseRevision, Release, Taxonomy, TaxonomyNode
from liveclin.models import LabelAnswer, LabelDecision, LabelTask, LabelTaskMember, LabelUnit
from medreview.errors import ConflictError

AUDITED_KINDS = (AILabel.Kind.MODALITY, AILabel.Kind.STAGE)


def label_task_create(
    *, name: str, kind: str, release: Release, created_by: Any, taxonomy: Taxonomy | None = None,
    ai_model: str = "", raters_per_unit: int = 1, label_kind: str = AILabel.Kind.MODALITY,
) -> LabelTask:
    """A task over the cases `release` imported: one unit per case (assignment), or one per AI label
    of `label_kind` on those cases (audit, by `ai_model` when given)."""
    if kind == LabelTask.Kind.ASSIGNMENT and taxonomy is None:
        raise ValidationError({"taxonomy": _("taxonomy: a blind assignment needs a taxonomy to pick from.")})
    if kind == LabelTask.Kind.AUDIT and label_kind not in AUDITED_KINDS:
        raise ValidationError({"label_kind": f"label_kind: {label_kind!r} is not audited here; use modality or stage."})
    revisions = list(CaseRevision.objects.filter(release=release).order_by("case__external_id", "pk"))
    # One transaction: the task and all its units appear together or not at all (no rows locked:
    # every row is new).
    with transaction.atomic():
        task = LabelTask.objects.create(name=name, kind=kind, taxonomy=taxonomy, ai_model=ai_model,
                                        raters_per_unit=raters_per_unit, created_by=created_by)
        if kind == LabelTask.Kind.ASSIGNMENT:
            units = [LabelUnit(task=task, revision=r, order=n) for n, r in enumerate(revisions, 1)]
        else:
            labels = AILabel.objects.filter(revision__in=revisions, kind=label_kind).order_by(
                "revision__case__external_id", "target", "mcq__order", "position", "pk")
            if ai_model:
                labels = labels.filter(model_name=ai_model)
            units = [LabelUnit(task=task, revision_id=a.revision_id, ai_label=a, order=n)
                     for n, a in enumerate(labels, 1)]
        if not units:
            raise ValidationError({"release": _("release: it holds nothing this task could label.")})
        LabelUnit.objects.bulk_create(units)
    return task


def label_task_add_members(*, task: LabelTask, users: Sequence[Any], role: str) -> None:
    # One transaction: all members or none (new rows only; duplicates are ignored).
    with transaction.atomic():
        LabelTaskMember.objects.bulk_create([LabelTaskMember(task=task, user=u, role=role) for u in users],
                                            ignore_conflicts=True)


def _path_node(task: LabelTask, path: Sequence[Any]) -> TaxonomyNode:
    """The level-3 node of a picked path, checked level by level against the taxonomy."""
    levels = task.taxonomy.levels.count() if task.taxonomy else 0
    if len(path) != levels or not all(str(p).isdigit() for p in path):
        raise ValidationError({"path": _("Choose one entry on each of the %(n)d levels.") % {"n": levels}})
    nodes = {n.pk: n for n in TaxonomyNode.objects.filter(taxonomy=task.taxonomy, pk__in=[int(p) for p in path])}
    parent = None
    for depth, raw in enumerate(path, 1):
        node = nodes.get(int(raw))
        if node is None or node.level != depth or node.parent_id != (parent.pk if parent else None):
            raise ValidationError({f"level{depth}": _("Level %(depth)d: choose an entry under the one chosen above.")
                                   % {"depth": depth}})
        parent = node
    assert parent is not None
    return parent


def _needs_inspection(task: LabelTask, answers: list[LabelAnswer]) -> bool:
    """Raters disagree, or (audit) a physician corrected the AI: a senior decides."""
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        return len({a.node_id for a in answers}) > 1
    return any(a.verdict == LabelAnswer.Verdict.EDITED for a in answers)


def label_answer_submit(
    *, unit: LabelUnit, rater: Any, path: Sequence[Any] = (), verdict: str = "", value: str = "",
    comment: str = "", seconds: int | None = None,
) -> LabelAnswer:
    """Store one physician's answer; the last expected answer resolves the unit or sends it to
    inspection. Re-answering an open unit replaces the rater's own answer."""
    task = unit.task
    fields: dict[str, Any] = {"comment": comment.strip(), "seconds": seconds if seconds and seconds >= 0 else None}
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        fields.update(node=_path_node(task, path), verdict="", value="")
    else:
        value = value.strip()
        if verdict not in LabelAnswer.Verdict.values:
            raise ValidationError({"verdict": _("Mark the label correct, or correct it.")})
        if verdict == LabelAnswer.Verdict.EDITED and not value:
            raise ValidationError({"value": _("Type the right label.")})
        if verdict == LabelAnswer.Verdict.EDITED and value == unit.ai_label.value:
            raise ValidationError({"value": _("The label typed is the AI's: mark it correct instead.")})
        fields.update(node=None, verdict=verdict, value=value if verdict == LabelAnswer.Verdict.EDITED else "")
    # One transaction, the unit row locked: two raters finishing a unit at once must not both see
    # "one answer missing" and leave it open.
    with transaction.atomic():
        locked = LabelUnit.objects.select_for_update().get(pk=unit.pk)
        if locked.status != LabelUnit.Status.OPEN:
            raise ConflictError(_("This item is no longer open: it has all its answers."))
        others = list(locked.answers.exclude(rater_id=rater.pk))
        if len(others) >= task.raters_per_unit:
            raise ConflictError(_("This item has all its answers."))
        answer, _created = LabelAnswer.objects.update_or_create(unit=locked, rater=rater, defaults=fields)
        answers = [*others, answer]
        if len(answers) >= task.raters_per_unit:
            locked.status = (LabelUnit.Status.INSPECTION if _needs_inspection(task, answers)
                             else LabelUnit.Status.RESOLVED)
            locked.save(update_fields=["status"])
    unit.status = locked.status
    return answer


def label_answer_withdraw(*, unit: LabelUnit, rater: Any) -> None:
    """Take one's answer back (undo) until an inspector decides the unit."""
    # One transaction, the unit locked: the answer and the unit's status change together.
    with transaction.atomic():
        locked = LabelUnit.objects.select_for_update().get(pk=unit.pk)
        if LabelDecision.objects.filter(unit=locked).exists():
            raise ConflictError(_("An inspector has decided this item; it can no longer be changed."))
        deleted, _rows = LabelAnswer.objects.filter(unit=locked, rater=rater).delete()
        if not deleted:
            raise ConflictError(_("You have no answer on this item."))
        locked.status = LabelUnit.Status.OPEN
        locked.save(update_fields=["status"])


def label_unit_decide(
    *, unit: LabelUnit, inspector: Any, path: Sequence[Any] = (), verdict: str = "", value: str = "",
    reason: str = "",
) -> LabelDecision:
    """An inspector's final label for a unit awaiting inspection."""
    task = unit.task
    if not reason.strip():
        raise ValidationError({"reason": _("Give a reason for the final label.")})
    fields: dict[str, Any] = {"reason": reason.strip()}
    if task.kind == LabelTask.Kind.ASSIGNMENT:
        fields["node"] = _path_node(task, path)
    else:
        if verdict not in LabelAnswer.Verdict.values:
            raise ValidationError({"verdict": _("Mark the label correct, or correct it.")})
        if verdict == LabelAnswer.Verdict.EDITED and not value.strip():
            raise ValidationError({"value": _("Type the right label.")})
        fields.update(verdict=verdict, value=value.strip() if verdict == LabelAnswer.Verdict.EDITED else "")
    # One transaction, the unit locked: one decision per unit, and the unit resolved with it.
    with transaction.atomic():
        locked = LabelUnit.objects.select_for_update().get(pk=unit.pk)
        if locked.status != LabelUnit.Status.INSPECTION:
            raise ConflictError(_("This item is not awaiting inspection."))
        decision = LabelDecision.objects.create(unit=locked, inspector=inspector, **fields)
        locked.status = LabelUnit.Status.RESOLVED
        locked.save(update_fields=["status"])
    unit.status = locked.status
    return decision
