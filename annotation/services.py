"""Every review write that touches more than one row or needs a lock.

Locking rule: every change to which assignments hold an item's slots (claim, lapse, draft revival,
skip, submit, inspection) happens while holding that item's row lock (`select_for_update`), so
the slot count read under the lock is the truth. Claims take candidate items with
`select_for_update(skip_locked=True)` so concurrent claimers spread over different items instead of
queueing on one. On SQLite these are no-ops, but SQLite serialises writing transactions anyway.

Pairwise labels: a rater answers "A" / "B" for the response shown first / second. The services
store them canonically (A = `item.response`, B = `item.response_b`, like PairwiseJudgement) and
record the order the rater saw in `Assignment.pair_order`; drafts keep the labels as shown.
"""

from __future__ import annotations

import calendar
import random
import re
import secrets
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from itertools import combinations
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from annotation.models import (
    Assignment,
    FinalLabel,
    Inspection,
    Item,
    ItemKind,
    Rating,
    ReviewEvent,
    Role,
    Study,
    StudyMember,
    TaskTarget,
    TaskType,
)
from annotation.selectors import Field, item_fields
from cases.models import CaseRevision, ModelResponse, QuestionSet
from medreview.roles import user_role

User = AbstractBaseUser

_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
# How many locked candidates a claim inspects before giving up (each is re-counted under its lock).
_CLAIM_ATTEMPTS = 20


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

    def as_record(self, *, seed: int) -> dict[str, Any]:
        record = {k: (list(v) if isinstance(v, tuple | list) else v) for k, v in asdict(self).items()}
        record["seed"] = seed
        return record


# --- helpers -------------------------------------------------------------------------------------


def _event(
    *, item: Item, kind: str, actor: User | None, assignment: Assignment | None = None, reason: str = "",
    data: dict[str, Any] | None = None,
) -> ReviewEvent:
    return ReviewEvent.objects.create(
        item=item, assignment=assignment, actor=actor, kind=kind, reason=reason, data=data or {}
    )


def _require_admin(actor: User) -> None:
    if user_role(actor) != Role.ADMIN:
        raise PermissionDenied("Only admins manage studies.")


def _require_inspector(study: Study, inspector: User) -> None:
    if user_role(inspector) == Role.ADMIN:
        return
    if user_role(inspector) == Role.RESEARCHER or not StudyMember.objects.filter(
        study=study, user=inspector, role=StudyMember.Role.INSPECTOR
    ).exists():
        raise PermissionDenied("You are not an inspector of this study.")


def _month_start(value: str, field_name: str) -> datetime:
    if not _MONTH.match(value):
        raise ValidationError({field_name: f"{field_name}: expected YYYY-MM, got {value!r}."})
    year, month = int(value[:4]), int(value[5:])
    return datetime(year, month, 1, tzinfo=UTC)


def _month_end(value: str, field_name: str) -> datetime:
    start = _month_start(value, field_name)
    days = calendar.monthrange(start.year, start.month)[1]
    return start + timedelta(days=days)


def _candidate_items(study: Study, selection: ItemSelection) -> list[Item]:
    """Unsaved items for `selection`, at each case's current revision, in key order."""
    revisions = CaseRevision.objects.current()
    if selection.dataset:
        revisions = revisions.filter(case__dataset__name=selection.dataset)
    if selection.release_label:
        revisions = revisions.filter(release__label=selection.release_label)
    if selection.specialties:
        revisions = revisions.filter(specialties__name__in=list(selection.specialties))
    if selection.themes:
        revisions = revisions.filter(themes__name__in=list(selection.themes))
    if selection.difficulty:
        revisions = revisions.filter(difficulty=selection.difficulty)
    if selection.register:
        revisions = revisions.filter(register=selection.register)
    if selection.language:
        revisions = revisions.filter(language=selection.language)
    if selection.post_month_from:
        revisions = revisions.filter(post_time__gte=_month_start(selection.post_month_from, "post_month_from"))
    if selection.post_month_to:
        revisions = revisions.filter(post_time__lt=_month_end(selection.post_month_to, "post_month_to"))
    revision_ids = set(revisions.values_list("pk", flat=True))
    items: list[Item] = []
    if selection.kind == ItemKind.CASE:
        for rid, case_id in CaseRevision.objects.filter(pk__in=revision_ids).values_list("pk", "case_id"):
            items.append(Item(study=study, kind=ItemKind.CASE, key=f"case:{case_id}", revision_id=rid))
    elif selection.kind in (ItemKind.RESPONSE, ItemKind.PAIR):
        responses = ModelResponse.objects.filter(revision_id__in=revision_ids)
        if selection.model_names:
            responses = responses.filter(model_name__in=list(selection.model_names))
        rows = list(responses.values_list("pk", "revision_id", "model_name").order_by("revision_id", "model_name"))
        if selection.kind == ItemKind.RESPONSE:
            for pk, rid, _model in rows:
                items.append(Item(study=study, kind=ItemKind.RESPONSE, key=f"response:{pk}", revision_id=rid,
                                  response_id=pk))
        else:
            by_revision: dict[int, list[int]] = defaultdict(list)
            for pk, rid, _model in rows:
                by_revision[rid].append(pk)
            for rid, pks in by_revision.items():
                for a, b in combinations(pks, 2):
                    items.append(Item(study=study, kind=ItemKind.PAIR, key=f"pair:{a}:{b}", revision_id=rid,
                                      response_id=a, response_b_id=b))
    elif selection.kind == ItemKind.QUESTION_SET:
        for pk, rid in QuestionSet.objects.filter(revision_id__in=revision_ids).values_list("pk", "revision_id"):
            items.append(Item(study=study, kind=ItemKind.QUESTION_SET, key=f"qs:{pk}", revision_id=rid,
                              question_set_id=pk))
    else:
        raise ValidationError({"kind": f"kind: unknown item kind {selection.kind!r}."})
    items.sort(key=lambda i: i.key)
    return items


def _sample(items: list[Item], selection: ItemSelection, seed: int) -> list[Item]:
    if selection.sample_n is None:
        return items
    if selection.sample_n < 1:
        raise ValidationError({"sample_n": "sample_n: must be at least 1."})
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
        errors["raters_per_item"] = "raters_per_item: must be at least 1."
    if not 0 <= inspect_share <= 1:
        errors["inspect_share"] = "inspect_share: must be between 0 and 1."
    if lease_minutes < 1:
        errors["lease_minutes"] = "lease_minutes: must be at least 1."
    if errors:
        raise ValidationError(errors)


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
) -> Study:
    """Create a draft study and its items (each pointing at its case's current revision)."""
    _require_admin(created_by)
    if not name.strip():
        raise ValidationError({"name": "name: a study needs a name."})
    _validate_study_numbers(raters_per_item=raters_per_item, inspect_share=inspect_share,
                            lease_minutes=lease_minutes)
    tasks = list(TaskType.objects.filter(slug__in=task_slugs))
    unknown = sorted(set(task_slugs) - {t.slug for t in tasks})
    if unknown or not task_slugs:
        raise ValidationError({"task_slugs": f"task_slugs: unknown task type(s) {unknown}" if unknown
                               else "task_slugs: choose at least one task type."})
    wrong_kind = sorted(t.slug for t in tasks if t.item_kind != selection.kind)
    if wrong_kind:
        raise ValidationError({"task_slugs": f"task_slugs: {wrong_kind} rate items of another kind than "
                                             f"{selection.kind!r}."})
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
        )
        study.tasks.set(tasks)
        count = _insert_items(study, selection, sample_seed)
        study.selection["items_created"] = count
        study.save(update_fields=["selection"])
    return study


def study_add_items(*, study: Study, selection: ItemSelection, actor: User) -> int:
    """Add items to a study (running or not); existing items and their work are left alone."""
    _require_admin(actor)
    kinds = set(study.tasks.values_list("item_kind", flat=True))
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


def study_add_members(*, study: Study, users: Iterable[User], role: str, actor: User) -> int:
    """Add raters or inspectors; returns how many memberships are new."""
    _require_admin(actor)
    users = list(users)
    if role == StudyMember.Role.RATER:
        bad = [u.get_username() for u in users if user_role(u) not in (Role.PHYSICIAN, Role.INSPECTOR)]
        if bad:
            raise ValidationError({"users": f"users: only physicians and inspectors can rate: {bad}."})
    elif role == StudyMember.Role.INSPECTOR:
        bad = [u.get_username() for u in users if user_role(u) not in (Role.INSPECTOR, Role.ADMIN)]
        if bad:
            raise ValidationError({"users": f"users: only inspectors can inspect: {bad}."})
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
    _require_admin(actor)
    # Compare-and-swap on the status: starting twice, or a closed study, is an error, not a no-op.
    with transaction.atomic():
        if not Study.objects.filter(pk=study.pk, status=Study.Status.DRAFT).update(status=Study.Status.RUNNING):
            raise ValidationError({"status": "status: only a draft study can be started."})
    study.refresh_from_db(fields=["status"])
    return study


def study_close(*, study: Study, actor: User) -> Study:
    _require_admin(actor)
    # Compare-and-swap on the status; finished work is untouched, open claims simply cannot submit.
    with transaction.atomic():
        if not Study.objects.filter(pk=study.pk, status=Study.Status.RUNNING).update(status=Study.Status.CLOSED):
            raise ValidationError({"status": "status: only a running study can be closed."})
    study.refresh_from_db(fields=["status"])
    return study


# --- queue ---------------------------------------------------------------------------------------


def _rater_eligible(study: Study, rater: User) -> bool:
    profile = getattr(rater, "profile", None)
    if study.required_specialties:
        mine = {s.casefold() for s in (profile.specialties if profile else [])}
        if not mine & {s.casefold() for s in study.required_specialties}:
            return False
    if study.required_languages:
        mine = {s.casefold() for s in (profile.languages if profile else [])}
        if not mine & {s.casefold() for s in study.required_languages}:
            return False
    return True


def _lease_until(study: Study, now: datetime) -> datetime:
    return now + timedelta(minutes=study.lease_minutes)


def _pair_order(study: Study, item: Item, rater: User) -> str:
    if item.kind != ItemKind.PAIR:
        return ""
    return random.Random(f"{study.seed}:{item.pk}:{rater.pk}").choice(["ab", "ba"])


def _slot_holders(item: Item, now: datetime, *, excluding: Assignment | None = None) -> int:
    qs = Assignment.objects.holding_slot(now=now).filter(item=item)
    if excluding is not None:
        qs = qs.exclude(pk=excluding.pk)
    return qs.count()


def _expire_lapsed_on_item(item: Item, now: datetime) -> None:
    """Mark the item's lapsed claims EXPIRED (caller holds the item lock)."""
    lapsed = list(
        Assignment.objects.filter(item=item, state__in=Assignment.LEASED_STATES, lease_expires_at__lte=now)
    )
    for a in lapsed:
        a.state = Assignment.State.EXPIRED
        a.save(update_fields=["state"])
        _event(item=item, assignment=a, actor=None, kind=ReviewEvent.Kind.EXPIRED,
               reason="Lease lapsed before submission", data={"lease_expired_at": a.lease_expires_at.isoformat()})


def _holds_slot(a: Assignment, now: datetime) -> bool:
    if a.state in Assignment.SLOT_STATES:
        return True
    return a.state in Assignment.LEASED_STATES and a.lease_expires_at is not None and a.lease_expires_at > now


def _try_claim_item(study: Study, item: Item, rater: User, now: datetime) -> Assignment | None:
    """Give `item` to `rater` if a slot is free (caller holds the item lock), else None.

    One read of the item's assignments, under the lock, serves the slot recount, the marking of
    lapsed claims and the reuse of the rater's own expired row.
    """
    rows = list(Assignment.objects.filter(item=item))
    if sum(1 for a in rows if _holds_slot(a, now)) >= study.raters_per_item:
        return None
    for lapsed in rows:
        if lapsed.state in Assignment.LEASED_STATES and not _holds_slot(lapsed, now):
            lapsed.state = Assignment.State.EXPIRED
            lapsed.save(update_fields=["state"])
            _event(item=item, assignment=lapsed, actor=None, kind=ReviewEvent.Kind.EXPIRED,
                   reason="Lease lapsed before submission",
                   data={"lease_expired_at": lapsed.lease_expires_at.isoformat()})
    assignment = next((a for a in rows if a.rater_id == rater.pk), None)
    order = _pair_order(study, item, rater)
    if assignment is None:
        assignment = Assignment.objects.create(
            item=item, rater=rater, state=Assignment.State.CLAIMED, lease_expires_at=_lease_until(study, now),
            pair_order=order,
        )
    else:
        # Only the rater's own expired row can be here (others are excluded): reuse it, keeping its draft.
        assignment.state = Assignment.State.DRAFT if assignment.draft else Assignment.State.CLAIMED
        assignment.lease_expires_at = _lease_until(study, now)
        assignment.pair_order = assignment.pair_order or order
        assignment.save(update_fields=["state", "lease_expires_at", "pair_order"])
    _event(item=item, assignment=assignment, actor=rater, kind=ReviewEvent.Kind.CLAIMED,
           data={"lease_expires_at": assignment.lease_expires_at.isoformat(), "pair_order": assignment.pair_order})
    return assignment


def _own_unfinished(study: Study, rater: User, now: datetime) -> Assignment | None:
    own = list(
        Assignment.objects.filter(
            item__study=study, rater=rater,
            state__in=(Assignment.State.RETURNED, *Assignment.LEASED_STATES),
        ).order_by("pk")
    )
    returned = [a for a in own if a.state == Assignment.State.RETURNED]
    if returned:
        return returned[0]
    live = [a for a in own if a.lease_expires_at and a.lease_expires_at > now]
    if live:
        a = live[0]
        a.lease_expires_at = _lease_until(study, now)
        a.save(update_fields=["lease_expires_at"])
        return a
    for a in own:
        # A lapsed claim of this rater: keep it (and its draft) if nobody took the slot meanwhile.
        item = Item.objects.select_for_update().get(pk=a.item_id)
        if item.status == Item.Status.OPEN and _slot_holders(item, now, excluding=a) < study.raters_per_item:
            a.lease_expires_at = _lease_until(study, now)
            a.save(update_fields=["lease_expires_at"])
            return a
        _expire_lapsed_on_item(item, now)
    return None


def assignment_claim_next(*, study: Study, rater: User, now: datetime | None = None) -> Assignment | None:
    """The rater's unfinished assignment in `study`, else a newly claimed eligible item, else None.

    None also when the study is not running or the rater does not meet its eligibility rules.
    """
    now = now or timezone.now()
    # Locks the rater's membership row (which also proves the membership) so one rater's parallel
    # requests (two tabs) claim one item at a time; candidate items are then locked one by one with
    # SKIP LOCKED and their slots re-counted under the lock.
    with transaction.atomic():
        membership = (
            StudyMember.objects.select_for_update()
            .filter(study=study, user=rater, role=StudyMember.Role.RATER)
            .values_list("pk", flat=True)
            .first()
        )
        if membership is None:
            raise PermissionDenied("You are not a rater in this study.")
        if study.status != Study.Status.RUNNING:
            return None
        own = _own_unfinished(study, rater, now)
        if own is not None:
            return own
        if not _rater_eligible(study, rater):
            return None
        return _claim_new_item(study, rater, now)


def _candidate_item_id(
    study: Study, rater: User, now: datetime, *, started: bool | None, languages: list[str] | None,
    tried: list[int], wait: bool = False,
) -> int | None:
    """The first open item the rater has not touched with room left, locked with SKIP LOCKED.

    `started` True: items other raters hold a slot on (taken first, so items complete and reach
    agreement sooner); False: items nobody holds; None: either. `wait`: wait for the row lock
    instead of skipping locked rows. Hand-written SQL because this runs on every
    claim and the equivalent ORM expression (NOT IN, correlated count, FOR UPDATE OF) cost more to
    compile than to execute. The count is only a guess; `_try_claim_item` re-counts under the lock.
    """
    item_table = connection.ops.quote_name(Item._meta.db_table)
    assignment_table = connection.ops.quote_name(Assignment._meta.db_table)
    revision_table = connection.ops.quote_name(CaseRevision._meta.db_table)
    live = connection.ops.adapt_datetimefield_value(now)
    params: list[Any] = []
    join = language = ""
    if languages is not None:
        join = f"JOIN {revision_table} r ON r.id = i.revision_id"
        marks = ", ".join(["%s"] * len(languages))
        language = f"AND (r.language = '' OR r.language IN ({marks}))" if languages else "AND r.language = ''"
    params += [study.pk, Item.Status.OPEN]
    # NOT IN over the rater's own items: one hashed scan of their assignments, not a probe per item.
    params += [rater.pk, Assignment.State.EXPIRED]
    params += list(languages or [])
    params += [*Assignment.SLOT_STATES, *Assignment.LEASED_STATES, live]
    if started is None:
        room = "< %s"
        params.append(study.raters_per_item)
    elif started:
        room = "BETWEEN 1 AND %s"
        params.append(study.raters_per_item - 1)
    else:
        room = "= 0"
    skip = ""
    if tried:
        skip = f"AND i.id NOT IN ({', '.join(['%s'] * len(tried))})"
        params += tried
    lock = ""
    if connection.features.has_select_for_update_skip_locked:
        lock = " FOR UPDATE OF i" if wait else " FOR UPDATE OF i SKIP LOCKED"
    sql = f"""
        SELECT i.id FROM {item_table} i {join}
        WHERE i.study_id = %s AND i.status = %s
          AND i.id NOT IN (SELECT m.item_id FROM {assignment_table} m WHERE m.rater_id = %s AND m.state <> %s)
          {language}
          AND (SELECT COUNT(*) FROM {assignment_table} h WHERE h.item_id = i.id
               AND (h.state IN (%s, %s, %s) OR (h.state IN (%s, %s) AND h.lease_expires_at > %s))) {room}
          {skip}
        ORDER BY i.id LIMIT 1{lock}
    """  # noqa: S608 - only quoted table names and placeholder lists are interpolated; values are params
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


def _claim_new_item(study: Study, rater: User, now: datetime) -> Assignment | None:
    """Lock and claim the first candidate with room (caller holds the transaction and the rater lock)."""
    languages = None
    if study.required_languages:
        profile = getattr(rater, "profile", None)
        languages = list(profile.languages) if profile else []
    tried: list[int] = []
    for started in (True, False):
        for _ in range(_CLAIM_ATTEMPTS):
            item_id = _candidate_item_id(study, rater, now, started=started, languages=languages, tried=tried)
            if item_id is None:
                break
            claimed = _claim_locked_item(study, item_id, rater, now)
            if claimed is not None:
                return claimed
            tried.append(item_id)
    if not connection.features.has_select_for_update_skip_locked:
        return None
    # Every candidate may just have been locked by someone else (typically a rater submitting on
    # one of the last open items): rather than report an empty queue, wait briefly for one. Cannot
    # deadlock with another claimer: the locks we hold are on items that were full, which are no
    # one's candidates. The savepoint keeps a lock timeout from breaking the outer transaction.
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL lock_timeout = '2s'")
            item_id = _candidate_item_id(study, rater, now, started=None, languages=languages, tried=tried,
                                         wait=True)
            return _claim_locked_item(study, item_id, rater, now) if item_id is not None else None
    except OperationalError:
        return None


def _claim_locked_item(study: Study, item_id: int, rater: User, now: datetime) -> Assignment | None:
    # Already locked by the candidate query; this read joins what the rating screen shows.
    item = (
        Item.objects.select_related("study", "revision", "response", "response_b", "question_set")
        .defer("revision__raw", "revision__extra", "response__raw", "response_b__raw")
        .get(pk=item_id)
    )
    return _try_claim_item(study, item, rater, now) if item.status == Item.Status.OPEN else None


def lease_expire(*, now: datetime | None = None) -> int:
    """Mark every lapsed claim or draft EXPIRED (with an event); returns how many."""
    now = now or timezone.now()
    # Locks the lapsed assignments themselves (skipping any a claim or draft save is renewing
    # right now); the locked rows are re-checked by the database, so a renewed lease is never expired.
    with transaction.atomic():
        lapsed = list(
            Assignment.objects.filter(state__in=Assignment.LEASED_STATES, lease_expires_at__lte=now)
            .select_for_update(skip_locked=True)
            .select_related("item")
        )
        for a in lapsed:
            Assignment.objects.filter(pk=a.pk).update(state=Assignment.State.EXPIRED)
        ReviewEvent.objects.bulk_create(
            ReviewEvent(item=a.item, assignment=a, kind=ReviewEvent.Kind.EXPIRED, reason="Lease lapsed before submission",
                        data={"lease_expired_at": a.lease_expires_at.isoformat()})
            for a in lapsed
        )
    return len(lapsed)


# --- labels --------------------------------------------------------------------------------------


def pair_label_to_canonical(label: str, pair_order: str) -> str:
    """A rater's "A" is the response shown first; store it in terms of item.response / response_b."""
    if pair_order == "ba" and label in ("A", "B"):
        return "B" if label == "A" else "A"
    return label


pair_label_as_shown = pair_label_to_canonical  # swapping is its own inverse


def _clean_entries(
    entries: dict[str, Any], fields: list[Field], *, require_all: bool
) -> dict[str, dict[str, Any]]:
    """Check labels against each field's scale; errors name the field. Returns {field id: entry}."""
    if not isinstance(entries, dict):
        raise ValidationError({"labels": "labels: expected an object mapping field ids to labels."})
    by_id = {f.id: f for f in fields}
    errors: dict[str, str] = {}
    cleaned: dict[str, dict[str, Any]] = {}
    for fid, raw in entries.items():
        f = by_id.get(fid)
        if f is None:
            errors[fid] = f"{fid}: no such field on this item."
            continue
        entry = {"label": raw} if isinstance(raw, str) else raw
        if not isinstance(entry, dict):
            errors[fid] = f"{fid}: expected {{'label': ..., 'comment': ...}}."
            continue
        label = entry.get("label") or ""
        comment = entry.get("comment") or ""
        if not isinstance(label, str) or not isinstance(comment, str):
            errors[fid] = f"{fid}: label and comment must be text."
            continue
        if label and f.category(label) is None:
            errors[fid] = f"{fid} ({f.label[:60]}): {label!r} is not on the scale {f.values}."
            continue
        out: dict[str, Any] = {"label": label, "comment": comment.strip()}
        seconds = entry.get("seconds")
        if isinstance(seconds, int) and seconds >= 0:
            out["seconds"] = seconds
        cleaned[fid] = out
    if require_all:
        for f in fields:
            entry = cleaned.get(f.id)
            if f.id in errors:
                continue
            if not entry or not entry["label"]:
                errors[f.id] = f"{f.id} ({f.label[:60]}): a label is required."
                continue
            category = f.category(entry["label"])
            if f.task.requires_explanation and category is not None and not category.approves and not entry["comment"]:
                errors[f.id] = f"{f.id} ({f.label[:60]}): explain why you answered {category.label!r}."
    if errors:
        raise ValidationError(errors)
    return cleaned


def _locked(assignment: Assignment) -> tuple[Item, Assignment, Study]:
    item = Item.objects.select_for_update(of=("self",)).select_related("study").get(pk=assignment.item_id)
    locked = Assignment.objects.select_for_update().get(pk=assignment.pk)
    locked.item = item  # callers and API responses read item and study without more queries
    return item, locked, item.study


def _ensure_live(a: Assignment, item: Item, study: Study, now: datetime) -> None:
    """Raise unless the rater may still write to `a`; revive a lapsed claim whose slot is still free."""
    if a.state in (Assignment.State.SUBMITTED, Assignment.State.REVISED):
        raise ValidationError({"state": "state: already submitted; it can change only if an inspector returns it."})
    if a.state == Assignment.State.SKIPPED:
        raise ValidationError({"state": "state: you skipped this item."})
    if a.state == Assignment.State.RETURNED:
        return
    if study.status != Study.Status.RUNNING:
        raise ValidationError({"state": "state: this study is not running."})
    if a.state in Assignment.LEASED_STATES and a.lease_expires_at and a.lease_expires_at > now:
        return
    if item.status == Item.Status.OPEN and _slot_holders(item, now, excluding=a) < study.raters_per_item:
        if a.state == Assignment.State.EXPIRED:
            a.state = Assignment.State.DRAFT if a.draft else Assignment.State.CLAIMED
        a.lease_expires_at = _lease_until(study, now)
        return
    raise ValidationError(
        {"state": "state: your claim on this item lapsed and another rater took the slot; take the next item."}
    )


def _user_owns(assignment: Assignment, rater: User) -> None:
    if assignment.rater_id != rater.pk:
        raise PermissionDenied("This is another rater's assignment.")


def assignment_save_draft(
    *, assignment: Assignment, rater: User, draft: dict[str, dict], seconds_spent: int,
    now: datetime | None = None,
) -> Assignment:
    """Merge `draft` (Field.id -> {"label", "comment"}) into the assignment's draft and renew its lease."""
    now = now or timezone.now()
    _user_owns(assignment, rater)
    if not isinstance(seconds_spent, int) or seconds_spent < 0:
        raise ValidationError({"seconds_spent": "seconds_spent: must be a non-negative integer."})
    cleaned = _clean_entries(draft, item_fields(assignment.item), require_all=False)
    # Locks the item then the assignment (the order every service uses): reviving a lapsed lease
    # must not race a claim of the same slot.
    with transaction.atomic():
        item, a, study = _locked(assignment)
        _ensure_live(a, item, study, now)
        first_save_of_round = a.state == Assignment.State.CLAIMED or a.draft_saved_at is None
        if a.state in Assignment.LEASED_STATES:
            a.state = Assignment.State.DRAFT
            a.lease_expires_at = _lease_until(study, now)
        a.draft = {**(a.draft or {}), **cleaned}
        a.draft_saved_at = now
        a.seconds_spent = max(a.seconds_spent, seconds_spent)
        a.save(update_fields=["state", "lease_expires_at", "draft", "draft_saved_at", "seconds_spent"])
        if first_save_of_round:
            _event(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.DRAFTED, data={"round": a.round})
    return a


def _finished_assignments(item: Item) -> list[Assignment]:
    return list(
        item.assignments.filter(
            state__in=(Assignment.State.SUBMITTED, Assignment.State.REVISED, Assignment.State.RETURNED)
        ).order_by("pk")
    )


def _labels_by_field(assignments: list[Assignment], *, round_: str) -> dict[str, dict[int, Rating]]:
    """{field id: {assignment id: rating}} using each assignment's first or latest round."""
    out: dict[str, dict[int, Rating]] = defaultdict(dict)
    ratings = Rating.objects.filter(assignment__in=assignments).select_related("task").order_by("round", "pk")
    if round_ == "first":
        ratings = ratings.filter(round=1)
    for r in ratings:
        out[f"{r.task.slug}|{r.field_key}"][r.assignment_id] = r
    return out


def _write_final_labels(
    item: Item, fields: list[Field], labels: dict[str, str], *, source: str, inspection: Inspection | None,
    decided_by: User | None, reason: str,
) -> None:
    FinalLabel.objects.bulk_create(
        FinalLabel(item=item, task=f.task, field_key=f.key, criterion=f.criterion, mcq=f.mcq,
                   label=labels[f.id], reason=reason, source=source, inspection=inspection, decided_by=decided_by)
        for f in fields if f.id in labels
    )


def _apply_policy(item: Item, study: Study, fields: list[Field], *, revised: bool) -> None:
    """After a submission: send the item to inspection, resolve it by consensus, or leave it open."""
    if revised:
        if item.status == Item.Status.RETURNED and not item.assignments.filter(state=Assignment.State.RETURNED).exists():
            item.status = Item.Status.INSPECTION
            item.save(update_fields=["status"])
            _event(item=item, actor=None, kind=ReviewEvent.Kind.SENT_TO_INSPECTION, reason="Revision submitted",
                   data={"why": "revised"})
        return
    if item.status != Item.Status.OPEN:
        return
    finished = _finished_assignments(item)
    if len(finished) < study.raters_per_item:
        return
    first = _labels_by_field(finished, round_="first")
    differing = [f.id for f in fields if len({r.label for r in first.get(f.id, {}).values()}) > 1]
    why = []
    if study.inspect_all:
        why.append("inspect_all")
    if differing and study.inspect_disagreements:
        why.append("disagreement")
    if item.sampled_for_inspection:
        why.append("sampled")
    if why:
        item.status = Item.Status.INSPECTION
        item.save(update_fields=["status"])
        _event(item=item, actor=None, kind=ReviewEvent.Kind.SENT_TO_INSPECTION,
               reason=", ".join(why), data={"why": why, "differing_fields": differing})
        return
    agreed = {
        f.id: next(iter(labels)).label
        for f in fields
        if (labels := first.get(f.id, {}).values()) and len({r.label for r in labels}) == 1
    }
    _write_final_labels(item, fields, agreed, source=FinalLabel.Source.CONSENSUS, inspection=None,
                        decided_by=None, reason="Raters agreed")
    item.status = Item.Status.RESOLVED
    item.save(update_fields=["status"])
    _event(item=item, actor=None, kind=ReviewEvent.Kind.RESOLVED, reason="Raters agreed; not selected for inspection",
           data={"unresolved_fields": differing})


def rating_submit(
    *, assignment: Assignment, rater: User, labels: dict[str, dict], seconds_spent: int,
    now: datetime | None = None,
) -> Assignment:
    """Write one Rating per field for this round, then apply the study's inspection policy."""
    now = now or timezone.now()
    _user_owns(assignment, rater)
    if not isinstance(seconds_spent, int) or seconds_spent < 0:
        raise ValidationError({"seconds_spent": "seconds_spent: must be a non-negative integer."})
    fields = item_fields(assignment.item)
    cleaned = _clean_entries(labels, fields, require_all=True)
    # Locks the item row: the last of its raters to submit decides the inspection policy, and two
    # raters submitting at once must not both (or neither) see the item complete.
    with transaction.atomic():
        item, a, study = _locked(assignment)
        _ensure_live(a, item, study, now)
        revised = a.state == Assignment.State.RETURNED
        seconds = max(a.seconds_spent, seconds_spent)
        Rating.objects.bulk_create(
            Rating(
                assignment=a, task=f.task, field_key=f.key, criterion=f.criterion, mcq=f.mcq, round=a.round,
                label=pair_label_to_canonical(cleaned[f.id]["label"], a.pair_order)
                if f.task.target == TaskTarget.PAIRWISE else cleaned[f.id]["label"],
                comment=cleaned[f.id]["comment"], seconds_spent=cleaned[f.id].get("seconds", seconds),
            )
            for f in fields
        )
        a.state = Assignment.State.REVISED if revised else Assignment.State.SUBMITTED
        a.submitted_at = now
        a.draft = {}
        a.lease_expires_at = None
        a.seconds_spent = seconds
        a.save(update_fields=["state", "submitted_at", "draft", "lease_expires_at", "seconds_spent"])
        _event(item=item, assignment=a, actor=rater,
               kind=ReviewEvent.Kind.REVISED if revised else ReviewEvent.Kind.SUBMITTED,
               data={"round": a.round, "seconds": seconds})
        _apply_policy(item, study, fields, revised=revised)
    return a


def assignment_skip(*, assignment: Assignment, rater: User, reason: str, now: datetime | None = None) -> Assignment:
    """Give the item back with a reason; this rater is never offered it again."""
    now = now or timezone.now()
    _user_owns(assignment, rater)
    if not reason or not reason.strip():
        raise ValidationError({"reason": "reason: say why you skip this item."})
    # Locks the item: skipping frees a slot that concurrent claims count.
    with transaction.atomic():
        item, a, _study = _locked(assignment)
        if a.state not in (*Assignment.LEASED_STATES, Assignment.State.EXPIRED):
            raise ValidationError({"state": f"state: a {a.get_state_display().lower()} item cannot be skipped."})
        a.state = Assignment.State.SKIPPED
        a.skip_reason = reason.strip()
        a.lease_expires_at = None
        a.save(update_fields=["state", "skip_reason", "lease_expires_at"])
        _event(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.SKIPPED, reason=a.skip_reason)
    return a


# --- inspection ----------------------------------------------------------------------------------


def _lock_item_in(item: Item, statuses: Sequence[str]) -> Item:
    locked = Item.objects.select_for_update().select_related("study").get(pk=item.pk)
    if locked.status not in statuses:
        raise ValidationError({"status": f"status: the item is {locked.get_status_display().lower()}, "
                                         "not awaiting inspection."})
    return locked


def inspection_accept(*, item: Item, inspector: User, comment: str = "") -> Inspection:
    """Accept the raters' labels when they agree on every field; they become the final labels."""
    _require_inspector(item.study, inspector)
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = _lock_item_in(item, (Item.Status.INSPECTION,))
        fields = item_fields(item)
        finished = [a for a in _finished_assignments(item) if a.state != Assignment.State.RETURNED]
        latest = _labels_by_field(finished, round_="latest")
        agreed: dict[str, str] = {}
        disagreeing = []
        for f in fields:
            values = {r.label for r in latest.get(f.id, {}).values()}
            if len(values) == 1:
                agreed[f.id] = values.pop()
            else:
                disagreeing.append(f.label[:60])
        if disagreeing:
            raise ValidationError({"labels": "labels: the raters disagree on " + "; ".join(disagreeing)
                                   + ". Set the final labels (adjudicate) or return the item to an annotator."})
        inspection = Inspection.objects.create(item=item, inspector=inspector, action=Inspection.Action.ACCEPT,
                                               comment=comment.strip())
        _write_final_labels(item, fields, agreed, source=FinalLabel.Source.ACCEPTED, inspection=inspection,
                            decided_by=inspector, reason=comment.strip())
        item.status = Item.Status.RESOLVED
        item.save(update_fields=["status"])
        _event(item=item, actor=inspector, kind=ReviewEvent.Kind.ACCEPTED, reason=comment.strip())
    return inspection


def inspection_adjudicate(*, item: Item, inspector: User, labels: dict[str, str], reason: str) -> Inspection:
    """Set the final label of every field, with a reason."""
    _require_inspector(item.study, inspector)
    if not reason or not reason.strip():
        raise ValidationError({"reason": "reason: say why you set these final labels."})
    fields = item_fields(item)
    cleaned = _clean_entries(
        {fid: {"label": v} if isinstance(v, str) else v for fid, v in (labels or {}).items()}
        if isinstance(labels, dict) else labels,
        fields, require_all=False,
    )
    missing = [f.id for f in fields if not cleaned.get(f.id, {}).get("label")]
    if missing:
        raise ValidationError({fid: f"{fid}: a final label is required." for fid in missing})
    # Locks the item so two inspectors cannot both resolve it.
    with transaction.atomic():
        item = _lock_item_in(item, (Item.Status.INSPECTION,))
        inspection = Inspection.objects.create(item=item, inspector=inspector,
                                               action=Inspection.Action.ADJUDICATE, comment=reason.strip())
        _write_final_labels(item, fields, {fid: e["label"] for fid, e in cleaned.items()},
                            source=FinalLabel.Source.ADJUDICATED, inspection=inspection, decided_by=inspector,
                            reason=reason.strip())
        item.status = Item.Status.RESOLVED
        item.save(update_fields=["status"])
        _event(item=item, actor=inspector, kind=ReviewEvent.Kind.ADJUDICATED, reason=reason.strip(),
               data={"labels": {fid: e["label"] for fid, e in cleaned.items()}})
    return inspection


def inspection_return(*, item: Item, inspector: User, assignment: Assignment, comment: str) -> Inspection:
    """Send one rater's work back for revision; their draft starts from their latest labels."""
    _require_inspector(item.study, inspector)
    if not comment or not comment.strip():
        raise ValidationError({"comment": "comment: tell the annotator what to revise."})
    if assignment.item_id != item.pk:
        raise ValidationError({"assignment": "assignment: it does not belong to this item."})
    # Locks the item, then the assignment, like the rater's services.
    with transaction.atomic():
        item = _lock_item_in(item, (Item.Status.INSPECTION, Item.Status.RETURNED))
        a = Assignment.objects.select_for_update().get(pk=assignment.pk)
        if a.state not in (Assignment.State.SUBMITTED, Assignment.State.REVISED):
            raise ValidationError({"assignment": "assignment: only submitted or revised work can be returned."})
        latest = _labels_by_field([a], round_="latest")
        a.draft = {
            fid: {
                "label": pair_label_as_shown(by_a[a.pk].label, a.pair_order)
                if by_a[a.pk].task.target == TaskTarget.PAIRWISE else by_a[a.pk].label,
                "comment": by_a[a.pk].comment,
            }
            for fid, by_a in latest.items()
        }
        a.state = Assignment.State.RETURNED
        a.round += 1
        a.draft_saved_at = None
        a.seconds_spent = 0
        a.save(update_fields=["draft", "state", "round", "draft_saved_at", "seconds_spent"])
        inspection = Inspection.objects.create(item=item, inspector=inspector, action=Inspection.Action.RETURN,
                                               comment=comment.strip(), returned_to=a)
        item.status = Item.Status.RETURNED
        item.save(update_fields=["status"])
        _event(item=item, assignment=a, actor=inspector, kind=ReviewEvent.Kind.RETURNED, reason=comment.strip(),
               data={"round": a.round})
    return inspection


__all__ = [
    "ItemSelection",
    "assignment_claim_next",
    "assignment_save_draft",
    "assignment_skip",
    "inspection_accept",
    "inspection_adjudicate",
    "inspection_return",
    "lease_expire",
    "pair_label_as_shown",
    "pair_label_to_canonical",
    "rating_submit",
    "study_add_items",
    "study_add_members",
    "study_close",
    "study_create",
    "study_start",
]
