"""Writes after review: the hourly rate a study's review time is costed at (LiveClin: $24 per hour),
and the events about a whole study rather than one item (exports of its labels or audit trail).

(The curation's own event is written by `annotation.outcomes.curation.service`.) Every event joins
its study's hash chain when it is saved (`ReviewEvent.save`).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from accounts.roles import AnyUser
from annotation.access import check_can_manage_studies
from annotation.models import ReviewEvent, Study


def study_set_hourly_rate(*, study: Study, hourly_rate: Decimal | str | None, currency: str, actor: AnyUser) -> Study:
    """Set (or clear, with None / "") the rate; admins only (403)."""
    check_can_manage_studies(actor)
    rate: Decimal | None = None
    if hourly_rate not in (None, ""):
        try:
            rate = Decimal(str(hourly_rate)).quantize(Decimal("0.01"))
        except InvalidOperation as exc:
            raise ValidationError({"hourly_rate": [_("hourly_rate: a number such as 24 or 24.50")]}) from exc
        if rate < 0 or rate >= Decimal("1000000"):
            raise ValidationError({"hourly_rate": [_("hourly_rate: between 0 and 999999.99")]})
    currency = (currency or "USD").strip().upper()
    if len(currency) != 3 or not currency.isalpha():
        raise ValidationError({"currency": [_("currency: a three-letter code such as USD or EUR")]})
    # Why atomic: one row, locked so two admins' edits do not interleave with a concurrent save.
    with transaction.atomic():
        locked = Study.objects.select_for_update().get(pk=study.pk)
        locked.hourly_rate, locked.currency = rate, currency
        locked.save(update_fields=["hourly_rate", "currency"])
    return locked


def study_record_export(*, study: Study, actor: AnyUser | None, what: str, fmt: str, **details: Any) -> ReviewEvent:
    """Record that `actor` exported `what` (labels, events) of the study, before the file is built,
    so an exported trail contains its own export."""
    # Why atomic: appending to the chain locks the study's chain head until the event is written.
    with transaction.atomic():
        return ReviewEvent.objects.record(
            study=study, item=None, actor=actor if actor is not None and actor.is_authenticated else None,
            kind=ReviewEvent.Kind.EXPORTED, reason=f"{what} as {fmt}",
            data={"what": what, "format": fmt, **details},
        )
