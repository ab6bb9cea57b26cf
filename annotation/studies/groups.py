"""Expert groups by design (ClinConsensus 6.1): a study's raters in groups A and B.

When any rater of a study has a group, the queue gives each item at most `ceil(raters_per_item / 2)`
raters of each group (one of each with two raters per item), and raters without a group get no
new items; the agreement report's expert-group tables can use these groups (`group_by="study"`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Exists, OuterRef

from annotation.access import check_can_manage_studies
from annotation.models import Study, StudyMember

GROUPS = ("A", "B")

User = AbstractBaseUser


def group_quota(study: Study) -> int:
    """How many raters of one group an item takes."""
    return max(1, math.ceil(study.raters_per_item / len(GROUPS)))


def study_set_rater_groups(*, study: Study, groups: Mapping[User, str], actor: User) -> int:
    """Put raters of `study` in group "A" or "B" ("" removes a rater from the groups); returns how many changed.

    Groups are meant to be set before rating starts: assignments already made are not moved.
    """
    check_can_manage_studies(actor)
    bad = {g for g in groups.values() if g not in (*GROUPS, "")}
    if bad:
        raise ValidationError({"groups": f"groups: a group is A or B, not {sorted(bad)}."})
    # One transaction, membership rows locked: a rater's group is read by the queue under the same
    # lock (`assignment_claim_next` locks the rater's membership), so a claim sees old or new, never half.
    with transaction.atomic():
        members = {
            m.user_id: m for m in StudyMember.objects.select_for_update().filter(
                study=study, role=StudyMember.Role.RATER, user__in=list(groups))
        }
        missing = [u.get_username() for u in groups if u.pk not in members]
        if missing:
            raise ValidationError({"groups": f"groups: not raters of this study: {missing}."})
        changed = [m for u, g in groups.items() if (m := members[u.pk]).group != g]
        for m in changed:
            m.group = groups[next(u for u in groups if u.pk == m.user_id)]
        StudyMember.objects.bulk_update(changed, ["group"])
    return len(changed)


def study_has_groups_exists() -> Exists:
    """On a StudyMember query: whether the member's study has raters in groups (the claim reads it
    with the rater's membership, in the same query)."""
    return Exists(
        StudyMember.objects.filter(study_id=OuterRef("study_id"), role=StudyMember.Role.RATER).exclude(group="")
    )
