"""Cached reports, keyed by selection and a fingerprint of what the report reads (charts: `agreement.charts`).

A report is cached per selection (hence per study) and per state of its inputs. The state is read in
two small queries, whatever the data size:

- the study's review events: every write of a label (submit, revise, edit after submission,
  adjudication, outside labels) records a `ReviewEvent` in the same transaction, and the audit trail is
  append-only, so the highest event id of the study changes whenever one of its labels does, an edit
  in place included. Labels of other studies leave the study's report cached.
- the grader outputs: decisions, judge scores and pairwise judgements are written once (bulk inserts)
  and only deleted with their run, so the highest id of each table and the count and highest id of
  the runs identify them.
- the study's members (groups by design, ranks and pseudonyms): the expert-group tables read them.

A selection not limited to one study (a release, a dataset) takes every study's events and, for
labels written without an event, the ratings' count and highest id.
"""

from __future__ import annotations

import hashlib

from agreement.reports.base import Report
from agreement.reports.build import build_report
from agreement.selection import Selection


def _scalars(sql: str, params: list[object]) -> tuple[object, ...]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return tuple(cursor.fetchone())


def labels_fingerprint(selection: Selection | None = None) -> str:
    """Changes whenever a label, grader output or study member the report reads is added, edited or removed.

    Two queries (scalar subqueries, then the study's members with their profiles); callers cache by it.
    """
    from annotation.models import Rating, ReviewEvent, StudyMember
    from graders.models import GraderDecision, GraderRun, JudgeScore, PairwiseJudgement

    study_id = selection.study_id if selection is not None else None
    # (aggregate, table, condition): table names come from the models, the study id is a parameter.
    scalars = [("MAX(id)", ReviewEvent._meta.db_table, "WHERE study_id = %s" if study_id is not None else "")]
    params: list[object] = [study_id] if study_id is not None else []
    if study_id is None:
        scalars += [("COUNT(*)", Rating._meta.db_table, ""), ("MAX(id)", Rating._meta.db_table, "")]
    scalars += [("MAX(id)", m._meta.db_table, "") for m in (GraderDecision, JudgeScore, PairwiseJudgement)]
    scalars += [("COUNT(*)", GraderRun._meta.db_table, ""), ("MAX(id)", GraderRun._meta.db_table, "")]
    sql = "SELECT " + ", ".join(f"(SELECT {agg} FROM {table} {where})" for agg, table, where in scalars)  # noqa: S608
    state = _scalars(sql, params)
    fingerprint = "/".join("" if v is None else str(v) for v in state)
    if study_id is not None:
        members = list(StudyMember.objects.filter(study_id=study_id).order_by("pk").values_list(
            "pk", "user_id", "role", "group", "user__profile__rank", "user__profile__pseudonym"))
        raw = repr(members)
        fingerprint += "/" + hashlib.sha256(raw.encode()).hexdigest()[:16]
    else:
        fingerprint += "/" + _groups_fingerprint()
    return fingerprint


def _groups_fingerprint() -> str:
    """Expert groups are updated in place (a rater moved from A to B on the study page): the report's
    group tables follow them, so the cached report must too (issue 24)."""
    from annotation.models import StudyMember

    rows = StudyMember.objects.exclude(group="").order_by("pk").values_list("pk", "group")
    return hashlib.sha256(",".join(f"{pk}{group}" for pk, group in rows).encode()).hexdigest()[:16]


def cache_key(kind: str, selection: Selection, fingerprint: str) -> str:
    """Per interface language too: titles, notes and chart labels are written in the reader's."""
    import json

    from django.utils.translation import get_language

    raw = json.dumps([kind, selection.as_dict(), fingerprint, get_language() or ""], sort_keys=True)
    return "agreement:" + hashlib.sha256(raw.encode()).hexdigest()


REPORT_CACHE_SECONDS = 3600


def report_for_fingerprint(selection: Selection, fingerprint: str) -> Report:
    """The report for a selection at a given state of its inputs, from Django's cache or built and cached."""
    from django.core.cache import cache

    key = cache_key("report", selection, fingerprint)
    report = cache.get(key)
    if report is None:
        report = build_report(selection)
        cache.set(key, report, REPORT_CACHE_SECONDS)
    return report


def cached_report(selection: Selection) -> Report:
    """The report for a selection, computed once per state of its inputs (Django's cache)."""
    return report_for_fingerprint(selection, labels_fingerprint(selection))
