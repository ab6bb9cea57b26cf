"""Data quality per task (LiveMedBench Table 1), approval per rater and each rater against the others."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement import metrics
from agreement.reports.base import (
    PAPER_LAYOUT_MAX_RATERS,
    LabelData,
    Table,
    _rows,
    ranks_in_groups,
    task_codes,
)
from agreement.reports.tables.per_rater import _per_rater_rows
from agreement.selectors import (
    TaskScale,
)


def _subjects_and_slots(
    item: np.ndarray, field_key: np.ndarray | pd.Categorical
) -> tuple[np.ndarray, np.ndarray]:
    """Number the (item, field) subjects in order of first appearance, and each rating's slot in its subject.

    Slots count a subject's ratings in row order (0, 1, ...), like pandas' groupby ngroup / cumcount
    but from two factorizations and one stable sort, a fraction of the cost at 165,000 ratings.
    """
    if item.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if isinstance(field_key, pd.Categorical):  # rating_frame's field keys: already coded
        field_codes, field_values = np.asarray(field_key.codes, dtype=np.int64), field_key.categories
    else:
        field_codes, field_values = pd.factorize(field_key, sort=False, use_na_sentinel=False)
    item_codes = pd.factorize(item, sort=False)[0]  # hashed, not sorted: only the (item, field) key needs it
    key = item_codes.astype(np.int64) * max(len(field_values), 1) + field_codes
    subject, _keys = pd.factorize(key, sort=False)
    subject = np.asarray(subject, dtype=np.int64)
    order, rank = ranks_in_groups(subject)
    slot = np.empty_like(subject)
    slot[order] = rank
    return subject, slot


def _coded_task_matrix(
    sub: pd.DataFrame, scale: TaskScale | None
) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, int]:
    """A task's ratings as a compact subjects x slots matrix.

    Returns (codes, rater column, categories, rater ids, unknown-label count): slot j of subject i
    holds one rating (`codes`, -1 = empty) and which rater gave it (`rater column`, -1 = empty).
    AC1, Fleiss' kappa and percent agreement depend only on how many raters chose each category
    per subject, so the compact matrix gives the same values as subjects x raters while staying
    as narrow as the most-rated subject (2 columns rather than 20 raters at ClinConsensus scale).
    """
    cats = list(scale.categories) if scale and scale.categories else sorted(sub["label"].unique())
    index = {c: i for i, c in enumerate(cats)}
    labels = sub["label"]
    if isinstance(labels.dtype, pd.CategoricalDtype):
        # rating_frame's labels are categorical: look up the few categories, not a string per rating.
        per_category = pd.Index(list(index)).get_indexer(labels.cat.categories.astype(object))
        position = np.append(per_category, -1)[labels.cat.codes.to_numpy()]  # code -1 (no label): the -1 added
    else:
        position = pd.Index(list(index)).get_indexer(labels.to_numpy(dtype=object))
    codes = np.where(position >= 0, np.asarray(list(index.values()), dtype=np.int64)[position], -1)
    unknown = int((codes < 0).sum())
    field_key = sub["field"]
    subject, slot = _subjects_and_slots(
        sub["item"].to_numpy(dtype=np.int64),
        field_key.array if isinstance(field_key.dtype, pd.CategoricalDtype) else field_key.to_numpy(dtype=object),
    )
    rater_codes, rater_ids = pd.factorize(sub["rater"].to_numpy(), sort=True)
    n = int(subject.max()) + 1 if subject.size else 0
    width = int(slot.max()) + 1 if slot.size else 0
    matrix = np.full((n, width), -1, dtype=np.int64)
    column = np.full((n, width), -1, dtype=np.int64)
    matrix[subject, slot] = codes
    column[subject, slot] = rater_codes
    return matrix, column, cats, np.asarray(rater_ids, dtype=np.int64), unknown


def _result_cells(prefix: str, res: metrics.AgreementResult) -> dict[str, Any]:
    return {
        prefix: res.value,
        f"{prefix}_se": res.se,
        f"{prefix}_ci_low": res.ci[0] if res.ci else None,
        f"{prefix}_ci_high": res.ci[1] if res.ci else None,
        f"{prefix}_p": res.p_value,
    }


def _task_order(data: LabelData) -> list[str]:
    """Tasks in their configured order (LiveMedBench Table 1: narrative, advice, criteria)."""
    present = list(task_codes(data)[1]) if len(data.ratings) else []
    return sorted(present, key=lambda slug: (data.scales[slug].order if slug in data.scales else 1 << 30, slug))


#: A met / not met scale reports the share of "met" as a positive rate (ClinConsensus, HealthBench),
#: not as an approval: "met" on a penalty criterion means the response made the error.
MET_NOT_MET = frozenset({"met", "not_met"})


def positive_category(scale: TaskScale | None) -> str | None:
    """The category whose share is the task's positive rate ("met"), or None for other scales."""
    return "met" if scale is not None and set(scale.categories) == MET_NOT_MET else None


def _rate_rows(kind: str, slug: str, task_name: str, sub: pd.DataFrame, hits: pd.Series,
               data: LabelData) -> list[dict[str, Any]]:
    by_rater = hits.groupby(sub["rater"]).agg(["mean", "size"])
    return [{"task": slug, "task_name": task_name, "rater": data.pseudonym(rater_id), "n_labels": int(rec["size"]),
             kind: float(rec["mean"])} for rater_id, rec in by_rater.iterrows()]


def _task_row(slug: str, task_name: str, cats: list[str], scale: TaskScale | None, sub: pd.DataFrame,
              matrix: np.ndarray, rater_ids: np.ndarray, unknown: int,
              approves: pd.Series | None, positives: pd.Series | None) -> dict[str, Any]:
    """One task's row of the data-quality table: counts, rates, percent agreement, AC1, Fleiss' kappa."""
    q = list(range(len(cats)))
    ac1 = metrics.gwet_ac1(matrix, q)
    fleiss = metrics.fleiss_kappa(matrix, q)
    return {
        "task": slug,
        "task_name": task_name,
        "categories": " / ".join(scale.labels if scale and len(scale.labels) == len(cats) else cats),
        "n_subjects": ac1.n_subjects,
        "n_paired": ac1.n_paired,
        "n_raters": int(rater_ids.size),
        "n_ratings": int(len(sub)),
        "approval_rate": float(approves.mean()) if approves is not None and len(sub) else None,
        "positive_rate": float(positives.mean()) if positives is not None and len(sub) else None,
        "percent_agreement": metrics.percent_agreement(matrix, q).value,
        **_result_cells("ac1", ac1),
        "fleiss_kappa": fleiss.value,
        "fleiss_kappa_se": fleiss.se,
        "unknown_labels": unknown,
        "reason": ac1.reason or "",
    }


def _hits(scale: TaskScale | None, sub: pd.DataFrame) -> tuple[pd.Series | None, pd.Series | None]:
    """(approving labels, positive labels) of a task's ratings: a met / not met scale has a positive
    rate and no approval; other scales approve with their approving categories, if any."""
    positive = positive_category(scale)
    approving = scale.approving if scale and positive is None else frozenset()
    approves = sub["label"].isin(approving) if approving else None
    positives = (sub["label"] == positive) if positive else None
    return approves, positives


def data_quality_tables(data: LabelData) -> list[Table]:
    rows: list[dict[str, Any]] = []
    approval_rows: list[dict[str, Any]] = []
    positive_rows: list[dict[str, Any]] = []
    per_rater_rows: list[dict[str, Any]] = []
    for slug in _task_order(data):
        codes, tasks = task_codes(data)
        sub = _rows(data.ratings, codes == tasks.get_loc(slug))
        scale = data.scales.get(slug)
        task_name = scale.name if scale else slug
        matrix, column, cats, rater_ids, unknown = _coded_task_matrix(sub, scale)
        approves, positives = _hits(scale, sub)
        rows.append(_task_row(slug, task_name, cats, scale, sub, matrix, rater_ids, unknown, approves, positives))
        if approves is not None:
            approval_rows.extend(_rate_rows("approval_rate", slug, task_name, sub, approves, data))
        if positives is not None:
            positive_rows.extend(_rate_rows("positive_rate", slug, task_name, sub, positives, data))
        per_rater_rows.extend({**row, "task_name": task_name}
                              for row in _per_rater_rows(data, slug, matrix, column, cats, rater_ids))
    dq = pd.DataFrame(rows, columns=[
        "task", "task_name", "categories", "n_subjects", "n_paired", "n_raters", "n_ratings", "approval_rate",
        "positive_rate", "percent_agreement", "ac1", "ac1_se", "ac1_ci_low", "ac1_ci_high", "ac1_p", "fleiss_kappa",
        "fleiss_kappa_se", "unknown_labels", "reason",
    ])
    tables = []
    approvals = pd.DataFrame(approval_rows, columns=["task", "task_name", "rater", "n_labels", "approval_rate"])
    if len(approvals) and approvals["rater"].nunique() <= PAPER_LAYOUT_MAX_RATERS:
        # The paper's layout: one approval column per rater, AC1 last.
        wide = approvals.pivot(index="task", columns="rater", values="approval_rate")
        wide.columns = [f"approval {c}" for c in wide.columns]
        paper = dq[["task", "task_name"]].merge(wide, left_on="task", right_index=True, how="left")
        paper["ac1"] = dq["ac1"].to_numpy()
        paper = paper[paper["task"].isin(approvals["task"].unique())]  # no approval, no Table 1 row
        tables.append(Table("table1", _("Physician assessment of data quality (LiveMedBench Table 1 layout)"),
                            paper.drop(columns=["task"]), _("Approval rate of each rater (a score ≥ 1 approves on "
                                                            "the 0-2 scales, as in the paper), then Gwet's AC1.")))
    return tables + [
        Table("data_quality", _("Data quality: agreement per task (LiveMedBench Table 1)"), dq,
              _("AC1 and Fleiss' kappa on the same first-round ratings, over the subjects with two or more "
                "ratings.")),
        *([Table("approval", _("Approval rate per rater"), approvals,
                 _("Approval = a label in the scale's approving categories; on the 0-2 scales a score ≥ 1 "
                   "(LiveMedBench). Scales without approving categories (Likert, pairwise) are not listed."))]
          if len(approvals) else []),
        *([Table("positive_rate", _("Positive rate per rater (met / not met)"), pd.DataFrame(
            positive_rows, columns=["task", "task_name", "rater", "n_labels", "positive_rate"]),
            _("Positive rate = the share of the rater's labels that are “met” (for a penalty criterion, “met” "
              "means the response made the error); not an approval."))] if positive_rows else []),
        Table("per_rater", _("Each rater against the others"), pd.DataFrame(per_rater_rows, columns=[
            "task", "task_name", "rater", "n_labels", "n_shared", "agreement_with_others", "ac1_vs_others_majority",
            "macro_f1_vs_others_majority", "ac1_without_rater",
        ]), _("Agreement with others = share of agreeing label pairs that involve the rater; the others' majority "
              "drops ties; “AC1 without this rater” is the task's AC1 when this rater is left out (an outlier "
              "raises it).")),
    ]
