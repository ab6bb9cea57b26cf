"""LiveClin Table 1: generation pipelines compared on the same case reports.

Each pipeline's question sets are one release of the dataset (its label names the pipeline:
physician-authored, Generator, Generator-Critic, full). "Accuracy is the physician-validated pass
rate": a set passes when physicians passed every check of every MCQ (`rules.physician_verdict`);
sets still in review are left out. Pipelines are paired by the case report (the record id) and
compared with McNemar's test; the pass rate is also given on the sets the Judge approved.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

from agreement.metrics.label_audit import pipeline_comparison
from cases.models import Release
from liveclin.quality.loading import release_review
from liveclin.quality.rules import physician_verdict


def pipeline_table(releases: Sequence[Release]) -> dict[str, Any]:
    """One row per release (pipeline), in the order given, and every pair of pipelines."""
    outcomes: dict[str, dict[str, bool]] = {}
    approved: dict[str, dict[str, bool]] = {}
    pending: dict[str, int] = {}
    for release in releases:
        review = release_review(release)
        verdicts = {r.key: physician_verdict(r) for r in review.sets}
        outcomes[release.label] = {k: v for k, v in verdicts.items() if v is not None}
        pending[release.label] = sum(v is None for v in verdicts.values())
        screened = {r.key: r.passed_prescreen for r in review.sets if r.passed_prescreen is not None}
        if screened:
            approved[release.label] = {k: bool(v) for k, v in screened.items()}
    result = pipeline_comparison(outcomes, judge_approved=approved)
    return {
        "pipelines": [{"pipeline": r.label, "release": r.pk, "pending": pending[r.label],
                       "pass_rate": result.pass_rates[r.label].as_dict(),
                       "judge_approved": result.judge_approved[r.label].as_dict()
                       if r.label in result.judge_approved else None} for r in releases],
        "pairs": [{"a": p.a, "b": p.b, "n": p.n, "a_only": p.a_only, "b_only": p.b_only, "difference": p.difference,
                   "statistic": p.statistic, "p_value": p.p_value, "method": p.method, "reason": p.reason}
                  for p in result.pairs],
    }


def chosen_releases(raw: Sequence[str], fetch: Any) -> list[Release]:
    """The releases named by `?release=` (ids, in order), each fetched by `fetch(pk)` (an access
    function). ValueError says what is wrong with the choice."""
    ids = [int(v) for v in raw if str(v).isdigit()]
    if len(ids) != len(raw) or len(set(ids)) < 2:
        raise ValueError(_("release: name at least two releases by id (?release=1&release=2)."))
    releases = [fetch(pk) for pk in dict.fromkeys(ids)]
    if len({r.dataset_id for r in releases}) > 1:
        raise ValueError(_("release: the pipelines must be releases of one dataset (they share the case reports)."))
    if len({r.label for r in releases}) < len(releases):
        raise ValueError(_("release: two releases share a label; each pipeline needs its own."))
    return releases
