"""Studies: create, add items and members, start, close; which benchmark rows become items."""

from __future__ import annotations

import calendar
import random
import re
import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from itertools import combinations
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Role
from accounts.roles import RANK_ORDER, rank_at_least, rank_name, user_role
from annotation.access import check_can_manage_studies
from annotation.models import Item, ItemKind, Study, StudyMember, TaskTarget, TaskType
from annotation.models.translated import TextDisplay
from annotation.protocols import protocol_for_study
from annotation.studies.selection import PASSED_PRESCREEN, VALIDATED, apply_selection_filter
from cases.models import CaseRevision, ModelResponse, QuestionSet

User = AbstractBaseUser

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")


@dataclass(frozen=True)
class ItemSelection:
    """Which benchmark rows become items of a study. Recorded verbatim in `Study.selection`."""

    kind: str = ItemKind.CASE
    dataset: str | None = None
    release_label: str | None = None
    model_names: Sequence[str] = ()
    specialties: Sequence[str] = ()
    themes: Sequence[str] = ()
    difficulty: str | None = None
    register: str | None = None
    language: str | None = None
    post_month_from: str | None = None  # "YYYY-MM", inclusive
    post_month_to: str | None = None  # "YYYY-MM", inclusive
    sample_n: int | None = None
    seed: int | None = None
    # LiveClin question sets: only those the Judge passed / whose quality check validated them.
    passed_prescreen: bool = False
    validated: bool = False

    def as_record(self, *, seed: int) -> dict[str, Any]:
        record = {k: (list(v) if isinstance(v, tuple | list) else v) for k, v in asdict(self).items()}
        record["seed"] = seed
        return record


# --- item selection ------------------------------------------------------------------------------


def _month_start(value: str, field_name: str) -> datetime:
    if not _MONTH.match(value):
        raise ValidationError({field_name: gettext("%(field)s: expected YYYY-MM, got %(value)r.") % {
            "field": field_name, "value": value}})
    year, month = int(value[:4]), int(value[5:])
    return datetime(year, month, 1, tzinfo=UTC)


def _month_end(value: str, field_name: str) -> datetime:
    start = _month_start(value, field_name)
    days = calendar.monthrange(start.year, start.month)[1]
    return start + timedelta(days=days)


def _selected_revision_ids(selection: ItemSelection) -> set[int]:
    """Current case revisions matching the selection's case-level filters."""
    revisions: QuerySet[CaseRevision] = CaseRevision.objects.current()
    # (selection attribute, lookup): equality and membership filters applied when the attribute is set.
    lookups = [
        ("dataset", "case__dataset__name"), ("release_label", "release__label"),
        ("specialties", "specialties__name__in"), ("themes", "themes__name__in"),
        ("difficulty", "difficulty"), ("register", "register"), ("language", "language"),
    ]
    for attribute, lookup in lookups:
        value = getattr(selection, attribute)
        if value:
            revisions = revisions.filter(**{lookup: list(value) if lookup.endswith("__in") else value})
    if selection.post_month_from:
        revisions = revisions.filter(post_time__gte=_month_start(selection.post_month_from, "post_month_from"))
    if selection.post_month_to:
        revisions = revisions.filter(post_time__lt=_month_end(selection.post_month_to, "post_month_to"))
    revision_ids = set(revisions.values_list("pk", flat=True))
    # The pre-screen (graders) and the outcomes (agreement) live above annotation: registered filters.
    for name in (PASSED_PRESCREEN, VALIDATED):
        if getattr(selection, name):
            revision_ids = apply_selection_filter(name, revision_ids)
    return revision_ids


def _case_items(study: Study, revision_ids: set[int]) -> list[Item]:
    return [
        Item(study=study, kind=ItemKind.CASE, key=f"case:{case_id}", revision_id=rid)
        for rid, case_id in CaseRevision.objects.filter(pk__in=revision_ids).values_list("pk", "case_id")
    ]


def _response_rows(selection: ItemSelection, revision_ids: set[int]) -> list[tuple[int, int, str]]:
    responses = ModelResponse.objects.filter(revision_id__in=revision_ids)
    if selection.model_names:
        responses = responses.filter(model_name__in=list(selection.model_names))
    return list(responses.values_list("pk", "revision_id", "model_name").order_by("revision_id", "model_name"))


def _response_items(study: Study, selection: ItemSelection, revision_ids: set[int]) -> list[Item]:
    return [
        Item(study=study, kind=ItemKind.RESPONSE, key=f"response:{pk}", revision_id=rid, response_id=pk)
        for pk, rid, _model in _response_rows(selection, revision_ids)
    ]


def _pair_items(study: Study, selection: ItemSelection, revision_ids: set[int]) -> list[Item]:
    """Every pair of responses to the same revision."""
    by_revision: dict[int, list[int]] = defaultdict(list)
    for pk, rid, _model in _response_rows(selection, revision_ids):
        by_revision[rid].append(pk)
    return [
        Item(study=study, kind=ItemKind.PAIR, key=f"pair:{a}:{b}", revision_id=rid, response_id=a, response_b_id=b)
        for rid, pks in by_revision.items()
        for a, b in combinations(pks, 2)
    ]


def _question_set_items(study: Study, revision_ids: set[int]) -> list[Item]:
    return [
        Item(study=study, kind=ItemKind.QUESTION_SET, key=f"qs:{pk}", revision_id=rid, question_set_id=pk)
        for pk, rid in QuestionSet.objects.filter(revision_id__in=revision_ids).values_list("pk", "revision_id")
    ]


def _candidate_items(study: Study, selection: ItemSelection) -> list[Item]:
    """Unsaved items for `selection`, at each case's current revision, in key order."""
    revision_ids = _selected_revision_ids(selection)
    if selection.kind == ItemKind.CASE:
        items = _case_items(study, revision_ids)
    elif selection.kind == ItemKind.RESPONSE:
        items = _response_items(study, selection, revision_ids)
    elif selection.kind == ItemKind.PAIR:
        items = _pair_items(study, selection, revision_ids)
    elif selection.kind == ItemKind.QUESTION_SET:
        items = _question_set_items(study, revision_ids)
    else:
        raise ValidationError({"kind": f"kind: unknown item kind {selection.kind!r}."})
    items.sort(key=lambda i: i.key)
    return items


def _sample(items: list[Item], selection: ItemSelection, seed: int) -> list[Item]:
    if selection.sample_n is None:
        return items
    if selection.sample_n < 1:
        raise ValidationError({"sample_n": gettext("sample_n: must be at least 1.")})
    if selection.sample_n >= len(items):
        return items
    chosen = random.Random(seed).sample(items, selection.sample_n)
    return sorted(chosen, key=lambda i: i.key)


def _mark_sampled(study: Study, items: Iterable[Item]) -> None:
    """The inspection sample is drawn per item from the study seed, so it is reproducible."""
    for item in items:
        draw = random.Random(f"{study.seed}:inspect:{item.key}").random()
        item.sampled_for_inspection = draw < study.inspect_share


def _insert_items(study: Study, selection: ItemSelection, seed: int) -> int:
    existing = set(Item.objects.filter(study=study).values_list("key", flat=True))
    items = [i for i in _candidate_items(study, selection) if i.key not in existing]
    items = _sample(items, selection, seed)
    _mark_sampled(study, items)
    Item.objects.bulk_create(items, batch_size=1000)
    return len(items)


def _validate_study_numbers(*, raters_per_item: int, inspect_share: float, lease_minutes: int) -> None:
    errors = {}
    if raters_per_item < 1:
        errors["raters_per_item"] = gettext("raters_per_item: must be at least 1.")
    if not 0 <= inspect_share <= 1:
        errors["inspect_share"] = gettext("inspect_share: must be between 0 and 1.")
    if lease_minutes < 1:
        errors["lease_minutes"] = gettext("lease_minutes: must be at least 1.")
    if errors:
        raise ValidationError(errors)


_KIND_NAMES = {
    ItemKind.CASE: gettext_lazy("cases"), ItemKind.RESPONSE: gettext_lazy("model responses"),
    ItemKind.QUESTION_SET: gettext_lazy("question sets"), ItemKind.PAIR: gettext_lazy("pairs of model responses"),
}


def _study_tasks(task_slugs: list[str], kind: str) -> list[TaskType]:
    """The named task types, all rating items of `kind`."""
    tasks = list(TaskType.objects.filter(slug__in=task_slugs))
    unknown = sorted(set(task_slugs) - {t.slug for t in tasks})
    if unknown or not task_slugs:
        raise ValidationError({"task_slugs": gettext("task_slugs: unknown task type(s) %(slugs)s") % {"slugs": unknown}
                               if unknown else gettext("task_slugs: choose at least one task.")})
    # Translation consistency rates the translated text of any item (LiveClin sets, LiveMedBench cases).
    wrong = [t for t in tasks if t.item_kind != kind and t.target != TaskTarget.TRANSLATION]
    if wrong:
        raise ValidationError({"task_slugs": [
            gettext("The task “%(task)s” (%(slug)s) rates %(theirs)s, but this study's items are %(ours)s: "
                    "choose tasks for %(ours)s, or change what the items are.") % {
                "task": t.shown_name, "slug": t.slug, "theirs": _KIND_NAMES.get(t.item_kind, t.item_kind),
                "ours": _KIND_NAMES.get(kind, kind)}
            for t in wrong
        ]})
    return tasks


def _describe_selection(selection: ItemSelection) -> str:
    parts = [f"{name}={value!r}" for name, value in (
        ("kind", selection.kind), ("dataset", selection.dataset), ("release", selection.release_label),
        ("models", list(selection.model_names)), ("specialties", list(selection.specialties)),
        ("themes", list(selection.themes)), ("difficulty", selection.difficulty),
        ("register", selection.register), ("language", selection.language),
    ) if value]
    return ", ".join(parts)


def selection_count(selection: ItemSelection) -> int:
    """How many items `selection` gives a new study (after its sample), without writing anything."""
    found = len(_candidate_items(Study(), selection))
    if selection.sample_n is not None:
        if selection.sample_n < 1:
            raise ValidationError({"sample_n": "sample_n: must be at least 1."})
        return min(found, selection.sample_n)
    return found


# --- studies -------------------------------------------------------------------------------------


def study_create(
    *,
    name: str,
    created_by: User,
    task_slugs: list[str],
    selection: ItemSelection,
    raters_per_item: int = 2,
    inspect_all: bool = False,
    inspect_disagreements: bool = True,
    inspect_share: float = 0.0,
    guidelines: str = "",
    deadline: datetime | None = None,
    required_specialties: Sequence[str] = (),
    required_languages: Sequence[str] = (),
    seed: int | None = None,
    lease_minutes: int = 30,
    description: str = "",
    show_prescreen: bool = False,
    min_inspector_rank: str = "",
    text_display: str = "auto",
    translation_language: str = "zh-Hans",
    hourly_rate: Decimal | None = None,
    currency: str = "USD",
    calibration_threshold: float | None = None,
    refuse_empty: bool = False,
) -> Study:
    """Create a draft study and its items (each pointing at its case's current revision).

    Refused, writing nothing: tasks of another item kind, and with `refuse_empty` (every entry point
    a person uses: the wizard, the API, `create_study`, through `setup.study_set_up`) a selection
    that gives 0 items (a typo in the release label once started an empty study with a dead "Next
    item" in queues). Builders of tests and the demo may still make an empty draft to fill later.
    """
    check_can_manage_studies(created_by)
    if not name.strip():
        raise ValidationError({"name": gettext("name: a study needs a name.")})
    if min_inspector_rank and min_inspector_rank not in RANK_ORDER:
        raise ValidationError({"min_inspector_rank": (
            f"min_inspector_rank: expected one of {', '.join(RANK_ORDER)} (or empty), got {min_inspector_rank!r}."
        )})
    if text_display not in TextDisplay.values:
        raise ValidationError({"text_display": f"text_display: one of {', '.join(TextDisplay.values)}."})
    _validate_study_numbers(raters_per_item=raters_per_item, inspect_share=inspect_share,
                            lease_minutes=lease_minutes)
    if calibration_threshold is not None and not 0 <= calibration_threshold <= 1:
        raise ValidationError({"calibration_threshold": "calibration_threshold: a share between 0 and 1."})
    tasks = _study_tasks(task_slugs, selection.kind)
    study_seed = seed if seed is not None else secrets.randbelow(2**31)
    sample_seed = selection.seed if selection.seed is not None else study_seed
    # One transaction: the study, its task links and its items appear together or not at all.
    with transaction.atomic():
        study = Study.objects.create(
            name=name.strip(), description=description, guidelines=guidelines, raters_per_item=raters_per_item,
            inspect_all=inspect_all, inspect_disagreements=inspect_disagreements, inspect_share=inspect_share,
            seed=study_seed, lease_minutes=lease_minutes, deadline=deadline,
            required_specialties=list(required_specialties), required_languages=list(required_languages),
            created_by=created_by, selection=selection.as_record(seed=sample_seed),
            show_prescreen=show_prescreen, min_inspector_rank=min_inspector_rank,
            text_display=text_display, translation_language=translation_language,
            hourly_rate=hourly_rate, currency=currency, calibration_threshold=calibration_threshold,
        )
        study.tasks.set(tasks)
        count = _insert_items(study, selection, sample_seed)
        if count == 0 and refuse_empty:
            # Raised inside the transaction: the study row and its task links are rolled back.
            raise ValidationError({"selection": gettext(
                "No items match this selection (%(selection)s): a study needs at least one item. "
                "Check the dataset, the release and the filters."
            ) % {"selection": _describe_selection(selection)}})
        study.selection["items_created"] = count
        study.save(update_fields=["selection"])
    return study


def study_add_items(*, study: Study, selection: ItemSelection, actor: User) -> int:
    """Add items to a study (running or not); existing items and their work are left alone."""
    check_can_manage_studies(actor)
    kinds = set(study.tasks.exclude(target=TaskTarget.TRANSLATION).values_list("item_kind", flat=True))
    if kinds and selection.kind not in kinds:
        raise ValidationError({"kind": f"kind: this study rates {sorted(kinds)} items, not {selection.kind!r}."})
    seed = selection.seed if selection.seed is not None else secrets.randbelow(2**31)
    # Locks the study row so two admins adding items at once cannot insert the same key twice.
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        count = _insert_items(locked, selection, seed)
        record = dict(locked.selection)
        record.setdefault("additions", []).append(
            {**selection.as_record(seed=seed), "added": count, "by": actor.pk, "at": timezone.now().isoformat()}
        )
        locked.selection = record
        locked.save(update_fields=["selection"])
    study.selection = locked.selection
    return count


def check_inspector_ranks(users: Iterable[User], min_rank: str) -> None:
    """LiveClin Sec. 3.4: refuse, naming them, inspectors below the study's minimum rank (admins are
    not held to a rank), so nobody is listed as an inspector whose every decision would be refused."""
    below = [
        gettext("%(user)s (%(rank)s)") % {"user": u.get_username(),
                                          "rank": rank_name(getattr(getattr(u, "profile", None), "rank", ""))
                                          or gettext("no rank recorded")}
        for u in users if user_role(u) != Role.ADMIN and not rank_at_least(u, min_rank)
    ]
    if below:
        raise ValidationError({"users": gettext(
            "users: %(people)s cannot inspect this study: it is inspected by %(rank)s physicians or more senior."
        ) % {"people": ", ".join(below), "rank": rank_name(min_rank)}})


def study_add_members(*, study: Study, users: Iterable[User], role: str, actor: User) -> int:
    """Add raters or inspectors; returns how many memberships are new. Inspectors must hold the
    study's minimum rank (`check_inspector_ranks`)."""
    check_can_manage_studies(actor)
    users = list(users)
    if role == StudyMember.Role.RATER:
        bad = [u.get_username() for u in users if user_role(u) not in (Role.PHYSICIAN, Role.INSPECTOR)]
        if bad:
            raise ValidationError({"users": gettext("users: only physicians and inspectors can rate: %(names)s.") % {
                "names": bad}})
    elif role == StudyMember.Role.INSPECTOR:
        bad = [u.get_username() for u in users if user_role(u) not in (Role.INSPECTOR, Role.ADMIN)]
        if bad:
            raise ValidationError({"users": gettext("users: only inspectors can inspect: %(names)s.") % {"names": bad}})
        check_inspector_ranks(users, study.min_inspector_rank)
    else:
        raise ValidationError({"role": f"role: unknown study role {role!r}."})
    # One transaction so a partial membership list never exists; unique constraint absorbs repeats.
    with transaction.atomic():
        before = StudyMember.objects.filter(study=study, role=role).count()
        StudyMember.objects.bulk_create(
            [StudyMember(study=study, user=u, role=role) for u in users], ignore_conflicts=True
        )
        return StudyMember.objects.filter(study=study, role=role).count() - before


def study_start(*, study: Study, actor: User) -> Study:
    check_can_manage_studies(actor)
    # Compare-and-swap on the status: starting twice, or a closed study, is an error, not a no-op.
    # The protocol's start step (LiveClin pins the Judge run its quality check will use) is part of it.
    with transaction.atomic():
        if not Study.objects.filter(pk=study.pk, status=Study.Status.DRAFT).update(status=Study.Status.RUNNING):
            raise ValidationError({"status": gettext("status: only a draft study can be started.")})
        protocol_for_study(study).study_started(study, actor)
    study.refresh_from_db(fields=["status"])
    return study


def study_close(*, study: Study, actor: User) -> Study:
    check_can_manage_studies(actor)
    # Compare-and-swap on the status; finished work is untouched, open claims simply cannot submit.
    with transaction.atomic():
        if not Study.objects.filter(pk=study.pk, status=Study.Status.RUNNING).update(status=Study.Status.CLOSED):
            raise ValidationError({"status": gettext("status: only a running study can be closed.")})
    study.refresh_from_db(fields=["status"])
    return study
