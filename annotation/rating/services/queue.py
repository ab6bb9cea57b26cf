"""The rater's queue: claiming the next item and skipping it (which assignments hold a slot, and
for how long: `leases`).

Claims take candidate items with `select_for_update(skip_locked=True)` so concurrent claimers spread
over different items instead of queueing on one, and re-count the slots under the item's lock.
"""

from __future__ import annotations

import random
import time
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import OperationalError, connection, transaction
from django.db.models import BooleanField, ExpressionWrapper
from django.utils import timezone
from django.utils.translation import gettext

from annotation.access import check_can_write_assignment
from annotation.locks import lock_assignment
from annotation.models import Assignment, Item, ItemKind, ReviewEvent, Study, StudyMember
from annotation.rating.services.leases import expire, expire_lapsed_on_item, holds_slot, lease_until, revive
from annotation.studies.calibration.services import calibration_claim_next, calibration_pending_q
from annotation.studies.groups import group_quota, study_has_groups_exists
from cases.models import CaseRevision
from medreview.db.precompiled import PrecompiledQuery

User = AbstractBaseUser

# The reads of every claim, compiled once per process (medreview/db/precompiled.py): the rater's
# membership lock, their unfinished assignments, the claimed item as the screen shows it, and the
# item's assignments under its lock.
_MEMBERSHIP_FOR_UPDATE: PrecompiledQuery[tuple[str, bool, bool]] = PrecompiledQuery(
    lambda study_id, user_id: StudyMember.objects.select_for_update()
    .filter(study_id=study_id, user_id=user_id, role=StudyMember.Role.RATER)
    .annotate(calibrating=ExpressionWrapper(calibration_pending_q(), output_field=BooleanField()),
              grouped=study_has_groups_exists())
    .values_list("group", "calibrating", "grouped")
    .order_by("pk")[:1]
)
_OWN_UNFINISHED: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda study_id, rater_id: Assignment.objects.filter(
        item__study_id=study_id, rater_id=rater_id,
        state__in=Assignment.UNFINISHED_STATES,
    ).order_by("pk")
)
_ITEM_FOR_SCREEN: PrecompiledQuery[Item] = PrecompiledQuery(
    lambda pk: Item.objects.select_related("revision", "response", "response_b", "question_set")
    .defer("revision__raw", "revision__extra", "response__raw", "response_b__raw")
    .filter(pk=pk)
)
_ITEM_ASSIGNMENTS: PrecompiledQuery[Assignment] = PrecompiledQuery(
    lambda item_id: Assignment.objects.filter(item_id=item_id)
)

# The open status is written into the candidate SQL, not passed as a parameter: a statement prepared
# once per connection (a generic plan) can use the partial indexes on open items only when the
# query itself says status = 'open' (a code constant, so safe as a literal).
_OPEN = Item.Status.OPEN.value

# How many locked candidates a claim inspects before giving up (each is re-counted under its lock).
_CLAIM_ATTEMPTS = 20
# How long a claim waits for candidates other claimers hold locked, before saying nothing is left.
_CLAIM_WAIT_SECONDS = 2.0


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


def _pair_order(study: Study, item: Item, rater: User) -> str:
    if item.kind != ItemKind.PAIR:
        return ""
    return random.Random(f"{study.seed}:{item.pk}:{rater.pk}").choice(["ab", "ba"])


def _try_claim_item(study: Study, item: Item, rater: User, now: datetime, *, group: str = "") -> Assignment | None:
    """Give `item` to `rater` if a slot is free (caller holds the item lock), else None.

    One read of the item's assignments, under the lock, serves the slot recount, the marking of
    lapsed claims and the reuse of the rater's own expired row.
    """
    rows = _ITEM_ASSIGNMENTS.all(item_id=item.pk)
    if sum(1 for a in rows if holds_slot(a, now)) >= study.raters_per_item:
        return None
    if group and _group_full(study, rows, group, now):
        return None
    expire([a for a in rows if a.state in Assignment.LEASED_STATES and not holds_slot(a, now)])
    assignment = next((a for a in rows if a.rater_id == rater.pk), None)
    order = _pair_order(study, item, rater)
    if assignment is None:
        assignment = Assignment.objects.create(
            item=item, rater=rater, state=Assignment.State.CLAIMED, lease_expires_at=lease_until(study, now),
            pair_order=order,
        )
    else:
        # Only the rater's own expired row can be here (others are excluded): reuse it, keeping its draft.
        assignment.state = Assignment.State.DRAFT if assignment.draft else Assignment.State.CLAIMED
        assignment.lease_expires_at = lease_until(study, now)
        assignment.pair_order = assignment.pair_order or order
        assignment.save(update_fields=["state", "lease_expires_at", "pair_order"])
    if item.first_claimed_at is None:
        item.first_claimed_at = now
        item.save(update_fields=["first_claimed_at"])
    ReviewEvent.objects.record(
        item=item, assignment=assignment, actor=rater, kind=ReviewEvent.Kind.CLAIMED,
        data={"lease_expires_at": assignment.lease_expires_at.isoformat(), "pair_order": assignment.pair_order},
    )
    return assignment


def _group_full(study: Study, rows: list[Assignment], group: str, now: datetime) -> bool:
    """Whether the item's slots for `group` are taken (caller holds the item lock: the count is the truth)."""
    holders = [a.rater_id for a in rows if holds_slot(a, now)]
    same = StudyMember.objects.filter(
        study=study, role=StudyMember.Role.RATER, group=group, user_id__in=holders).count()
    return same >= group_quota(study)


def _own_unfinished(study: Study, rater: User, now: datetime) -> Assignment | None:
    own = _OWN_UNFINISHED.all(study_id=study.pk, rater_id=rater.pk)
    returned = [a for a in own if a.state == Assignment.State.RETURNED]
    if returned:
        return returned[0]
    live = [a for a in own if a.lease_expires_at and a.lease_expires_at > now]
    if live:
        a = live[0]
        a.lease_expires_at = lease_until(study, now)
        a.save(update_fields=["lease_expires_at"])
        return a
    for stale in own:
        # A lapsed claim of this rater: keep it (and its draft) if nobody took the slot meanwhile.
        # Re-read under the item's lock: another rater's claim may have expired it since `own` was
        # read, and reviving the stale copy would leave it expired with a fresh lease (a slot that
        # counts for nobody, then a refused submit).
        item, a, _ = lock_assignment(stale)
        if revive(a, item, study, now):
            a.save(update_fields=["state", "lease_expires_at"])
            return a
        expire_lapsed_on_item(item, now)
    return None


def assignment_claim_next(*, study: Study, rater: User, now: datetime | None = None) -> Assignment | None:
    """The rater's unfinished assignment in `study`, else a newly claimed eligible item, else None.

    None also when the study is not running or the rater does not meet its eligibility rules.
    """
    now = now or timezone.now()
    # Locks the rater's membership row (which also proves the membership) so one rater's parallel
    # requests (two tabs) claim one item at a time; candidate items are then locked one by one with
    # SKIP LOCKED and their slots re-counted under the lock. The same query tells whether the rater
    # is still in calibration and whether the study has expert groups (one round trip, not three).
    with transaction.atomic():
        membership = _MEMBERSHIP_FOR_UPDATE.first(study_id=study.pk, user_id=rater.pk)
        if membership is None:
            raise PermissionDenied(gettext("You are not a rater in this study."))
        group, calibrating, study_grouped = membership
        if calibrating:
            # Issue 11: a rater not yet admitted to a study with calibration items rates those first.
            return calibration_claim_next(study=study, rater=rater, now=now) if study.status == Study.Status.RUNNING else None
        if study.status != Study.Status.RUNNING:
            return None
        own = _own_unfinished(study, rater, now)
        if own is not None:
            return own
        if not _rater_eligible(study, rater):
            return None
        if not group and study_grouped:
            return None  # expert groups by design: a rater outside both groups takes no new item
        return _claim_new_item(study, rater, now, group=group)


def _candidate_item_id(
    study: Study, rater: User, now: datetime, *, started: bool, languages: list[str] | None,
    tried: list[int], wait: bool = False, group: str = "",
) -> int | None:
    """The first open item the rater has not touched with room left, locked with SKIP LOCKED.

    `started` True: items other raters hold a slot on (taken first, so items complete and reach
    agreement sooner), looked for among the items given out before (`Item.first_claimed_at`, a
    partial index) rather than by counting the slots of every open item; False: the first item with
    room, started or not, by its exact count (so an item is reached even without that mark). `wait`:
    wait for the row lock instead of skipping locked rows. Hand-written SQL because this runs on every
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
    params += [study.pk]
    # NOT IN over the rater's own items: one hashed scan of their assignments, not a probe per item.
    params += [rater.pk, Assignment.State.EXPIRED]
    params += list(languages or [])
    params += [*Assignment.SLOT_STATES, *Assignment.LEASED_STATES, live]
    given_out = ""
    if started:
        if study.raters_per_item < 2:  # no item can be started and still have room
            return None
        given_out = "AND i.first_claimed_at IS NOT NULL"
        # IN, not BETWEEN: PostgreSQL expands BETWEEN into two comparisons and counts the slots twice.
        held = list(range(1, study.raters_per_item))
        room = f"IN ({', '.join(['%s'] * len(held))})"
        params += held
    else:
        room = "< %s"
        params.append(study.raters_per_item)
    in_group = ""
    if group:
        # Expert groups by design: only items whose slots for the rater's group are not all held.
        member_table = connection.ops.quote_name(StudyMember._meta.db_table)
        in_group = f"""AND (SELECT COUNT(*) FROM {assignment_table} g JOIN {member_table} s
               ON s.user_id = g.rater_id AND s.study_id = i.study_id AND s.role = %s
               WHERE g.item_id = i.id AND s.{connection.ops.quote_name("group")} = %s
               AND (g.state IN (%s, %s, %s) OR (g.state IN (%s, %s) AND g.lease_expires_at > %s))) < %s"""  # noqa: S608 - quoted names only
        params += [StudyMember.Role.RATER, group, *Assignment.SLOT_STATES, *Assignment.LEASED_STATES, live,
                   group_quota(study)]
    skip = ""
    if tried:
        skip = f"AND i.id NOT IN ({', '.join(['%s'] * len(tried))})"
        params += tried
    lock = ""
    if connection.features.has_select_for_update_skip_locked:
        lock = " FOR UPDATE OF i" if wait else " FOR UPDATE OF i SKIP LOCKED"
    sql = f"""
        SELECT i.id FROM {item_table} i {join}
        WHERE i.study_id = %s AND i.status = '{_OPEN}' {given_out}
          AND i.id NOT IN (SELECT m.item_id FROM {assignment_table} m WHERE m.rater_id = %s AND m.state <> %s)
          {language}
          AND (SELECT COUNT(*) FROM {assignment_table} h WHERE h.item_id = i.id
               AND (h.state IN (%s, %s, %s) OR (h.state IN (%s, %s) AND h.lease_expires_at > %s))) {room}
          {in_group}
          {skip}
        ORDER BY i.id LIMIT 1{lock}
    """  # noqa: S608 - only quoted table names and placeholder lists are interpolated; values are params
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    return row[0] if row else None


def _claim_new_item(study: Study, rater: User, now: datetime, *, group: str = "") -> Assignment | None:
    """Lock and claim the first candidate with room (caller holds the transaction and the rater lock)."""
    languages = None
    if study.required_languages:
        profile = getattr(rater, "profile", None)
        languages = list(profile.languages) if profile else []
    tried: list[int] = []
    # Started items first; then the first item with room (started or not) by its exact count.
    for started in (True, False):
        claimed = _claim_unlocked(study, rater, now, started=started, languages=languages, tried=tried, group=group)
        if claimed is not None:
            return claimed
    if not connection.features.has_select_for_update_skip_locked:
        return None
    # Every candidate may just have been locked by someone else (typically another rater claiming
    # or submitting on the same items): rather than report an empty queue, wait for one. If it
    # fills meanwhile, try the other candidates again, until a slot is ours, none is left, or
    # _CLAIM_WAIT_SECONDS pass. Cannot deadlock with another claimer: the locks we hold are on
    # items that were full, which are no one's candidates.
    deadline = time.monotonic() + _CLAIM_WAIT_SECONDS
    while (remaining := deadline - time.monotonic()) > 0:
        item_id, claimed = _claim_after_wait(study, rater, now, remaining, languages=languages, tried=tried,
                                             group=group)
        if claimed is not None or item_id is None:
            return claimed
        tried.append(item_id)  # it filled while we waited
        claimed = _claim_unlocked(study, rater, now, started=False, languages=languages, tried=tried, group=group)
        if claimed is not None:
            return claimed
    return None


def _claim_unlocked(
    study: Study, rater: User, now: datetime, *, started: bool, languages: list[str] | None,
    tried: list[int], group: str,
) -> Assignment | None:
    """Claim the first candidate nobody holds a lock on (SKIP LOCKED); full ones go to `tried`."""
    for _ in range(_CLAIM_ATTEMPTS):
        item_id = _candidate_item_id(study, rater, now, started=started, languages=languages, tried=tried,
                                     group=group)
        if item_id is None:
            return None
        claimed = _claim_locked_item(study, item_id, rater, now, group=group)
        if claimed is not None:
            return claimed
        tried.append(item_id)
    return None


def _claim_after_wait(
    study: Study, rater: User, now: datetime, seconds: float, *, languages: list[str] | None, tried: list[int],
    group: str,
) -> tuple[int | None, Assignment | None]:
    """Wait (at most `seconds`) for the first untried candidate's lock, then try to claim it.
    Returns (the candidate, the claim); (None, None) when no candidate is left or the wait timed out.
    The savepoint keeps a lock timeout from breaking the outer transaction."""
    try:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(f"SET LOCAL lock_timeout = '{max(1, int(seconds * 1000))}ms'")
            item_id = _candidate_item_id(study, rater, now, started=False, languages=languages, tried=tried,
                                         wait=True, group=group)
            if item_id is None:
                return None, None
            return item_id, _claim_locked_item(study, item_id, rater, now, group=group)
    except OperationalError:
        return None, None


def _claim_locked_item(study: Study, item_id: int, rater: User, now: datetime, *, group: str = "") -> Assignment | None:
    # Already locked by the candidate query; this read joins what the rating screen shows.
    item = _ITEM_FOR_SCREEN.first(pk=item_id)
    if item is None:  # locked by the candidate query, so it cannot vanish; kept for the type
        return None
    item.study = study  # the candidate query picked it from this study: no join to read the row again
    return _try_claim_item(study, item, rater, now, group=group) if item.status == Item.Status.OPEN else None


def assignment_skip(*, assignment: Assignment, rater: User, reason: str, now: datetime | None = None) -> Assignment:
    """Give the item back with a reason; this rater is never offered it again."""
    now = now or timezone.now()
    check_can_write_assignment(rater, assignment)
    if not reason or not reason.strip():
        raise ValidationError({"reason": gettext("reason: say why you skip this item.")})
    # Locks the item: skipping frees a slot that concurrent claims count.
    with transaction.atomic():
        item, a, _study = lock_assignment(assignment)
        if a.state not in (*Assignment.LEASED_STATES, Assignment.State.EXPIRED):
            raise ValidationError({"state": gettext("state: a %(state)s item cannot be skipped.") % {"state": str(a.get_state_display()).lower()}})
        a.state = Assignment.State.SKIPPED
        a.skip_reason = reason.strip()
        a.lease_expires_at = None
        a.save(update_fields=["state", "skip_reason", "lease_expires_at"])
        ReviewEvent.objects.record(item=item, assignment=a, actor=rater, kind=ReviewEvent.Kind.SKIPPED,
                                   reason=a.skip_reason)
    return a

