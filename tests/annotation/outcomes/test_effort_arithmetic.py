"""Effort and cost arithmetic on its own (the study page and exports show these numbers)."""

from decimal import Decimal

from annotation.outcomes.effort import Effort, summarize_effort


def test_it_per_rater_time_items_per_hour_and_cost_at_the_studys_rate() -> None:
    report = summarize_effort(
        [("R-a", 1, 90), ("R-a", 2, 30), ("R-b", 1, 60), ("R-a", 1, 60)],  # R-a revised item 1
        hourly_rate=Decimal("24.00"),
    )
    a, b = report.per_rater
    assert (a.rater, a.seconds, a.items, a.rounds) == ("R-a", 180, 2, 3)
    assert a.hours == Decimal("0.05") and a.items_per_hour == Decimal("40.00")
    assert a.cost(Decimal("24.00")) == Decimal("1.20")
    assert (b.seconds, b.items, b.cost(Decimal("24"))) == (60, 1, Decimal("0.40"))
    assert report.total == Effort("total", 240, 3, 4)
    assert report.as_dict()["total"] == {
        "rater": "total", "items": 3, "rounds": 4, "seconds": 240, "hours": "0.07", "items_per_hour": "45.00",
        "hourly_rate": "24.00", "cost": "1.60",
    }


def test_it_liveclin_scale_person_hours_at_24_dollars() -> None:
    effort = Effort("total", seconds=round(1772.18 * 3600), items=1869, rounds=1869)
    assert effort.hours == Decimal("1772.18")
    assert effort.cost(Decimal("24")) == Decimal("42532.32")


def test_it_no_rate_or_no_time_gives_no_cost_and_no_rate_per_hour() -> None:
    report = summarize_effort([], hourly_rate=None)
    assert report.per_rater == () and report.total.items_per_hour is None
    assert report.as_dict()["total"]["cost"] is None
