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

T = TypeVar("T")

#: Exact headers; anything else goes through `header()`'s word rules.
HEADERS: dict[str, str] = {
    "task_name": "Task", "task": "Task", "n_subjects": "Subjects", "n_paired": "Subjects with ≥ 2 ratings",
    "n_raters": "Raters", "n_ratings": "Ratings", "approval_rate": "Approval rate",
    "percent_agreement": "Percent agreement", "ac1": "Gwet's AC1", "ac2": "Gwet's AC2 (quadratic)",
    "fleiss_kappa": "Fleiss' κ", "unknown_labels": "Unknown labels", "reason": "Note",
    "macro_f1": "Macro-F1", "pearson_r": "Pearson r", "spearman": "Spearman ρ", "kendall": "Kendall τ-b",
    "n_models": "Models", "mean_abs_diff_pp": "Mean abs. difference (pp)", "top3_overlap": "Top-3 overlap",
    "top5_overlap": "Top-5 overlap", "evaluator": "Evaluator", "grader": "Grader", "rater": "Rater",
    "n_labels": "Labels", "n_shared": "Shared subjects", "agreement_with_others": "Agreement with others",
    "ac1_vs_others_majority": "AC1 vs others' majority", "macro_f1_vs_others_majority": "Macro-F1 vs others' majority",
    "ac1_without_rater": "AC1 without this rater", "n_invalid": "Invalid", "n_failed": "Failed",
    "positive_rate": "Positive rate", "difference": "Judge − clinician", "mean_judge": "Mean judge score",
    "mean_clinician": "Mean clinician score", "judge": "Judge", "axis": "Axis", "n": "n",
    "rating": "Rating (Elo scale)", "win_rate": "Win rate", "score_rate": "Score rate", "source": "Source",
    "first_shown_win_share": "First-shown win share", "flip_rate": "Flip rate", "n_both_orders": "Pairs in both orders",
    "n_decided": "Decided verdicts", "n_verdicts": "Verdicts", "rubric_accuracy": "Rubric Accuracy",
    "pass_rate": "Pass@τ", "cacs": "CACS@τ", "tau": "τ", "n_short": "Responses with < τ criteria",
    "mean_hits": "Mean hits", "scorer": "Scorer", "scorer_a": "Scorer A", "scorer_b": "Scorer B",
    "grader_a": "Grader A", "grader_b": "Grader B", "metric": "Metric", "top3": "Top-3 kept",
    "top5": "Top-5 kept", "n_responses": "Responses", "n_matches": "Matches", "opponent": "Opponent",
    "model": "Model", "stratum": "Stratum", "scope": "Scope", "categories": "Categories",
    "n_scores": "Scores", "n_valid": "Valid scores", "mean_raw": "Mean raw score", "mean_normalized": "Mean normalised",
    "fleiss_kappa_se": "Fleiss' κ SE", "kind": "Kind", "n_cases": "Cases", "n_decisions": "Decisions",
    "n_rater_pairs": "Rater pairs", "macro_f1_pooled": "Macro-F1 (pooled)", "f1_met": "F1 (met)",
    "f1_not_met": "F1 (not met)", "calibration_model": "Physician-written responses", "median_hits": "Median hits",
    "hit_rate": "Hit rate", "n_hits": "Hits", "responses": "Responses", "hits": "Hits",
}

_WORDS = {"ac1": "AC1", "ac2": "AC2", "ci": "CI", "se": "SE", "mf1": "MF1", "pp": "(pp)", "n": "n", "p": "p",
          "f1": "F1", "id": "ID"}


def header(column: str) -> str:
    """A readable header for a column name ("ac1 ci low" never reaches a reader)."""
    column = str(column)
    if column in HEADERS:
        return HEADERS[column]
    if column.startswith("approval "):
        return "Approval " + column.removeprefix("approval ")
    words = [w for w in column.split("_") if w]
    if words and words[0] == "n" and len(words) > 1:
        return "Number of " + " ".join(_WORDS.get(w, w) for w in words[1:])
    text = " ".join(_WORDS.get(w, w) for w in words)
    return text[:1].upper() + text[1:]


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


def _compact_cell(column: str, record: dict[str, Any], g: _Group | None) -> str:
    text = format_value(column, record[column])
    if g is None or text == "—":
        return text
    lo, hi = _finite(record[g.low]), _finite(record[g.high])
    if lo is not None and hi is not None:
        text += f" [{format_value(g.low, lo)}, {format_value(g.high, hi)}]"
    if g.p is not None and _finite(record[g.p]) is not None:
        p = format_p(record[g.p])
        text += f", p {p}" if p.startswith("<") else f", p = {p}"
    return text


def numbered(items: Iterable[T]) -> list[tuple[int, T]]:
    """Tables (or figures) with the number the page and the PDF both print: position from 1."""
    return list(enumerate(items, start=1))


def compact(frame: pd.DataFrame) -> tuple[list[str], list[list[str]], list[str]]:
    """(headers, rows of text, raw column names shown) with each value's CI and p folded into its cell.

    "0.912 [0.881, 0.943], p < 0.001": the SE columns are left to the exports (the CI carries it).
    """
    columns = [str(c) for c in frame.columns]
    groups = _groups(columns)
    folded = {g.value: g for g in groups}
    hidden = {c for g in groups for c in (g.low, g.high, g.p) if c}
    hidden |= {c for c in columns if _DROP_FOR_COMPACT.search(c) and c.removesuffix("_se") in folded}
    if "task_name" in columns:
        hidden.add("task")  # the task's name says it; the slug stays in the exports
    hidden |= {c for c in _HIDDEN_WHEN_EMPTY if c in columns and frame[c].isna().all()}
    shown = [c for c in columns if c not in hidden]
    records = frame.astype(object).to_dict("records")
    rows = [[_compact_cell(c, record, folded.get(c)) for c in shown] for record in records]
    heads = []
    for c in shown:
        h = header(c)
        g = folded.get(c)
        if g is not None:
            h += " [95% CI]" + (", p" if g.p else "")
        heads.append(h)
    return heads, rows, shown
