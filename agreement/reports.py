"""Agreement reports built from the database: LiveMedBench Tables 1-2, ClinConsensus 6.1, Table 15.

`build_report(selection)` reads the selection's labels with a fixed number of queries (see
`agreement.selectors`), turns them into integer-coded numpy arrays (pandas factorize, no Python
loop over labels) and calls the pure functions of `agreement.metrics`. Every table is a pandas
DataFrame inside a `Table`; pages, exports, the CLI and the API all render the same `Report`.

Labels used: first-round ratings only (`Rating.round == 1`, the independent labels given before
any inspection). Later rounds and final labels never enter a statistic; the report counts them.
Raters appear only under `Profile.pseudonym`.
"""

from __future__ import annotations

import datetime as dt
import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from agreement import metrics
from agreement.selectors import (
    REVISION_STRATA,
    STRATA,
    CriterionCache,
    RaterInfo,
    RunInfo,
    Selection,
    TaskScale,
    decision_frame,
    grader_runs,
    judge_frame,
    later_round_count,
    pairwise_frame,
    rater_ids_for_pseudonyms,
    raters,
    rating_frame,
    revision_strata,
    task_scales,
)
from cases.models import GraderKind

#: Tasks whose labels are met / not met per (response, criterion): compared with grader decisions.
RELIABILITY_TARGET = "response_criterion"
RELIABILITY_SLUG = "grader-reliability"
PAPER_LAYOUT_MAX_RATERS = 6
CONSENSUS = "Physician consensus"
LOW_CASE_MF1 = 0.6
SENIOR_RANKS = ("associate_chief", "chief")

LABELS_USED = (
    "First-round ratings only (round 1: each physician's independent label, given before any "
    "inspection). Labels changed after inspection (later rounds) and final labels are not used."
)

CONVENTIONS: dict[str, str] = {
    "labels": LABELS_USED,
    "ac1": "Gwet's AC1 (Gwet 2008, irrCAC): chance agreement from the scale's declared categories; "
    "SE without finite-population correction; CI = value +- t(0.975, n-1) x SE, upper bound capped at 1; "
    "p one-sided (H0: AC1 <= 0).",
    "fleiss_kappa": "Fleiss' kappa on the same ratings, shown beside AC1 (kappa paradox).",
    "percent_agreement": "Mean over subjects with >= 2 ratings of the share of agreeing rater pairs.",
    "approval_rate": "Share of a rater's labels in the scale's approving categories (ScaleCategory.approves).",
    "macro_f1": "Mean of F1(met) and F1(not met) pooled over criterion decisions (HealthBench). "
    "Invalid or failed grader outputs count as wrong (ClinConsensus); undefined values are empty, never 0.",
    "grader_macro_f1": "Mean of the grader's Macro-F1 against each physician (LiveMedBench eq. 9), "
    "on the (response, criterion) pairs the physicians rated and the grader decided.",
    "human_macro_f1": "Macro-F1 between two physicians on the pairs both rated; 'pairwise mean' averages "
    "over rater pairs, 'pooled' adds all pairs' confusion counts.",
    "case_score": "clip(sum of points of met criteria / sum of positive points, 0, 1) per response "
    "(LiveMedBench eq. 1), over the criteria the physicians rated; invalid grader outputs count as not met.",
    "consensus_score": "Mean of the physicians' case scores for a response (LiveMedBench eq. 10).",
    "pearson": "Pearson r between a grader's case score (rubric grader) or normalised judge score "
    "(LLM-as-judge) and the consensus score; Fisher-z CI, two-sided p.",
    "expert_groups": "A group's label on a decision is the majority of its raters' labels (ties dropped); "
    "Macro-F1 with group A as reference; case-level Macro-F1 per response, cases where it is undefined "
    "are counted apart.",
    "ranking": "Model score = mean case score of the model's responses for each grader; Spearman, Kendall "
    "tau-b, top-k overlap and mean absolute difference (percentage points) between two graders.",
    "position_bias": "Pairs a pairwise judge saw in both orders; a flip is a different verdict "
    "(verdicts are stored in terms of response A/B whatever the order shown).",
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
    labels_used: str = LABELS_USED
    conventions: dict[str, str] = field(default_factory=lambda: dict(CONVENTIONS))
    #: Arrays the charts draw (confusion counts, scatter points); not exported.
    chart_data: dict[str, Any] = field(default_factory=dict)

    def table(self, key: str) -> Table | None:
        return next((t for t in self.tables if t.key == key), None)


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def load_labels(selection: Selection) -> LabelData:
    criteria = CriterionCache()
    ratings = rating_frame(selection, criteria=criteria)
    decisions = decision_frame(selection, criteria=criteria)
    judges = judge_frame(selection)
    pairwise = pairwise_frame(selection)
    run_ids = set(decisions["run"].unique()) | set(judges["run"].unique()) | set(pairwise["run"].unique())
    info = grader_runs(run_ids)
    labels = {rid: (f"{i.name} (#{rid})", i.kind) for rid, i in info.items()}
    decisions = _merge_runs(decisions, info, labels, ("response", "criterion"))
    judges = _merge_runs(judges, info, labels, ("response",))
    return LabelData(
        ratings=ratings,
        decisions=decisions,
        judges=judges,
        pairwise=pairwise,
        scales=task_scales(ratings["task"].unique()),
        raters=raters(ratings["rater"].unique()),
        runs=labels,
        later_rounds=later_round_count(selection),
    )


def _merge_runs(
    frame: pd.DataFrame, info: dict[int, RunInfo], labels: dict[int, tuple[str, str]], unit: tuple[str, ...]
) -> pd.DataFrame:
    """Treat runs of one grader (same kind, grader model and prompt) on disjoint responses as one grader.

    LiveMedBench grader results arrive as one file, hence one run, per answering model; Table 2
    reports the grader over all of them. Runs that decided the same (response, criterion) twice
    are different gradings and stay apart. Merged runs report under their lowest run id.
    """
    if frame.empty:
        return frame
    groups: dict[tuple[str, str, str], list[int]] = {}
    for rid in sorted(int(r) for r in frame["run"].unique()):
        i = info.get(rid)
        if i is not None:
            groups.setdefault((i.kind, i.grader_model, i.prompt_version), []).append(rid)
    mapping: dict[int, int] = {}
    for (kind, model, version), ids in groups.items():
        if len(ids) < 2:
            continue
        if frame[frame["run"].isin(ids)].duplicated(list(unit)).any():
            continue
        for rid in ids:
            mapping[rid] = ids[0]
        kind_name = dict(GraderKind.choices).get(kind, kind).split(" (")[0]
        label = f"{model} {kind_name.lower()}{f' {version}' if version else ''} (runs #{', #'.join(map(str, ids))})"
        labels[ids[0]] = (label, kind)
    if not mapping:
        return frame
    frame = frame.copy()
    frame["run"] = frame["run"].map(lambda r: mapping.get(int(r), int(r)))
    return frame


# ---------------------------------------------------------------------------
# Small vectorised helpers
# ---------------------------------------------------------------------------


def _none(x: Any) -> Any:
    """numpy scalars and NaN -> plain Python / None, for tables and JSON."""
    if x is None:
        return None
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and np.isnan(x):
        return None
    return x


def _nanmean_rows(matrix: np.ndarray) -> np.ndarray:
    ok = ~np.isnan(matrix)
    count = ok.sum(axis=1)
    total = np.where(ok, matrix, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.where(count > 0, count, 1), np.nan)


_BINARY = {"met": 1.0, "not_met": 0.0}


@dataclass
class HumanMatrix:
    """Physicians' met / not met labels in long form: one row per rating, coded against pairs.

    A pair is one (response, criterion). Nothing is stored as pairs x raters: at ClinConsensus
    scale that matrix is 82,500 x 20 with two labels per row, and every statistic here only needs
    the rows (per rater) or the two or three labels of a pair (rater pairs, group majorities).
    """

    keys: np.ndarray  # int64 response << 32 | criterion, one per pair
    rater_ids: np.ndarray
    response: np.ndarray
    criterion: np.ndarray
    points: np.ndarray
    model: np.ndarray
    revision: np.ndarray
    response_code: np.ndarray  # pair -> index into `responses`
    responses: np.ndarray  # response ids
    response_model: np.ndarray
    rows_pair: np.ndarray  # per rating row: pair index
    rows_rater: np.ndarray  # per rating row: rater column
    rows_met: np.ndarray  # per rating row: 1 / 0 / NaN

    @property
    def n_pairs(self) -> int:
        return int(self.keys.size)

    def rows_by_rater(self) -> list[np.ndarray]:
        """Row indices of each rater's labelled rows (labels other than met / not met left out)."""
        labelled = np.flatnonzero(~np.isnan(self.rows_met))
        order = labelled[np.argsort(self.rows_rater[labelled], kind="stable")]
        bounds = np.searchsorted(self.rows_rater[order], np.arange(self.rater_ids.size + 1))
        return [order[bounds[k]:bounds[k + 1]] for k in range(self.rater_ids.size)]

    def slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(rater column, label) as pairs x slots matrices (-1 / NaN where empty), slots <= raters per pair."""
        labelled = np.flatnonzero(~np.isnan(self.rows_met))
        order = labelled[np.argsort(self.rows_pair[labelled], kind="stable")]
        pair = self.rows_pair[order]
        if pair.size == 0:
            return np.zeros((self.n_pairs, 0), np.int64), np.zeros((self.n_pairs, 0))
        starts = np.searchsorted(pair, pair, side="left")
        slot = np.arange(pair.size) - starts
        width = int(slot.max()) + 1
        rater = np.full((self.n_pairs, width), -1, dtype=np.int64)
        label = np.full((self.n_pairs, width), np.nan)
        rater[pair, slot] = self.rows_rater[order]
        label[pair, slot] = self.rows_met[order]
        return rater, label

    def consensus_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """(per-rater case scores responses x raters, consensus score per response)."""
        n_resp, n_rat = self.responses.size, self.rater_ids.size
        if n_resp == 0 or n_rat == 0:
            return np.zeros((n_resp, n_rat)), np.full(n_resp, np.nan)
        index = self.response_code[self.rows_pair] * n_rat + self.rows_rater
        per = metrics.case_scores(
            index.astype(np.int64), self.points[self.rows_pair], self.rows_met, n_cases=n_resp * n_rat
        ).reshape(n_resp, n_rat)
        return per, _nanmean_rows(per)


def _pair_keys(response: np.ndarray, criterion: np.ndarray) -> np.ndarray:
    return (response.astype(np.int64) << 32) | criterion.astype(np.int64)


def reliability_ratings(data: LabelData) -> pd.DataFrame:
    """The ratings that compare with grader decisions: met / not met on a (response, criterion)."""
    r = data.ratings
    if r.empty:
        return r
    slugs = {s for s, t in data.scales.items() if t.target == RELIABILITY_TARGET} | {RELIABILITY_SLUG}
    codes, tasks = task_codes(data)
    wanted = np.flatnonzero(np.isin(np.asarray(tasks, dtype=object), sorted(slugs)))
    return _rows(r, np.isin(codes, wanted) & r["criterion"].notna().to_numpy() & r["response"].notna().to_numpy())


def _rows(frame: pd.DataFrame, mask: np.ndarray) -> pd.DataFrame:
    """frame[mask], without copying 165,000 rows when the mask keeps them all (the usual single-task study)."""
    return frame if mask.all() else frame[mask]


def task_codes(data: LabelData) -> tuple[np.ndarray, pd.Index]:
    """Each rating's task as an integer code into the task slugs (factorized once per LabelData)."""
    if "task_codes" not in data.memo:
        codes, tasks = pd.factorize(data.ratings["task"].to_numpy(dtype=object))
        data.memo["task_codes"] = (np.asarray(codes), pd.Index(tasks))
    return data.memo["task_codes"]


def human_matrix(data: LabelData) -> HumanMatrix:
    if "human" not in data.memo:
        data.memo["human"] = _human_matrix(data)
    return data.memo["human"]


def _human_matrix(data: LabelData) -> HumanMatrix:
    r = reliability_ratings(data)
    response = r["response"].to_numpy(dtype=np.int64) if len(r) else np.zeros(0, np.int64)
    criterion = r["criterion"].to_numpy(dtype=np.int64) if len(r) else np.zeros(0, np.int64)
    keys = _pair_keys(response, criterion)
    pair_codes, uniq = pd.factorize(keys, sort=True)
    rater_codes, rater_ids = pd.factorize(r["rater"].to_numpy() if len(r) else np.zeros(0, np.int64), sort=True)
    met = r["label"].map(_BINARY).to_numpy(dtype=float) if len(r) else np.zeros(0)
    n = uniq.size
    points = np.zeros(n)
    model = np.empty(n, dtype=object)
    revision = np.zeros(n, dtype=np.int64)
    if len(r):
        points[pair_codes] = r["points"].to_numpy(dtype=float)
        model[pair_codes] = r["model"].to_numpy(dtype=object)
        revision[pair_codes] = r["revision"].to_numpy(dtype=np.int64)
    pair_response = (np.asarray(uniq, dtype=np.int64) >> 32) if n else np.zeros(0, np.int64)
    response_code, responses = pd.factorize(pair_response, sort=True)
    response_model = np.empty(responses.size, dtype=object)
    response_model[response_code] = model
    return HumanMatrix(
        keys=np.asarray(uniq, dtype=np.int64),
        rater_ids=np.asarray(rater_ids, dtype=np.int64),
        response=pair_response,
        criterion=(np.asarray(uniq, dtype=np.int64) & 0xFFFFFFFF) if n else np.zeros(0, np.int64),
        points=points,
        model=model,
        revision=revision,
        response_code=np.asarray(response_code, dtype=np.int64),
        responses=np.asarray(responses, dtype=np.int64),
        response_model=response_model,
        rows_pair=np.asarray(pair_codes, dtype=np.int64),
        rows_rater=np.asarray(rater_codes, dtype=np.int64),
        rows_met=met,
    )


def _confusion_all_pairs(hm: HumanMatrix) -> tuple[np.ndarray, ...]:
    """Confusion counts between every two raters at once (lower rater column = reference).

    Built from the two or three labels each pair holds, so the cost grows with the number of
    labels, not with pairs x raters. Macro-F1 is symmetric, so which rater is the reference does
    not change any value derived from these counts.
    """
    n_raters = hm.rater_ids.size
    counts = np.zeros(n_raters * n_raters * 4, dtype=np.int64)
    rater, label = hm.slots()
    for a, b in itertools.combinations(range(rater.shape[1]), 2):  # slots, never pairs
        ok = (rater[:, a] >= 0) & (rater[:, b] >= 0)
        ra, rb, la, lb = rater[ok, a], rater[ok, b], label[ok, a], label[ok, b]
        swap = ra > rb
        ref_r, pred_r = np.where(swap, rb, ra), np.where(swap, ra, rb)
        ref_l, pred_l = np.where(swap, lb, la), np.where(swap, la, lb)
        cell = (2 * ref_l + pred_l).astype(np.int64)
        counts += np.bincount((ref_r * n_raters + pred_r) * 4 + cell, minlength=counts.size)
    counts = counts.reshape(n_raters, n_raters, 4)
    return counts[..., 0], counts[..., 1], counts[..., 2], counts[..., 3]


def grader_vs_raters(hm: HumanMatrix, g: GraderArrays) -> tuple[float | None, str | None, list[tuple[int, Any]]]:
    """A grader's Macro-F1 against each physician and their mean (LiveMedBench eq. 9).

    Same definition as `metrics.macro_f1_vs_raters` (tests check it): each physician's labels on
    the pairs the grader decided, the mean undefined if any physician's Macro-F1 is. Computed rater
    by rater from the rows instead of from a pairs x raters matrix.
    """
    per: list[tuple[int, Any]] = []
    for k, rows in enumerate(hm.rows_by_rater()):  # loop over raters, not labels
        rows = rows[g.has[hm.rows_pair[rows]]]
        if rows.size == 0:
            continue
        per.append((int(hm.rater_ids[k]), metrics.macro_f1(hm.rows_met[rows], g.predicted[hm.rows_pair[rows]])))
    if not per:
        return None, "no physician labelled a pair this grader decided", per
    undefined = [rid for rid, r in per if r.value is None]
    if undefined:
        return None, f"Macro-F1 undefined against {len(undefined)} physician(s)", per
    return float(np.mean([r.value for _rid, r in per])), None, per


# ---------------------------------------------------------------------------
# Data quality (LiveMedBench Table 1) and per rater
# ---------------------------------------------------------------------------


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
    items, item_codes = np.unique(item, return_inverse=True)
    key = item_codes.reshape(-1).astype(np.int64) * max(len(field_values), 1) + field_codes
    subject, _ = pd.factorize(key, sort=False)
    subject = np.asarray(subject, dtype=np.int64)
    order = np.argsort(subject, kind="stable")
    ordered = subject[order]
    first = np.searchsorted(ordered, np.arange(int(ordered[-1]) + 1))
    slot = np.empty_like(subject)
    slot[order] = np.arange(subject.size) - first[ordered]
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
    position = pd.Index(list(index)).get_indexer(sub["label"].to_numpy(dtype=object))
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


def data_quality_tables(data: LabelData) -> list[Table]:
    rows: list[dict[str, Any]] = []
    approval_rows: list[dict[str, Any]] = []
    per_rater_rows: list[dict[str, Any]] = []
    for slug in _task_order(data):
        codes, tasks = task_codes(data)
        sub = _rows(data.ratings, codes == tasks.get_loc(slug))
        scale = data.scales.get(slug)
        matrix, column, cats, rater_ids, unknown = _coded_task_matrix(sub, scale)
        q = list(range(len(cats)))
        ac1 = metrics.gwet_ac1(matrix, q)
        fleiss = metrics.fleiss_kappa(matrix, q)
        pa = metrics.percent_agreement(matrix, q)
        approving = scale.approving if scale else frozenset()
        approves = sub["label"].isin(approving) if approving else None
        rows.append({
            "task": slug,
            "task_name": scale.name if scale else slug,
            "categories": " / ".join(cats),
            "n_subjects": ac1.n_subjects,
            "n_paired": ac1.n_paired,
            "n_raters": int(rater_ids.size),
            "n_ratings": int(len(sub)),
            "approval_rate": float(approves.mean()) if approves is not None and len(sub) else None,
            "percent_agreement": pa.value,
            **_result_cells("ac1", ac1),
            "fleiss_kappa": fleiss.value,
            "fleiss_kappa_se": fleiss.se,
            "unknown_labels": unknown,
            "reason": ac1.reason or "",
        })
        if approves is not None:
            by_rater = approves.groupby(sub["rater"]).agg(["mean", "size"])
            for rater_id, rec in by_rater.iterrows():
                approval_rows.append({
                    "task": slug,
                    "rater": data.pseudonym(rater_id),
                    "n_labels": int(rec["size"]),
                    "approval_rate": float(rec["mean"]),
                })
        per_rater_rows.extend(_per_rater_rows(data, slug, matrix, column, cats, rater_ids))
    dq = pd.DataFrame(rows, columns=[
        "task", "task_name", "categories", "n_subjects", "n_paired", "n_raters", "n_ratings", "approval_rate",
        "percent_agreement", "ac1", "ac1_se", "ac1_ci_low", "ac1_ci_high", "ac1_p", "fleiss_kappa",
        "fleiss_kappa_se", "unknown_labels", "reason",
    ])
    tables = []
    approvals = pd.DataFrame(approval_rows, columns=["task", "rater", "n_labels", "approval_rate"])
    if len(approvals) and approvals["rater"].nunique() <= PAPER_LAYOUT_MAX_RATERS:
        # The paper's layout: one approval column per rater, AC1 last.
        wide = approvals.pivot(index="task", columns="rater", values="approval_rate")
        wide.columns = [f"approval {c}" for c in wide.columns]
        paper = dq[["task", "task_name"]].merge(wide, left_on="task", right_index=True, how="left")
        paper["ac1"] = dq["ac1"].to_numpy()
        tables.append(Table("table1", "Physician assessment of data quality (LiveMedBench Table 1 layout)",
                            paper.drop(columns=["task"]), "Approval rate of each rater, then Gwet's AC1."))
    return tables + [
        Table("data_quality", "Data quality: agreement per task (LiveMedBench Table 1)", dq,
              "AC1 and Fleiss' kappa on the same first-round ratings; n_paired = subjects with two or more ratings."),
        Table("approval", "Approval rate per rater", approvals),
        Table("per_rater", "Each rater against the others", pd.DataFrame(per_rater_rows, columns=[
            "task", "rater", "n_labels", "n_shared", "agreement_with_others", "ac1_vs_others_majority",
            "macro_f1_vs_others_majority", "ac1_without_rater",
        ]), "Agreement with others = share of agreeing label pairs that involve the rater; the others' majority "
            "drops ties; 'AC1 without rater' is the task's AC1 when this rater is left out (an outlier raises it)."),
    ]


def _ac1_terms(columns: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[np.ndarray]]:
    """Per subject, from its category counts (one array per category): AC1's summands.

    (rated, paired, pa_i (0 unless paired), r_ik / r_i per category (0 unless rated)). AC1 =
    (pa - pe) / (1 - pe) with pa = sum pa_i / n_paired and pe from pi = sum (r_ik / r_i) / n_rated
    (Gwet 2008 / irrCAC, as `metrics.gwet_ac1`): sums over subjects, so AC1 over other subject
    sets (a rater left out) only needs the terms of the subjects that change.
    """
    ri = np.zeros(columns[0].shape)
    same = np.zeros(columns[0].shape)  # sum_k r_ik (r_ik - 1)
    for c in columns:
        ri += c
        same += c * (c - 1)
    rated, paired = ri > 0, ri >= 2
    pa_i = np.divide(same, ri * (ri - 1), out=np.zeros_like(ri), where=paired)
    inv = np.divide(1.0, ri, out=np.zeros_like(ri), where=rated)
    return rated, paired, pa_i, [c * inv for c in columns]


def _ac1_value(n: float, n2: float, pa: float, pi: np.ndarray, q: int) -> float | None:
    """AC1's value from its sums, with `metrics.gwet_ac1`'s conventions for degenerate input."""
    if round(n) <= 0 or round(n2) <= 0:
        return None
    if q == 1:
        return 1.0
    p = pi / n
    pe = float((p * (1 - p)).sum()) / (q - 1)
    if not (1 - pe) > 1e-14:
        return None
    return float((pa / n2 - pe) / (1 - pe))


def _per_rater_rows(
    data: LabelData, slug: str, matrix: np.ndarray, column: np.ndarray, cats: list[str], rater_ids: np.ndarray
) -> list[dict[str, Any]]:
    """Each rater against the others, per task, for all raters at once.

    Every statistic is a per-rater sum over the rater's own labels (numpy bincount), so the cost
    grows with the number of labels, not labels x raters: "AC1 without the rater" swaps the
    rater's subjects out of AC1's sums instead of recomputing AC1 over the whole task. The values
    equal `metrics.gwet_ac1` / `metrics.macro_f1` on the same labels (tests check it).
    """
    q, n_raters = len(cats), int(rater_ids.size)
    if matrix.size == 0 or q == 0:
        return []
    counts = metrics.count_matrix(matrix, q, transposed=True).astype(float)  # categories x subjects
    columns = [counts[j] for j in range(q)]
    rated, paired, pa_i, share = _ac1_terms(columns)
    total = (float(rated.sum()), float(paired.sum()), float(pa_i.sum()), np.array([s.sum() for s in share]))

    subj, slot = np.nonzero((column >= 0) & (matrix >= 0))  # every labelled entry, any rater
    own, rater = matrix[subj, slot], column[subj, slot]

    def per_rater(values: np.ndarray | None = None, where: np.ndarray | None = None) -> np.ndarray:
        r = rater if where is None else rater[where]
        w = None if values is None else (values if where is None else values[where])
        return np.bincount(r, weights=w, minlength=n_raters).astype(float)

    # Agreement with the others: the other labels of the rater's subjects.
    others = [columns[j][subj] - (own == j) for j in range(q)]
    n_others = sum(others)
    shared = n_others > 0
    agree = per_rater(np.where(shared, counts[own, subj] - 1, 0.0))
    n_pairs = per_rater(np.where(shared, n_others, 0.0))
    # The others' majority label (ties dropped); np.argmax keeps the first of equal maxima.
    stacked = np.stack(others)
    top = stacked.max(axis=0)
    unique_top = (stacked == top).sum(axis=0) == 1
    majority = np.where(unique_top & shared, stacked.argmax(axis=0), -1)
    kept = majority >= 0
    m = per_rater(where=kept)
    pair_pa = per_rater((own == majority).astype(float), kept)
    pair_pi = np.stack([(per_rater((own == j).astype(float), kept) + per_rater((majority == j).astype(float), kept)) / 2
                        for j in range(q)], axis=1)
    met = cats.index("met") if set(cats) == {"met", "not_met"} else None
    if met is not None:
        # The others' majority is the reference, the rater's label the prediction.
        ref, pred = majority == met, own == met
        mf1 = metrics.macro_f1_from_counts(per_rater((~ref & ~pred).astype(float), kept),
                                   per_rater((~ref & pred).astype(float), kept),
                                   per_rater((ref & ~pred).astype(float), kept),
                                   per_rater((ref & pred).astype(float), kept))
    # AC1 without the rater: per (rater, subject), the subject's terms before and after removing
    # the rater's labels (a rater may hold more than one label of a subject).
    # Entries come subject by subject (np.nonzero is row-major), so a rater's repeat within a subject
    # lies at most `width` entries back: group (rater, subject) keys without sorting.
    source = np.arange(subj.size)  # the first entry of each entry's (rater, subject)
    for d in range(1, matrix.shape[1]):  # a larger d is an earlier entry: it wins
        repeat = (subj[d:] == subj[:-d]) & (rater[d:] == rater[:-d])
        source[d:] = np.where(repeat, np.arange(subj.size - d), source[d:])
    first = source == np.arange(subj.size)
    inverse = (np.cumsum(first) - 1)[source]
    key_rater, key_subj = rater[first], subj[first]
    n_keys = int(first.sum())
    before = [c[key_subj] for c in columns]
    after = [b - np.bincount(inverse, weights=(own == j).astype(float), minlength=n_keys)
             for j, b in enumerate(before)]
    terms_b, terms_a = _ac1_terms(before), _ac1_terms(after)

    def delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.bincount(key_rater, weights=a.astype(float) - b.astype(float), minlength=n_raters)

    d_n, d_n2, d_pa = (delta(a, b) for a, b in zip(terms_a[:3], terms_b[:3], strict=True))
    d_pi = np.stack([delta(a, b) for a, b in zip(terms_a[3], terms_b[3], strict=True)], axis=1)
    n_labels, n_shared = per_rater(), per_rater(shared.astype(float))
    out = []
    for k, rater_id in enumerate(rater_ids):  # loop over raters, never over subjects
        out.append({
            "task": slug,
            "rater": data.pseudonym(rater_id),
            "n_labels": int(n_labels[k]),
            "n_shared": int(n_shared[k]),
            "agreement_with_others": float(agree[k] / n_pairs[k]) if n_pairs[k] else None,
            "ac1_vs_others_majority": _ac1_value(m[k], m[k], pair_pa[k], pair_pi[k], q),
            "macro_f1_vs_others_majority": _none(float(mf1[k])) if met is not None and m[k] else None,
            "ac1_without_rater": _ac1_value(
                total[0] + d_n[k], total[1] + d_n2[k], total[2] + d_pa[k], total[3] + d_pi[k], q
            ),
        })
    return out


# ---------------------------------------------------------------------------
# Grader reliability (LiveMedBench Table 2, ClinConsensus Table 4)
# ---------------------------------------------------------------------------


def _run_label(data: LabelData, run_id: int) -> str:
    label, _kind = data.runs.get(int(run_id), (f"run #{int(run_id)}", ""))
    return label


@dataclass
class GraderArrays:
    """One decision-making grader aligned with the human pairs."""

    run: int
    has: np.ndarray  # bool per pair: the grader decided it
    predicted: np.ndarray  # float per pair: 1 met, 0 not met, NaN invalid/failed/absent
    n_invalid: int
    n_decisions: int
    n_met: int
    case_score: np.ndarray  # per response


def grader_arrays(data: LabelData, hm: HumanMatrix) -> list[GraderArrays]:
    if "graders" not in data.memo:
        data.memo["graders"] = _grader_arrays(data, hm)
    return data.memo["graders"]


def _grader_arrays(data: LabelData, hm: HumanMatrix) -> list[GraderArrays]:
    d = data.decisions
    out = []
    if d.empty or hm.n_pairs == 0:
        return out
    keys = _pair_keys(d["response"].to_numpy(dtype=np.int64), d["criterion"].to_numpy(dtype=np.int64))
    pair_index = pd.Index(hm.keys).get_indexer(keys)
    runs = d["run"].to_numpy(dtype=np.int64)
    met = d["verdict"].map(_BINARY).to_numpy(dtype=float)  # invalid / failed -> NaN
    for run in np.unique(runs):
        sel = (runs == run) & (pair_index >= 0)  # like with like: only pairs physicians rated
        idx = pair_index[sel]
        has = np.zeros(hm.n_pairs, dtype=bool)
        has[idx] = True
        predicted = np.full(hm.n_pairs, np.nan)
        predicted[idx] = met[sel]
        scores = metrics.case_scores(
            hm.response_code[idx], hm.points[idx], np.nan_to_num(met[sel], nan=0.0), n_cases=hm.responses.size
        )
        out.append(GraderArrays(
            run=int(run), has=has, predicted=predicted, n_invalid=int(np.isnan(met[sel]).sum()),
            n_decisions=int(sel.sum()), n_met=int((met[sel] == 1).sum()), case_score=scores,
        ))
    return out


def judge_scores(data: LabelData, hm: HumanMatrix) -> dict[int, np.ndarray]:
    """run -> normalised judge score per response of the human matrix (NaN if none / invalid)."""
    j = data.judges
    out: dict[int, np.ndarray] = {}
    if j.empty or hm.responses.size == 0:
        return out
    valid = (j["status"] == "met") & j["score"].notna()
    pos = pd.Index(hm.responses).get_indexer(j["response"].to_numpy(dtype=np.int64))
    for run in sorted(j["run"].unique()):
        sel = (j["run"] == run).to_numpy() & valid.to_numpy() & (pos >= 0)
        scores = np.full(hm.responses.size, np.nan)
        scores[pos[sel]] = j["score"].to_numpy(dtype=float)[sel]
        out[int(run)] = scores
    return out


def _human_macro_f1(hm: HumanMatrix) -> tuple[float | None, float | None, int, list[tuple[int, int, float]]]:
    """(pairwise mean, pooled, n rater pairs, [(i, j, mf1)]) over rater pairs sharing a pair."""
    if hm.rater_ids.size < 2:
        return None, None, 0, []
    tn, fp, fn, tp = _confusion_all_pairs(hm)
    i, j = np.triu_indices(hm.rater_ids.size, k=1)
    shared = (tn + fp + fn + tp)[i, j] > 0
    i, j = i[shared], j[shared]
    if i.size == 0:
        return None, None, 0, []
    values = metrics.macro_f1_from_counts(tn[i, j], fp[i, j], fn[i, j], tp[i, j])
    pooled = metrics.macro_f1_from_counts(tn[i, j].sum(), fp[i, j].sum(), fn[i, j].sum(), tp[i, j].sum())
    defined = ~np.isnan(values)
    mean = float(values[defined].mean()) if defined.any() else None
    return mean, _none(float(pooled)), int(i.size), list(zip(i.tolist(), j.tolist(), values.tolist(), strict=True))


def grader_reliability_tables(data: LabelData, chart_data: dict[str, Any] | None = None) -> list[Table]:
    hm = human_matrix(data)
    if hm.n_pairs == 0:
        return []  # no physician met / not met labels: nothing to hold a grader against
    _per_rater, consensus = hm.consensus_scores()
    graders = grader_arrays(data, hm)
    judges = judge_scores(data, hm)
    fidelity: list[dict[str, Any]] = []
    vs_rater: list[dict[str, Any]] = []
    mean, pooled, n_pairs, _ = _human_macro_f1(hm)
    human_labels = hm.rows_met[~np.isnan(hm.rows_met)]
    fidelity.append({
        "evaluator": "Human inter-rater", "kind": "physicians", "macro_f1": mean, "macro_f1_pooled": pooled,
        "n_rater_pairs": n_pairs, "n_decisions": int(human_labels.size), "n_invalid": 0,
        "positive_rate": float(human_labels.mean()) if human_labels.size else None,
        "pearson_r": None, "pearson_ci_low": None, "pearson_ci_high": None, "pearson_p": None, "n_cases": None,
        "reason": "" if mean is not None else "fewer than two physicians share a decision",
    })
    scatter: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    confusion: dict[str, list[tuple[str, int, int, int, int]]] = {}
    for g in graders:
        label = _run_label(data, g.run)
        mean_f1, f1_reason, per_rater = grader_vs_raters(hm, g)
        pr = metrics.pearson(g.case_score, consensus)
        fidelity.append({
            "evaluator": label, "kind": data.runs.get(g.run, ("", ""))[1], "macro_f1": mean_f1,
            "macro_f1_pooled": None, "n_rater_pairs": None, "n_decisions": g.n_decisions, "n_invalid": g.n_invalid,
            "positive_rate": g.n_met / g.n_decisions if g.n_decisions else None,
            "pearson_r": pr.value, "pearson_ci_low": pr.ci[0] if pr.ci else None,
            "pearson_ci_high": pr.ci[1] if pr.ci else None, "pearson_p": pr.p_value, "n_cases": pr.n,
            "reason": "; ".join(x for x in (f1_reason, pr.reason) if x),
        })
        confusion[label] = []
        for rater_id, r in per_rater:
            pseudonym = data.pseudonym(rater_id)
            vs_rater.append({
                "grader": label, "rater": pseudonym, "macro_f1": r.value, "f1_met": r.f1_met,
                "f1_not_met": r.f1_not_met, "tp": r.tp, "fp": r.fp, "fn": r.fn, "tn": r.tn, "n": r.n,
                "n_invalid": r.n_invalid,
            })
            confusion[label].append((pseudonym, r.tp, r.fp, r.fn, r.tn))
        scatter[label] = (consensus, g.case_score)
    for run, scores in judges.items():
        label = _run_label(data, run)
        pr = metrics.pearson(scores, consensus)
        n_scored = int((~np.isnan(scores)).sum())
        n_all = int((data.judges["run"] == run).sum())
        fidelity.append({
            "evaluator": label, "kind": data.runs.get(run, ("", ""))[1], "macro_f1": None, "macro_f1_pooled": None,
            "n_rater_pairs": None, "n_decisions": n_all, "n_invalid": n_all - n_scored, "positive_rate": None,
            "pearson_r": pr.value, "pearson_ci_low": pr.ci[0] if pr.ci else None,
            "pearson_ci_high": pr.ci[1] if pr.ci else None, "pearson_p": pr.p_value, "n_cases": pr.n,
            "reason": pr.reason or "",
        })
        scatter[label] = (consensus, scores)
    if chart_data is not None:
        chart_data["scatter"] = scatter
        chart_data["confusion"] = confusion
    fid = pd.DataFrame(fidelity, columns=[
        "evaluator", "kind", "macro_f1", "macro_f1_pooled", "n_rater_pairs", "n_decisions", "n_invalid",
        "positive_rate", "pearson_r", "pearson_ci_low", "pearson_ci_high", "pearson_p", "n_cases", "reason",
    ])
    tables = [
        Table("grader_reliability", "Grader reliability (LiveMedBench Table 2, ClinConsensus Table 4)", fid,
              "Macro-F1 at criterion level (grader: mean over physicians); Pearson r at case level against the "
              "physicians' consensus score. Graders are compared on the pairs the physicians rated."),
        Table("grader_vs_rater", "Each grader against each physician", pd.DataFrame(vs_rater, columns=[
            "grader", "rater", "macro_f1", "f1_met", "f1_not_met", "tp", "fp", "fn", "tn", "n", "n_invalid"])),
    ]
    tables.extend(_ranking_tables(data, hm, consensus, graders, judges))
    return tables


# ---------------------------------------------------------------------------
# Ranking stability (ClinConsensus Table 15)
# ---------------------------------------------------------------------------


def _ranking_tables(
    data: LabelData, hm: HumanMatrix, consensus: np.ndarray, graders: list[GraderArrays],
    judges: dict[int, np.ndarray],
) -> list[Table]:
    if hm.responses.size == 0:
        return []
    series = {CONSENSUS: consensus}
    for g in graders:
        series[_run_label(data, g.run)] = g.case_score
    for run, scores in judges.items():
        series[_run_label(data, run)] = scores
    frame = pd.DataFrame(series)
    frame["model"] = hm.response_model
    model_scores = frame.groupby("model", sort=True).mean()
    rows = []
    for a, b in itertools.combinations(model_scores.columns, 2):
        both = model_scores[[a, b]].dropna()
        sp = metrics.spearman(both[a].to_numpy(), both[b].to_numpy())
        kd = metrics.kendall(both[a].to_numpy(), both[b].to_numpy())
        row = {"grader_a": a, "grader_b": b, "n_models": int(len(both)), "spearman": sp.value,
               "spearman_p": sp.p_value, "kendall": kd.value, "kendall_p": kd.p_value}
        for k in (3, 5):
            if len(both) >= k:
                top_a = set(both[a].sort_values(ascending=False, kind="stable").index[:k])
                top_b = set(both[b].sort_values(ascending=False, kind="stable").index[:k])
                row[f"top{k}_overlap"] = f"{len(top_a & top_b)}/{k}"
            else:
                row[f"top{k}_overlap"] = None
        row["mean_abs_diff_pp"] = float((both[a] - both[b]).abs().mean() * 100) if len(both) else None
        rows.append(row)
    scores_table = model_scores.reset_index()
    return [
        Table("model_scores", "Model score per grader (mean case score)", scores_table),
        Table("ranking_stability", "Ranking stability between graders (ClinConsensus Table 15)", pd.DataFrame(
            rows, columns=["grader_a", "grader_b", "n_models", "spearman", "spearman_p", "kendall", "kendall_p",
                           "top3_overlap", "top5_overlap", "mean_abs_diff_pp"]),
              "Mean absolute difference of model scores in percentage points; ties in top-k broken by model name."),
    ]


# ---------------------------------------------------------------------------
# Expert groups (ClinConsensus 6.1)
# ---------------------------------------------------------------------------


def _groups(data: LabelData, selection: Selection, hm: HumanMatrix) -> tuple[str, str, np.ndarray, np.ndarray] | None:
    """Rater-column masks of the two expert groups, or None when no grouping applies."""
    if selection.group_a and selection.group_b:
        a_ids = set(rater_ids_for_pseudonyms(selection.group_a))
        b_ids = set(rater_ids_for_pseudonyms(selection.group_b))
        names = ("Group A", "Group B")
    elif selection.group_by == "rank":
        a_ids = {uid for uid, info in data.raters.items() if info.rank not in SENIOR_RANKS}
        b_ids = {uid for uid, info in data.raters.items() if info.rank in SENIOR_RANKS}
        names = ("Attending", "Senior (associate chief, chief)")
    else:
        return None
    a = np.isin(hm.rater_ids, sorted(a_ids))
    b = np.isin(hm.rater_ids, sorted(b_ids))
    return names[0], names[1], a, b


def group_labels(hm: HumanMatrix, mask: np.ndarray) -> np.ndarray:
    """Majority label of the group's raters (`mask` over rater columns) per pair: 1, 0 or NaN (none or a tie)."""
    in_group = mask[hm.rows_rater] if hm.rows_rater.size else np.zeros(0, bool)
    met = np.bincount(hm.rows_pair[in_group & (hm.rows_met == 1)], minlength=hm.n_pairs)
    notmet = np.bincount(hm.rows_pair[in_group & (hm.rows_met == 0)], minlength=hm.n_pairs)
    return np.where(met > notmet, 1.0, np.where(notmet > met, 0.0, np.nan))


def expert_group_tables(data: LabelData, selection: Selection) -> list[Table]:
    hm = human_matrix(data)
    groups = _groups(data, selection, hm)
    if groups is None or hm.n_pairs == 0:
        return []
    name_a, name_b, mask_a, mask_b = groups
    ga, gb = group_labels(hm, mask_a), group_labels(hm, mask_b)
    both = ~np.isnan(ga) & ~np.isnan(gb)
    cell = np.where(both, 2 * np.nan_to_num(ga) + np.nan_to_num(gb), -1).astype(np.int64)
    rows = []
    scopes: list[tuple[str, np.ndarray]] = [("All models", both)]
    for model in sorted({m for m in hm.model if m is not None}):
        scopes.append((model, both & (hm.model == model)))
    for scope, mask in scopes:
        res = metrics.macro_f1(ga[mask], gb[mask])
        # Case level: one confusion table per response, all at once.
        codes = hm.response_code[mask] * 4 + cell[mask]
        counts = np.bincount(codes, minlength=hm.responses.size * 4).reshape(-1, 4)
        present = counts.sum(axis=1) > 0
        case = metrics.macro_f1_from_counts(counts[present, 0], counts[present, 1], counts[present, 2], counts[present, 3])
        defined = case[~np.isnan(case)]
        rows.append({
            "scope": scope, "n_decisions": int(mask.sum()), "macro_f1": res.value,
            "positive_rate_a": float(ga[mask].mean()) if mask.any() else None,
            "positive_rate_b": float(gb[mask].mean()) if mask.any() else None,
            "n_cases": int(present.sum()), "n_cases_undefined": int(np.isnan(case).sum()),
            "case_mf1_median": float(np.median(defined)) if defined.size else None,
            "case_mf1_q1": float(np.quantile(defined, 0.25)) if defined.size else None,
            "case_mf1_q3": float(np.quantile(defined, 0.75)) if defined.size else None,
            f"share_cases_below_{LOW_CASE_MF1}": float((defined < LOW_CASE_MF1).mean()) if defined.size else None,
        })
    group_table = pd.DataFrame(rows)
    vs_groups = []
    for g in grader_arrays(data, hm):
        res_a = metrics.macro_f1(ga[g.has], g.predicted[g.has])
        res_b = metrics.macro_f1(gb[g.has], g.predicted[g.has])
        values = [v for v in (res_a.value, res_b.value) if v is not None]
        vs_groups.append({
            "grader": _run_label(data, g.run), "macro_f1_group_a": res_a.value, "macro_f1_group_b": res_b.value,
            "average": float(np.mean(values)) if len(values) == 2 else None,
            "positive_rate": g.n_met / g.n_decisions if g.n_decisions else None, "n_invalid": g.n_invalid,
        })
    note = (f"Group A = {name_a} ({int(mask_a.sum())} raters), group B = {name_b} ({int(mask_b.sum())} raters); "
            "group A is the reference.")
    return [
        Table("expert_groups", "Agreement between expert groups (ClinConsensus 6.1, Table 3)", group_table, note),
        Table("grader_vs_groups", "Each grader against each expert group (ClinConsensus Table 4)", pd.DataFrame(
            vs_groups, columns=["grader", "macro_f1_group_a", "macro_f1_group_b", "average", "positive_rate",
                                "n_invalid"]), note),
    ]


# ---------------------------------------------------------------------------
# Pairwise position bias
# ---------------------------------------------------------------------------


def position_bias_table(data: LabelData) -> list[Table]:
    """Position bias of each pairwise judge with judgements on the selection's responses.

    Uses `graders.selectors.pairwise_position_bias` (the graders app's definition, over the whole
    run) when it is installed; otherwise computes the same counts from the selection's judgements.
    """
    p = data.pairwise
    if p.empty:
        return []
    try:
        from graders.selectors import pairwise_position_bias
    except ImportError:
        return _position_bias_from_frame(data)
    from cases.models import GraderRun

    rows = []
    for run in GraderRun.objects.filter(pk__in=sorted(int(r) for r in p["run"].unique())).order_by("pk"):
        stats = pairwise_position_bias(run)
        rows.append({
            "grader": _run_label(data, run.pk), "n_pairs": stats.get("pairs"),
            "n_both_orders": stats.get("pairs_both_orders"), "n_flips": stats.get("flips"),
            "flip_rate": stats.get("flip_share"), "first_shown_win_share": stats.get("first_shown_win_share"),
            "n_invalid": stats.get("invalid"), "n_failed": stats.get("failed"),
        })
    return [Table("position_bias", "Pairwise judge position bias", pd.DataFrame(rows, columns=[
        "grader", "n_pairs", "n_both_orders", "n_flips", "flip_rate", "first_shown_win_share", "n_invalid",
        "n_failed"]), "Over each whole pairwise run (graders.selectors.pairwise_position_bias): a flip is a "
        "different verdict when the two responses swap places; a first-shown win share of 0.5 means no "
        "position preference.")]


def _position_bias_from_frame(data: LabelData) -> list[Table]:
    p = data.pairwise
    wide = p.pivot_table(index=["run", "a", "b"], columns="order", values="verdict", aggfunc="first")
    rows = []
    for run, group in wide.groupby(level="run"):
        if "ab" not in group or "ba" not in group:
            both = group.iloc[0:0]
        else:
            both = group.dropna(subset=["ab", "ba"])
        valid = both[both["ab"].isin(["A", "B", "tie"]) & both["ba"].isin(["A", "B", "tie"])]
        flips = valid[valid["ab"] != valid["ba"]]
        run_rows = p[p["run"] == run]
        decided = run_rows[run_rows["verdict"].isin(["A", "B"])]
        first = ((decided["order"] == "ab") & (decided["verdict"] == "A")) | (
            (decided["order"] == "ba") & (decided["verdict"] == "B"))
        rows.append({
            "grader": _run_label(data, run), "n_pairs": int(len(group)), "n_both_orders": int(len(valid)),
            "n_flips": int(len(flips)), "flip_rate": float(len(flips) / len(valid)) if len(valid) else None,
            "first_shown_win_share": float(first.mean()) if len(decided) else None,
            "n_invalid": int((run_rows["verdict"] == "invalid").sum()),
            "n_failed": int((run_rows["verdict"] == "failed").sum()),
        })
    return [Table("position_bias", "Pairwise judge position bias", pd.DataFrame(rows, columns=[
        "grader", "n_pairs", "n_both_orders", "n_flips", "flip_rate", "first_shown_win_share", "n_invalid",
        "n_failed"]))]


# ---------------------------------------------------------------------------
# Strata
# ---------------------------------------------------------------------------


def _stratum_masks(data: LabelData, stratum: str) -> dict[str, dict[str, np.ndarray]]:
    """stratum value -> {frame name: row mask} for the frames a stratum can split."""
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
        later_rounds=data.later_rounds,
    )


def _stratified(
    builder: Callable[[LabelData], list[Table]], data: LabelData, stratum: str
) -> list[Table]:
    """Run a table builder on every stratum and stack its tables with a stratum column."""
    overall = builder(data)
    pieces: dict[str, list[pd.DataFrame]] = {t.key: [t.frame.assign(stratum="All")] for t in overall}
    for value, masks in sorted(_stratum_masks(data, stratum).items()):
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
        out.append(Table(t.key, f"{t.title}, by {STRATA[stratum].lower()}", frame[cols], t.note))
    return out


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


def build_report(selection: Selection, *, data: LabelData | None = None) -> Report:
    data = data if data is not None else load_labels(selection)
    chart_data: dict[str, Any] = {}
    stratum = selection.stratify_by

    def reliability(d: LabelData) -> list[Table]:
        return grader_reliability_tables(d, chart_data if d is data else None)

    def groups(d: LabelData) -> list[Table]:
        return expert_group_tables(d, selection)

    tables: list[Table] = []
    for builder in (data_quality_tables, reliability, groups):
        if stratum:
            tables.extend(_stratified(builder, data, stratum))
        else:
            tables.extend(builder(data))
    if stratum == "model":
        # A ranking of models within one model is meaningless.
        tables = [t for t in tables if t.key not in ("model_scores", "ranking_stability")]
    tables.extend(position_bias_table(data))
    if stratum:
        chart_data["strata"] = {
            t.key: t.frame for t in tables if t.key in ("data_quality", "grader_reliability")
        }
    counts = {
        "ratings_round_1": int(len(data.ratings)),
        "ratings_later_rounds_not_used": int(data.later_rounds),
        "raters": int(data.ratings["rater"].nunique()) if len(data.ratings) else 0,
        "grader_decisions": int(len(data.decisions)),
        "judge_scores": int(len(data.judges)),
        "pairwise_judgements": int(len(data.pairwise)),
    }
    dq = next((t for t in tables if t.key == "data_quality"), None)
    if dq is not None:
        chart_data["forest"] = dq.frame
    return Report(
        selection=selection, tables=tables, counts=counts, generated_at=dt.datetime.now(dt.UTC),
        chart_data=chart_data,
    )


def build_grader_reliability(selection: Selection) -> list[Table]:
    """Only the grader-reliability tables (what the benchmark times end to end)."""
    return grader_reliability_tables(load_labels(selection))


def software_version() -> str:
    """medreview's version: `medreview.__version__` if set, else pyproject.toml's [project] version."""
    import tomllib
    from pathlib import Path

    import medreview

    version = getattr(medreview, "__version__", None)
    if version:
        return str(version)
    pyproject = Path(medreview.__file__).resolve().parent.parent / "pyproject.toml"
    try:
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"


# ---------------------------------------------------------------------------
# Cached reports (pages and charts at ClinConsensus scale)
# ---------------------------------------------------------------------------


def labels_fingerprint() -> str:
    """Changes whenever a rating, grader decision, judge score or pairwise judgement is added or removed.

    Ratings and decisions are written once and never updated, so the highest id and the row count
    of each table identify the data a report was computed from.
    """
    from django.db.models import Count, Max

    from annotation.models import Rating
    from cases.models import GraderDecision, JudgeScore, PairwiseJudgement

    parts = []
    for model in (Rating, GraderDecision, JudgeScore, PairwiseJudgement):
        agg = model.objects.aggregate(n=Count("pk"), top=Max("pk"))
        parts.append(f"{agg['n']}:{agg['top']}")
    return "/".join(parts)


def _cache_key(kind: str, selection: Selection, fingerprint: str) -> str:
    import hashlib
    import json

    raw = json.dumps([kind, selection.as_dict(), fingerprint], sort_keys=True)
    return "agreement:" + hashlib.sha256(raw.encode()).hexdigest()


REPORT_CACHE_SECONDS = 3600


def cached_report(selection: Selection) -> Report:
    """The report for a selection, computed once per state of the labels (Django's cache)."""
    from django.core.cache import cache

    key = _cache_key("report", selection, labels_fingerprint())
    report = cache.get(key)
    if report is None:
        report = build_report(selection)
        cache.set(key, report, REPORT_CACHE_SECONDS)
    return report


def cached_chart(selection: Selection, key: str) -> Any:
    """One rendered chart (`agreement.charts.Chart`) of a selection's report, or None."""
    from django.core.cache import cache

    from agreement.charts import render_chart

    fingerprint = labels_fingerprint()
    chart_key = _cache_key(f"chart:{key}", selection, fingerprint)
    chart = cache.get(chart_key)
    if chart is None:
        report_key = _cache_key("report", selection, fingerprint)
        report = cache.get(report_key)
        if report is None:
            report = build_report(selection)
            cache.set(report_key, report, REPORT_CACHE_SECONDS)
        chart = render_chart(report, key)
        if chart is not None:
            cache.set(chart_key, chart, REPORT_CACHE_SECONDS)
    return chart
