"""How report tables read: human column headers and compact cells (value, 95% CI and p in one cell).

Shared by the report page, the XLSX and PDF exports. The data (CSV, JSON, the XLSX cells' stored
values) keep every column apart and every digit; only what a reader sees is compacted here.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import pandas as pd
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from agreement.reports.words import cell_words
from medreview.text import script_language

T = TypeVar("T")

#: Exact headers; anything else goes through `header()`'s word rules.
HEADERS: dict[str, Any] = {
    "task_name": _("Task"), "task": _("Task"), "n_subjects": _("Subjects"), "n_paired": _("Subjects with ≥ 2 ratings"),
    "n_raters": _("Raters"), "n_ratings": _("Ratings"), "approval_rate": _("Approval rate"),
    "percent_agreement": _("Percent agreement"), "ac1": _("Gwet's AC1"), "ac2": _("Gwet's AC2 (quadratic)"),
    "fleiss_kappa": _("Fleiss' κ"), "unknown_labels": _("Unknown labels"), "reason": _("Note"),
    "macro_f1": "Macro-F1", "pearson_r": _("Pearson r"), "spearman": _("Spearman ρ"), "kendall": _("Kendall τ-b"),
    "n_models": _("Models"), "mean_abs_diff_pp": _("Mean abs. difference (pp)"), "top3_overlap": _("Top-3 overlap"),
    "top5_overlap": _("Top-5 overlap"), "evaluator": _("Evaluator"), "grader": _("Grader"), "rater": _("Rater"),
    "n_labels": _("Labels"), "n_shared": _("Shared subjects"), "agreement_with_others": _("Agreement with others"),
    "ac1_vs_others_majority": _("AC1 vs others' majority"),
    "macro_f1_vs_others_majority": _("Macro-F1 vs others' majority"),
    "ac1_without_rater": _("AC1 without this rater"), "n_invalid": _("Invalid"), "n_failed": _("Failed"),
    "positive_rate": _("Positive rate"), "difference": _("Judge − clinician"), "mean_judge": _("Mean judge score"),
    "mean_clinician": _("Mean clinician score"), "judge": _("Judge"), "axis": _("Axis"), "n": "n",
    "rating": _("Rating (Elo scale)"), "win_rate": _("Win rate"), "score_rate": _("Score rate"), "source": _("Source"),
    "first_shown_win_share": _("First-shown win share"), "flip_rate": _("Flip rate"),
    "n_both_orders": _("Pairs in both orders"), "n_decided": _("Decided verdicts"), "n_verdicts": _("Verdicts"),
    "rubric_accuracy": _("Rubric Accuracy"), "pass_rate": "Pass@τ", "cacs": "CACS@τ", "tau": "τ",
    "n_short": _("Responses with < τ criteria"), "mean_hits": _("Mean hits"), "scorer": _("Scorer"),
    "scorer_a": _("Scorer A"), "scorer_b": _("Scorer B"), "grader_a": _("Grader A"), "grader_b": _("Grader B"),
    "metric": _("Metric"), "top3": _("Top-3 kept"), "top5": _("Top-5 kept"), "n_responses": _("Responses"),
    "n_matches": _("Matches"), "opponent": _("Opponent"), "model": _("Model"), "stratum": _("Stratum"),
    "scope": _("Scope"), "categories": _("Categories"), "n_scores": _("Scores"), "n_valid": _("Valid scores"),
    "mean_raw": _("Mean raw score"), "mean_normalized": _("Mean normalised"), "fleiss_kappa_se": _("Fleiss' κ SE"),
    "kind": _("Kind"), "n_cases": _("Cases"), "n_decisions": _("Decisions"), "n_rater_pairs": _("Rater pairs"),
    "macro_f1_pooled": _("Macro-F1 (pooled)"), "f1_met": _("F1 (met)"), "f1_not_met": _("F1 (not met)"),
    "calibration_model": _("Physician-written responses"), "median_hits": _("Median hits"),
    "hit_rate": _("Hit rate"), "n_hits": _("Hits"), "responses": _("Responses"), "hits": _("Hits"),
    "wins": _("Wins"), "draws": _("Draws"), "losses": _("Losses"), "n_pairs": _("Pairs"), "n_flips": _("Flips"),
    "first": _("First"), "second": _("Second"), "spearman_p": _("Spearman p"), "kendall_p": _("Kendall p"),
    "p_value": "p", "q1": "Q1", "q3": "Q3", "average": _("Average"), "n_cases_undefined": _("Cases undefined"),
    "case_mf1_median": _("Median case Macro-F1"), "case_mf1_q1": _("Case Macro-F1 Q1"),
    "case_mf1_q3": _("Case Macro-F1 Q3"), "positive_rate_a": _("Positive rate, group A"),
    "positive_rate_b": _("Positive rate, group B"), "macro_f1_group_a": _("Macro-F1 vs group A"),
    "macro_f1_group_b": _("Macro-F1 vs group B"), "tp": "TP", "fp": "FP", "fn": "FN", "tn": "TN",
    "n_items": _("Items"), "n_pairs_rated": _("Pairs rated"), "pearson": _("Pearson r"),
    "ci_low": _("95% CI, lower bound"), "ci_high": _("95% CI, upper bound"), "mean_abs_diff": _("Mean abs. difference"),
    "model_a": _("Model A"), "model_b": _("Model B"), "score": _("Score"), "tie": _("Tie"),
    "top3_of": _("Top-3 compared"), "top5_of": _("Top-5 compared"), "mf1": "Macro-F1",
}

#: Columns named after another one: "ac1_ci_low" reads "Gwet's AC1, 95% CI lower bound".
SUFFIX_HEADERS: tuple[tuple[str, Any], ...] = (
    ("_ci_low", _("%(name)s, 95%% CI lower bound")), ("_ci_high", _("%(name)s, 95%% CI upper bound")),
    ("_se", _("%(name)s SE")), ("_p", _("%(name)s p")),
)

_WORDS = {"ac1": "AC1", "ac2": "AC2", "ci": "CI", "se": "SE", "mf1": "MF1", "pp": "(pp)", "n": "n", "p": "p",
          "f1": "F1", "id": "ID"}

def header(column: str) -> str:
    """A readable header for a column name ("ac1 ci low" never reaches a reader)."""
    column = str(column)
    if column in HEADERS:
        return str(HEADERS[column])
    if column.startswith("approval "):
        return gettext("Approval %(rater)s") % {"rater": column.removeprefix("approval ")}
    for suffix, words in SUFFIX_HEADERS:
        base = column.removesuffix(suffix)
        if base != column and base in HEADERS:
            return str(words) % {"name": HEADERS[base]}
    if column.startswith("share_cases_below_"):
        return gettext("Share of cases below %(threshold)s") % {"threshold": column.removeprefix("share_cases_below_")}
    words = [w for w in column.split("_") if w]
    if words and words[0] == "n" and len(words) > 1:
        return "n (" + " ".join(_WORDS.get(w, w) for w in words[1:]) + ")"
    text = " ".join(_WORDS.get(w, w) for w in words)
    return text[:1].upper() + text[1:]


def is_interface_header(column: str) -> bool:
    """Whether a column's header is interface text (else it is a name: a grader's, a model's)."""
    column = str(column)
    return column in HEADERS or column.startswith(("approval ", "share_cases_below_", "n_")) or "_" in column


def _finite(value: Any) -> float | None:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def format_p(value: Any) -> str:
    """p as a reader expects: 3 significant digits, "< 0.001" below that (never 0.00e+00)."""
    v = _finite(value)
    if v is None:
        return "—"
    if v < 0.001:
        return "< 0.001"
    return f"{v:.3f}"


def format_value(column: str, value: Any) -> str:
    if value is None or value is pd.NA:
        return "—"
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if not math.isfinite(value):
            return "—"
        if column.startswith(("n_", "top")) or column in ("n", "wins", "draws", "losses", "tau", "unknown_labels"):
            return f"{int(value)}"
        if column.endswith("_p") or column in ("p_value", "p"):
            return format_p(value)
        if column.endswith("_pp"):
            return f"{value:.2f}"
        if column in ("rating", "ci_low", "ci_high") and abs(value) >= 100:
            return f"{value:.0f}"
        return f"{value:.3f}"
    return str(value)


@dataclass(frozen=True)
class _Group:
    value: str
    low: str
    high: str
    p: str | None


def _groups(columns: list[str]) -> list[_Group]:
    """Value columns with a CI (and maybe a p) to show in one cell: x, x_ci_low, x_ci_high, x_p."""
    found = []
    cols = set(columns)
    for c in columns:
        # "x" with x_ci_low / x_ci_high / x_p, or "pearson_r" with pearson_ci_low / ... / pearson_p.
        stem = next((s for s in (c, c.removesuffix("_r")) if f"{s}_ci_low" in cols and f"{s}_ci_high" in cols), None)
        if stem is not None:
            found.append(_Group(c, f"{stem}_ci_low", f"{stem}_ci_high", f"{stem}_p" if f"{stem}_p" in cols else None))
    # Tables with one unnamed CI (ci_low / ci_high) attach it to the value column named before it.
    if "ci_low" in cols and "ci_high" in cols:
        idx = columns.index("ci_low")
        value = next((c for c in reversed(columns[:idx]) if c not in ("n", "reason")), None)
        if value is not None:
            p = "p_value" if "p_value" in cols else None
            found.append(_Group(value, "ci_low", "ci_high", p))
    return found


_DROP_FOR_COMPACT = re.compile(r"_se$")
#: Columns that mean nothing for some scales (approval on Likert, positive rate on 0-2): hidden when empty.
_HIDDEN_WHEN_EMPTY = ("approval_rate", "positive_rate")




#: Columns whose text cells are names people or files gave (raters, graders, models, strata): shown
#: in their own language, unless the report code wrote them (`CELL_WORDS`).
NAME_COLUMNS = frozenset({
    "rater", "grader", "evaluator", "judge", "source", "scorer", "scorer_a", "scorer_b", "grader_a", "grader_b",
    "model", "opponent", "first", "second", "stratum", "axis", "calibration_model", "scope", "metric",
})


@dataclass(frozen=True)
class Cell:
    """What a reader sees in one table cell, and its language when it is a name ("" = the page's).
    A header about one rater ("Approval Rater-01") keeps the rater's pseudonym apart in `name`."""

    text: str
    lang: str = ""
    name: str = ""
    name_lang: str = ""

    def __str__(self) -> str:
        return f"{self.text} {self.name}" if self.name else self.text


def _compact_cell(column: str, record: dict[str, Any], g: _Group | None) -> Cell:
    value = record[column]
    text = format_value(column, value)
    if isinstance(value, str):
        shown = cell_words(text)
        if shown is not None:
            return Cell(shown)
        return Cell(text, script_language(text) if column in NAME_COLUMNS else "")
    if g is None or text == "—":
        return Cell(text)
    lo, hi = _finite(record[g.low]), _finite(record[g.high])
    if lo is not None and hi is not None:
        text += f" [{format_value(g.low, lo)}, {format_value(g.high, hi)}]"
    if g.p is not None and _finite(record[g.p]) is not None:
        p = format_p(record[g.p])
        text += f", p {p}" if p.startswith("<") else f", p = {p}"
    return Cell(text)


def numbered(items: Iterable[T]) -> list[tuple[int, T]]:
    """Tables (or figures) with the number the page and the PDF both print: position from 1."""
    return list(enumerate(items, start=1))


def _hidden(columns: list[str], groups: list[_Group]) -> set[str]:
    """Columns folded into another one's cell (CI, p, SE) or said by another (the task's slug)."""
    folded = {g.value for g in groups}
    hidden = {c for g in groups for c in (g.low, g.high, g.p) if c}
    hidden |= {c for c in columns if _DROP_FOR_COMPACT.search(c) and c.removesuffix("_se") in folded}
    if "task_name" in columns:
        hidden.add("task")  # the task's name says it; the slug stays in the exports
    return hidden


def _header_cell(column: str, group: _Group | None) -> Cell:
    if not is_interface_header(column):  # a scorer's or model's name as a column (model scores)
        shown = cell_words(column)
        return Cell(shown, "") if shown else Cell(column, script_language(column))
    if column.startswith("approval "):  # LiveMedBench Table 1: one approval column per rater
        rater = column.removeprefix("approval ")
        return Cell(gettext("Approval"), name=rater, name_lang=script_language(rater))
    text = header(column)
    if group is not None:
        text += gettext(" [95% CI]") + (", p" if group.p else "")
    return Cell(text)


def compact_cells(frame: pd.DataFrame) -> tuple[list[Cell], list[list[Cell]], list[str]]:
    """(headers, rows, raw column names shown) with each value's CI and p folded into its cell.

    "0.912 [0.881, 0.943], p < 0.001": the SE columns are left to the exports (the CI carries it).
    Headers and the words the report code wrote are in the interface language; names keep theirs.
    """
    columns = [str(c) for c in frame.columns]
    groups = _groups(columns)
    folded = {g.value: g for g in groups}
    hidden = _hidden(columns, groups)
    hidden |= {c for c in _HIDDEN_WHEN_EMPTY if c in columns and frame[c].isna().all()}
    shown = [c for c in columns if c not in hidden]
    records = frame.astype(object).to_dict("records")
    rows = [[_compact_cell(c, record, folded.get(c)) for c in shown] for record in records]
    return [_header_cell(c, folded.get(c)) for c in shown], rows, shown


def compact(frame: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """`compact_cells` as plain text (the PDF)."""
    heads, rows, shown = compact_cells(frame)
    return [str(h) for h in heads], [[str(c) for c in row] for row in rows], shown
