"""A whole study set up in one step (the wizard page, the API and `create_study` share it): the study
and its items, raters and inspectors, expert groups, the calibration threshold, the hourly rate, and
the start, all or nothing. Also what the wizard shows while the admin chooses: how many items a
selection gives and which tasks fit an item kind.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q, QuerySet

from annotation.models import ItemKind, Study, StudyMember, TaskTarget, TaskType
from annotation.studies.groups import study_set_rater_groups
from annotation.studies.services import (
    ItemSelection,
    check_inspector_ranks,
    selection_count,
    study_add_members,
    study_create,
    study_start,
)

User = AbstractBaseUser

CURRENCIES = ("USD", "EUR", "CNY", "GBP", "JPY", "CHF")


def tasks_for_kind(kind: str) -> QuerySet[TaskType]:
    """Task types that rate items of `kind` (translation consistency rates any item's translation)."""
    return TaskType.objects.filter(Q(item_kind=kind) | Q(target=TaskTarget.TRANSLATION)).order_by("pk")


@dataclass
class StudySetUp:
    """Everything the wizard asks, beyond `study_create`'s own keyword arguments (`options`)."""

    name: str
    task_slugs: list[str]
    selection: ItemSelection
    raters: Sequence[User] = ()
    inspectors: Sequence[User] = ()
    # Expert groups (ClinConsensus Sec. 3.4): rater -> "A" or "B"; each must also be a rater.
    groups: Mapping[User, str] = field(default_factory=dict)
    start: bool = False
    options: dict[str, Any] = field(default_factory=dict)


def study_set_up(*, spec: StudySetUp, actor: User) -> Study:
    """Create the study with its people, groups and start, or nothing at all.

    Refused before anything is written: inspectors below the minimum rank, a group given to someone
    who is not among the raters. `study_create` refuses tasks of another item kind and (asked here)
    a selection of 0 items.
    """
    check_inspector_ranks(list(spec.inspectors), spec.options.get("min_inspector_rank", ""))
    rater_ids = {u.pk for u in spec.raters}
    strangers = sorted(u.get_username() for u in spec.groups if u.pk not in rater_ids)
    if strangers:
        raise ValidationError({"groups": f"groups: {', '.join(strangers)} must be raters of the study to be "
                                         "in a group."})
    # One transaction over every service below (each nests a savepoint): a refused start or group
    # leaves no study, no item and no membership behind. Rows locked: the new study's memberships.
    with transaction.atomic():
        study = study_create(name=spec.name, created_by=actor, task_slugs=spec.task_slugs,
                             selection=spec.selection, refuse_empty=True, **spec.options)
        if spec.raters:
            study_add_members(study=study, users=list(spec.raters), role=StudyMember.Role.RATER, actor=actor)
        if spec.inspectors:
            study_add_members(study=study, users=list(spec.inspectors), role=StudyMember.Role.INSPECTOR,
                              actor=actor)
        if spec.groups:
            study_set_rater_groups(study=study, groups=dict(spec.groups), actor=actor)
        if spec.start:
            study_start(study=study, actor=actor)
    return study


def cost_options(*, hourly_rate: Decimal | None, currency: str) -> dict[str, Any]:
    """The hourly rate and currency as `study_create` takes them, checked."""
    currency = (currency or "USD").upper()
    if len(currency) != 3 or not currency.isalpha():
        raise ValidationError({"currency": f"currency: a three-letter code such as USD, got {currency!r}."})
    if hourly_rate is not None and hourly_rate < 0:
        raise ValidationError({"hourly_rate": "hourly_rate: cannot be negative."})
    return {"hourly_rate": hourly_rate, "currency": currency}


def selection_preview(selection: ItemSelection) -> dict[str, Any]:
    """What the wizard shows beside the filters: the item count and the tasks that fit."""
    try:
        count = selection_count(selection)
        error = ""
    except ValidationError as exc:
        count, error = 0, "; ".join(exc.messages)
    return {"count": count, "error": error, "tasks": list(tasks_for_kind(selection.kind)),
            "kind_label": ItemKind(selection.kind).label if selection.kind in ItemKind.values else ""}


def users_by_username(names: Iterable[str], option: str) -> list[User]:
    """The named accounts, or a ValidationError naming `option` and every unknown username."""
    from django.contrib.auth import get_user_model

    names = [n for n in names if n]
    found = list(get_user_model().objects.filter(username__in=names))
    missing = sorted(set(names) - {u.get_username() for u in found})
    if missing:
        raise ValidationError({option: f"{option}: unknown usernames {missing}."})
    return found
