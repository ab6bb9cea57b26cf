"""Shared pieces of every report: conventions, the `Table` / `LabelData` / `Report` types, small helpers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext, gettext_noop

from agreement.selectors import (
    RaterInfo,
    Selection,
    TaskScale,
)
from annotation.catalogue import GRADER_RELIABILITY

#: Tasks whose labels are met / not met per (response, criterion): compared with grader decisions.
RELIABILITY_TARGET = "response_criterion"


RELIABILITY_SLUG = GRADER_RELIABILITY.slug


PAPER_LAYOUT_MAX_RATERS = 6


CONSENSUS = "Physician consensus"
#: The physicians as one source of pairwise verdicts (MEDIC tables), beside the judges.
PHYSICIANS = "Physicians"


LOW_CASE_MF1 = 0.6


SENIOR_RANKS = ("associate_chief", "chief")


LABELS_USED = gettext_noop(
    "First-round ratings only (round 1: each physician's independent label, given before any "
    "inspection). Labels changed after inspection (later rounds) and final labels are not used."
)


CONVENTIONS: dict[str, str] = {
    "labels": LABELS_USED,
    "ac1": gettext_noop(
        "Gwet's AC1 (Gwet 2008, irrCAC): chance agreement from the scale's declared categories; "
        "SE without finite-population correction; CI = value +- t(0.975, n-1) x SE, upper bound capped at 1; "
        "p one-sided (H0: AC1 <= 0)."
    ),
    "fleiss_kappa": gettext_noop(
        "Fleiss' kappa on the same ratings, shown beside AC1 (kappa paradox)."
    ),
    "positive_rate": gettext_noop(
        "On met / not met tasks: the share of labels that are 'met' (a positive rate, as ClinConsensus and "
        "HealthBench report it), never called an approval: on a penalty criterion 'met' means the response "
        "made the error."
    ),
    "percent_agreement": gettext_noop(
        "Mean over subjects with >= 2 ratings of the share of agreeing rater pairs."
    ),
    "approval_rate": gettext_noop(
        "Share of a rater's labels in the scale's approving categories (ScaleCategory.approves). "
        "On the 0-2 scales a score >= 1 approves, as LiveMedBench publishes it (Sec. 4.1: 'scores >= 1 denote "
        "approval'); scales without approving categories (Likert, pairwise) and met / not met scales (positive "
        "rate) have no approval rate."
    ),
    "macro_f1": gettext_noop(
        "Mean of F1(met) and F1(not met) pooled over criterion decisions (HealthBench). "
        "Invalid or failed grader outputs count as wrong (ClinConsensus); undefined values are empty, never 0."
    ),
    "grader_macro_f1": gettext_noop(
        "Mean of the grader's Macro-F1 against each physician (LiveMedBench eq. 9), "
        "on the (response, criterion) pairs the physicians rated and the grader decided."
    ),
    "human_macro_f1": gettext_noop(
        "Macro-F1 between two physicians on the pairs both rated; 'pairwise mean' averages "
        "over rater pairs, 'pooled' adds all pairs' confusion counts."
    ),
    "case_score": gettext_noop(
        "clip(sum of points of met criteria / sum of positive points, 0, 1) per response "
        "(LiveMedBench eq. 1), over the criteria the physicians rated; invalid grader outputs count as not met."
    ),
    "consensus_score": gettext_noop(
        "Mean of the physicians' case scores for a response (LiveMedBench eq. 10)."
    ),
    "pearson": gettext_noop(
        "Pearson r between a grader's case score (rubric grader) or normalised judge score "
        "(LLM-as-judge) and the consensus score; Fisher-z CI, two-sided p."
    ),
    "expert_groups": gettext_noop(
        "A group's label on a decision is the majority of its raters' labels (ties dropped); "
        "a group's positive rate counts every decision of its raters (met decisions / decisions, like the tau "
        "calibration); Macro-F1 with group A as reference; case-level Macro-F1 per response, cases where it is "
        "undefined are counted apart."
    ),
    "ranking": gettext_noop(
        "Model score = mean case score of the model's responses for each grader; Spearman, Kendall "
        "tau-b, top-k overlap and mean absolute difference (percentage points) between two graders."
    ),
    "position_bias": gettext_noop(
        "Pairs a pairwise judge saw in both orders; a flip is a different verdict "
        "(verdicts are stored in terms of response A/B whatever the order shown)."
    ),
}


@dataclass
class Table:
    key: str
    title: str
    frame: pd.DataFrame
    note: str = ""


@dataclass
class LabelData:
    """Everything a report needs, read once from the database."""

    ratings: pd.DataFrame
    decisions: pd.DataFrame
    judges: pd.DataFrame
    pairwise: pd.DataFrame
    scales: dict[str, TaskScale]
    raters: dict[int, RaterInfo]
    runs: dict[int, tuple[str, str]]
    later_rounds: int
    #: Physicians' first-round pairwise preferences (`selectors.human_pairwise_frame`).
    human_pairwise: pd.DataFrame = field(default_factory=pd.DataFrame)
    #: First-round ratings imported from files of labels collected outside medreview.
    imported_ratings: int = 0
    #: Arrays several tables share (human matrix, grader arrays), computed once per LabelData.
    memo: dict[str, Any] = field(default_factory=dict, repr=False)

    def pseudonym(self, rater_id: int) -> str:
        info = self.raters.get(int(rater_id))
        return info.pseudonym if info else f"rater-{int(rater_id)}"


@dataclass
class Report:
    selection: Selection
    tables: list[Table]
    counts: dict[str, int]
    generated_at: dt.datetime
    #: In the interface language the report was built in (`build_report`); the exports' about sheet too.
    labels_used: str = field(default_factory=lambda: gettext(LABELS_USED))
    conventions: dict[str, str] = field(default_factory=lambda: {k: gettext(v) for k, v in CONVENTIONS.items()})
    #: Arrays the charts draw (confusion counts, scatter points); not exported.
    chart_data: dict[str, Any] = field(default_factory=dict)

    def table(self, key: str) -> Table | None:
        return next((t for t in self.tables if t.key == key), None)


def _none(x: Any) -> Any:
    """numpy scalars and NaN -> plain Python / None, for tables and JSON."""
    if x is None:
        return None
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and np.isnan(x):
        return None
    return x


def _rows(frame: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """frame[mask], without copying 165,000 rows when the mask keeps them all (the usual single-task study)."""
    return frame if mask.all() else frame[mask]


def task_codes(data: LabelData) -> tuple[np.ndarray, pd.Index]:
    """Each rating's task as an integer code into the task slugs (factorized once per LabelData)."""
    if "task_codes" not in data.memo:
        codes, tasks = pd.factorize(data.ratings["task"].to_numpy(dtype=object))
        data.memo["task_codes"] = (np.asarray(codes), pd.Index(tasks))
    return data.memo["task_codes"]


def group_starts(groups: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """(the rows in a stable order by group, where each group starts in that order: n_groups + 1 bounds).

    `groups` are integer codes 0 .. n_groups - 1 (a code may be absent).
    """
    # numpy sorts 16-bit integers stably by radix, in linear time (8 times faster at 1.65 million rows)
    order = np.argsort(groups.astype(np.int16) if n_groups < 2**15 else groups, kind="stable")
    return order, np.searchsorted(groups[order], np.arange(n_groups + 1))


def factorize_sorted(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`pd.factorize(values, sort=True)` for an integer array: (codes, sorted uniques).

    pandas sorts the uniques with a general sort and remaps the codes through a hash lookup: for the
    825,000 (response, criterion) pairs at 10x ClinConsensus scale 0.17 s, of which 0.04 s is the
    hashing. The uniques come in order of first appearance, and a study's ratings arrive grouped by
    assignment with a response's criteria in order, so they are long sorted runs: a stable sort
    (timsort) orders them in about 1 ms, and the codes are remapped by one take (0.05 s in all).
    """
    codes, uniques = pd.factorize(values, sort=False)
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    return rank[codes], np.asarray(uniques)[order]


def ranks_in_groups(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the rows in a stable order by group, each of those rows' rank in its group: 0, 1, ...).

    `groups` are non-negative integer codes (a code may be absent): pandas' groupby cumcount, without
    building a frame.
    """
    if groups.size == 0:
        return np.zeros(0, np.intp), np.zeros(0, np.int64)
    order, starts = group_starts(groups, int(groups.max()) + 1)
    return order, np.arange(order.size) - starts[groups[order]]


def _run_label(data: LabelData, run_id: int) -> str:
    label, _kind = data.runs.get(int(run_id), (f"run #{int(run_id)}", ""))
    return label
