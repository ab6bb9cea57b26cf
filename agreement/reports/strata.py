"""Breaking every table down by one stratum (specialty, language, model...)."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement.reports.base import LabelData, Table
from agreement.selectors import (
    REVISION_STRATA,
    STRATA,
    revision_strata,
)


def stratum_masks(data: LabelData, stratum: str) -> dict[str, dict[str, np.ndarray]]:
    """stratum value -> {frame name: row mask} for the frames a stratum can split (a revision stratum
    reads the revisions' values: one query)."""
    frames = {"ratings": data.ratings, "decisions": data.decisions, "judges": data.judges}
    out: dict[str, dict[str, np.ndarray]] = {}
    if stratum in REVISION_STRATA:
        revs = set()
        for f in frames.values():
            if "revision" in f and len(f):
                revs.update(f["revision"].dropna().astype(np.int64).unique().tolist())
        lookup = revision_strata(revs, needed=(stratum,)).values(stratum)
        for value, group in lookup.groupby("value"):
            rev_ids = group["revision"].to_numpy()
            out[str(value)] = {
                name: f["revision"].isin(rev_ids).to_numpy() if len(f) else np.zeros(0, bool)
                for name, f in frames.items()
            }
        return out
    column = "axis" if stratum == "axis" else "model"
    values: set[str] = set()
    for f in frames.values():
        if column in f and len(f):
            values.update(v for v in f[column].dropna().unique().tolist() if v != "")
    for value in sorted(values):
        out[value] = {
            name: (f[column] == value).to_numpy() if column in f and len(f) else np.zeros(len(f), bool)
            for name, f in frames.items()
        }
    return out


def _subset(data: LabelData, masks: dict[str, np.ndarray]) -> LabelData:
    return LabelData(
        ratings=data.ratings[masks["ratings"]] if len(data.ratings) else data.ratings,
        decisions=data.decisions[masks["decisions"]] if len(data.decisions) else data.decisions,
        judges=data.judges[masks["judges"]] if len(data.judges) else data.judges,
        pairwise=data.pairwise, scales=data.scales, raters=data.raters, runs=data.runs,
        later_rounds=data.later_rounds, human_pairwise=data.human_pairwise, imported_ratings=data.imported_ratings,
    )


def _stratified(
    builder: Callable[[LabelData], list[Table]], data: LabelData, stratum: str,
    masks_by_value: dict[str, dict[str, np.ndarray]] | None = None,
) -> list[Table]:
    """Run a table builder on every stratum and stack its tables with a stratum column.

    `masks_by_value`: `stratum_masks(data, stratum)` when the caller has them (no database access then).
    """
    overall = builder(data)
    pieces: dict[str, list[pd.DataFrame]] = {t.key: [t.frame.assign(stratum="All")] for t in overall}
    if masks_by_value is None:
        masks_by_value = stratum_masks(data, stratum)
    for value, masks in sorted(masks_by_value.items()):
        for t in builder(_subset(data, masks)):
            if t.key in pieces:
                pieces[t.key].append(t.frame.assign(stratum=value))
    out = []
    for t in overall:
        parts = [p for p in pieces[t.key] if len(p)]
        with warnings.catch_warnings():
            # Strata where a column is all empty are fine to stack; pandas only warns about dtype inference.
            warnings.simplefilter("ignore", FutureWarning)
            frame = pd.concat(parts, ignore_index=True) if parts else t.frame
        if "stratum" not in frame:
            frame = frame.assign(stratum=pd.Series(dtype=object))
        cols = ["stratum", *[c for c in frame.columns if c != "stratum"]]
        by = _("%(title)s, by %(stratum)s") % {"title": t.title, "stratum": str(STRATA[stratum]).lower()}
        out.append(Table(t.key, by, frame[cols], t.note))
    return out
