"""Item-selection filters whose data lives in higher apps.

"Passed the pre-screen" needs the Judge's verdicts (`graders`) and "validated" the quality-check
outcomes (`agreement`); `annotation` sits below both and never imports them, so each registers its
filter here when Django starts (its `AppConfig.ready`), like `cases.importers.writers`. A filter
takes case revision ids and returns the ones it keeps.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import ImproperlyConfigured

RevisionFilter = Callable[[set[int]], set[int]]

PASSED_PRESCREEN = "passed_prescreen"
VALIDATED = "validated"

_filters: dict[str, RevisionFilter] = {}


def register_selection_filter(name: str, keep: RevisionFilter) -> None:
    _filters[name] = keep  # one process-wide registration per name, made at startup


def apply_selection_filter(name: str, revision_ids: set[int]) -> set[int]:
    try:
        keep = _filters[name]
    except KeyError as exc:
        raise ImproperlyConfigured(f"the {name!r} item filter needs its app in INSTALLED_APPS") from exc
    return keep(revision_ids)
