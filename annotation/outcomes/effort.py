"""Effort and cost of a review, per rater and in total, as pure arithmetic.

Active review time is what medreview already measures: the visible seconds a rater spent on an item
in one round (the `seconds` of each SUBMITTED and REVISED event). Revisions are work too, so every
round's seconds count; items count once per rater (distinct items submitted). Cost is the active
time at the study's hourly rate (LiveClin reports 1,772.18 person-hours at $24/hour).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


@dataclass(frozen=True)
class Effort:
    rater: str  # pseudonym (or name, for the study's inspectors and admins)
    seconds: int
    items: int
    rounds: int

    @property
    def hours(self) -> Decimal:
        return (Decimal(self.seconds) / 3600).quantize(CENT, rounding=ROUND_HALF_UP)

    @property
    def items_per_hour(self) -> Decimal | None:
        if not self.seconds:
            return None
        return (Decimal(self.items) * 3600 / Decimal(self.seconds)).quantize(CENT, rounding=ROUND_HALF_UP)

    def cost(self, hourly_rate: Decimal | None) -> Decimal | None:
        """Exact seconds times the rate, rounded once to the cent (not rounded hours times the rate)."""
        if hourly_rate is None:
            return None
        return (Decimal(self.seconds) * hourly_rate / 3600).quantize(CENT, rounding=ROUND_HALF_UP)

    def as_dict(self, hourly_rate: Decimal | None) -> dict[str, object]:
        cost = self.cost(hourly_rate)
        per_hour = self.items_per_hour
        return {
            "rater": self.rater, "items": self.items, "rounds": self.rounds, "seconds": self.seconds,
            "hours": str(self.hours), "items_per_hour": None if per_hour is None else str(per_hour),
            "hourly_rate": None if hourly_rate is None else str(hourly_rate),
            "cost": None if cost is None else str(cost),
        }


@dataclass(frozen=True)
class EffortReport:
    per_rater: tuple[Effort, ...]
    total: Effort
    hourly_rate: Decimal | None
    currency: str = "USD"
    study: int | str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "study": self.study,
            "currency": self.currency,
            "hourly_rate": None if self.hourly_rate is None else str(self.hourly_rate),
            "per_rater": [e.as_dict(self.hourly_rate) for e in self.per_rater],
            "total": self.total.as_dict(self.hourly_rate),
        }


def summarize_effort(
    rounds: Iterable[tuple[str, int, int]], *, hourly_rate: Decimal | None, currency: str = "USD",
    study: int | str = "",
) -> EffortReport:
    """`rounds`: (rater, item id, seconds) for every submitted or revised round."""
    seconds: dict[str, int] = {}
    items: dict[str, set[int]] = {}
    count: dict[str, int] = {}
    for rater, item, spent in rounds:
        seconds[rater] = seconds.get(rater, 0) + max(int(spent), 0)
        items.setdefault(rater, set()).add(item)
        count[rater] = count.get(rater, 0) + 1
    per_rater = tuple(Effort(r, seconds[r], len(items[r]), count[r]) for r in sorted(seconds))
    total = Effort("total", sum(seconds.values()), sum(len(i) for i in items.values()), sum(count.values()))
    return EffortReport(per_rater=per_rater, total=total, hourly_rate=hourly_rate, currency=currency, study=study)
