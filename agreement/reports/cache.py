"""Cached reports, keyed by selection and a fingerprint of the label tables (charts: `agreement.charts`)."""

from __future__ import annotations

from agreement.reports.base import Report
from agreement.reports.build import build_report
from agreement.selection import Selection


def labels_fingerprint() -> str:
    """Changes whenever a rating, grader decision, judge score or pairwise judgement is added or removed,
    and whenever a rater's expert group changes.

    Ratings and decisions are written once and never updated, so the highest id and the row count
    of each table identify the data a report was computed from.
    """
    from django.db.models import Count, Max

    from annotation.models import Rating
    from graders.models import GraderDecision, JudgeScore, PairwiseJudgement

    parts = []
    for model in (Rating, GraderDecision, JudgeScore, PairwiseJudgement):
        agg = model.objects.aggregate(n=Count("pk"), top=Max("pk"))
        parts.append(f"{agg['n']}:{agg['top']}")
    parts.append(_groups_fingerprint())
    return "/".join(parts)


def _groups_fingerprint() -> str:
    """Expert groups are updated in place (a rater moved from A to B on the study page): the report's
    group tables follow them, so the cached report must too (issue 24)."""
    import hashlib

    from annotation.models import StudyMember

    rows = StudyMember.objects.exclude(group="").order_by("pk").values_list("pk", "group")
    return hashlib.sha256(",".join(f"{pk}{group}" for pk, group in rows).encode()).hexdigest()[:16]


def cache_key(kind: str, selection: Selection, fingerprint: str) -> str:
    """Per interface language too: titles, notes and chart labels are written in the reader's."""
    import hashlib
    import json

    from django.utils.translation import get_language

    raw = json.dumps([kind, selection.as_dict(), fingerprint, get_language() or ""], sort_keys=True)
    return "agreement:" + hashlib.sha256(raw.encode()).hexdigest()


REPORT_CACHE_SECONDS = 3600


def report_for_fingerprint(selection: Selection, fingerprint: str) -> Report:
    """The report for a selection at a given state of the labels, from Django's cache or built and cached."""
    from django.core.cache import cache

    key = cache_key("report", selection, fingerprint)
    report = cache.get(key)
    if report is None:
        report = build_report(selection)
        cache.set(key, report, REPORT_CACHE_SECONDS)
    return report


def cached_report(selection: Selection) -> Report:
    """The report for a selection, computed once per state of the labels (Django's cache)."""
    return report_for_fingerprint(selection, labels_fingerprint())
