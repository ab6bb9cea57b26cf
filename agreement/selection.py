"""Which labels a report covers (`Selection`), and how request parameters become one.

A plain value object with no database access (messages are in the interface language): the page's filter form and the API's query serializer
both build it with `selection_from_params`, the CLI fills it from its options.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

#: The strata every table can be broken down by, with the label shown on pages.
STRATA: dict[str, Any] = {
    "specialty": _("Specialty"),
    "theme": _("Theme"),
    "language": _("Language"),
    "difficulty": _("Difficulty"),
    "register": _("Register"),
    "month": _("Month of post time"),
    "axis": _("Axis"),
    "model": _("Model"),
}

#: Strata that describe a case revision (the others live on the criterion or the response).
REVISION_STRATA = ("specialty", "theme", "language", "difficulty", "register", "month")


_MONTH = re.compile(r"(\d{4})-(\d{2})")


def month_error(value: str) -> str | None:
    """Why `value` is not a month filter (YYYY-MM, a real month whose end is a date), or None."""
    match = _MONTH.fullmatch(value)
    if match is None:
        return gettext("Enter a month as YYYY-MM, e.g. 2025-06.")
    year, month = int(match.group(1)), int(match.group(2))
    if not 1 <= month <= 12 or not 1 <= year <= 9998:
        return gettext("No such month: use a year from 0001 to 9998 and a month from 01 to 12, e.g. 2025-06.")
    return None


GROUP_BY = ("", "rank", "study")
MAX_TAU = 1000


@dataclass(frozen=True)
class Selection:
    """Which labels a report covers. Empty fields mean "no restriction"."""

    study_id: int | None = None
    release_id: int | None = None
    dataset_id: int | None = None
    tasks: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    graders: tuple[int, ...] = ()
    #: stratum name -> value, e.g. {"language": "en", "month": "2025-06"}
    filters: tuple[tuple[str, str], ...] = ()
    stratify_by: str = ""
    #: Expert groups as pseudonyms; empty = no expert-group table unless `group_by` is set.
    group_a: tuple[str, ...] = ()
    group_b: tuple[str, ...] = ()
    #: "rank": attending vs senior (associate chief, chief) raters; "study": the groups the study
    #: assigned its raters to (expert groups by design).
    group_by: str = ""
    #: ClinConsensus CACS@tau / Pass@tau threshold; 0 = calibrate (see `tau_model`) or scale 10 of 30.
    tau: int = 0
    #: A model name whose responses are physician-written: tau is calibrated from them.
    tau_model: str = ""

    def __post_init__(self) -> None:
        for name, value in self.filters:
            if name not in STRATA:
                raise ValueError(gettext("unknown stratum filter %(name)s; choose from %(choices)s")
                                 % {"name": repr(name), "choices": ", ".join(STRATA)})
            if name == "month" and (problem := month_error(value)):
                raise ValueError(problem)
        if self.stratify_by and self.stratify_by not in STRATA:
            raise ValueError(gettext("unknown stratum %(name)s; choose from %(choices)s")
                             % {"name": repr(self.stratify_by), "choices": ", ".join(STRATA)})
        if self.group_by not in GROUP_BY:
            raise ValueError(gettext("group_by must be '', 'rank' or 'study'"))
        if isinstance(self.tau, bool) or not isinstance(self.tau, int) or not 0 <= self.tau <= MAX_TAU:
            raise ValueError(gettext("tau must be a whole number from 1 to %(max)s (0 = calibrate)") % {"max": MAX_TAU})

    @property
    def filter_dict(self) -> dict[str, str]:
        return dict(self.filters)

    def as_dict(self) -> dict[str, Any]:
        return {
            "study_id": self.study_id,
            "release_id": self.release_id,
            "dataset_id": self.dataset_id,
            "tasks": list(self.tasks),
            "models": list(self.models),
            "graders": list(self.graders),
            "filters": self.filter_dict,
            "stratify_by": self.stratify_by,
            "group_a": list(self.group_a),
            "group_b": list(self.group_b),
            "group_by": self.group_by,
            "tau": self.tau,
            "tau_model": self.tau_model,
        }


#: Report parameters that keep one value of a stratum (and `model`, the response model).
FILTER_PARAMS = ("specialty", "theme", "language", "difficulty", "register", "month", "axis", "model")
GROUPS_INCOMPLETE = _("Give pseudonyms for both expert groups, or for neither.")


def split_pseudonyms(value: str | None) -> tuple[str, ...]:
    """"R-01, R-02 R-03" -> ("R-01", "R-02", "R-03"): commas and/or whitespace separate."""
    return tuple(p.strip() for p in re.split(r"[,\s]+", value or "") if p.strip())


def groups_incomplete(params: Mapping[str, Any]) -> bool:
    """True when one expert group has pseudonyms and the other none (a comparison needs both)."""
    return bool(split_pseudonyms(params.get("group_a"))) != bool(split_pseudonyms(params.get("group_b")))


def selection_from_params(params: Mapping[str, Any], **scope: int) -> Selection:
    """The Selection for validated report parameters (the page's filter form and the API's query alike).

    `params` holds the cleaned values of `task`, `grader`, the `FILTER_PARAMS`, `stratify_by`,
    `group_by`, `group_a`, `group_b`, `tau` and `tau_model` (missing or empty = no restriction); `scope` is
    `study_id=` or `release_id=`.
    """
    return Selection(
        **scope,
        tasks=(params["task"],) if params.get("task") else (),
        graders=(params["grader"],) if params.get("grader") else (),
        filters=tuple((name, str(params[name])) for name in FILTER_PARAMS if params.get(name)),
        stratify_by=params.get("stratify_by") or "",
        group_by=params.get("group_by") or "",
        group_a=split_pseudonyms(params.get("group_a")),
        group_b=split_pseudonyms(params.get("group_b")),
        tau=int(params.get("tau") or 0),
        tau_model=(params.get("tau_model") or "").strip(),
    )
