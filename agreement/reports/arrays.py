"""Arrays several tables share: physicians' met / not met labels per (response, criterion) pair and
each grader aligned with them, computed once per `LabelData`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext, ngettext

from agreement import metrics
from agreement.reports.base import (
    RELIABILITY_SLUG,
    RELIABILITY_TARGET,
    LabelData,
    _rows,
    factorize_sorted,
    group_starts,
    ranks_in_groups,
    task_codes,
)


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
        by_rater, bounds = group_starts(self.rows_rater[labelled], self.rater_ids.size)
        order = labelled[by_rater]
        return [order[bounds[k]:bounds[k + 1]] for k in range(self.rater_ids.size)]

    def slots(self) -> tuple[np.ndarray, np.ndarray]:
        """(rater column, label) as pairs x slots matrices (-1 / NaN where empty), slots <= raters per pair."""
        labelled = np.flatnonzero(~np.isnan(self.rows_met))
        if labelled.size == 0:
            return np.zeros((self.n_pairs, 0), np.int64), np.zeros((self.n_pairs, 0))
        by_pair, slot = ranks_in_groups(self.rows_pair[labelled])
        order = labelled[by_pair]
        pair = self.rows_pair[order]
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


def human_matrix(data: LabelData) -> HumanMatrix:
    if "human" not in data.memo:
        data.memo["human"] = _human_matrix(data)
    return data.memo["human"]


def _human_matrix(data: LabelData) -> HumanMatrix:
    r = reliability_ratings(data)
    response = r["response"].to_numpy(dtype=np.int64) if len(r) else np.zeros(0, np.int64)
    criterion = r["criterion"].to_numpy(dtype=np.int64) if len(r) else np.zeros(0, np.int64)
    keys = _pair_keys(response, criterion)
    pair_codes, uniq = factorize_sorted(keys)
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
    response_code, responses = factorize_sorted(pair_response)
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
        return None, gettext("no physician labelled a pair this grader decided"), per
    undefined = [rid for rid, r in per if r.value is None]
    if undefined:
        return None, ngettext("Macro-F1 undefined against %(n)s physician", "Macro-F1 undefined against %(n)s physicians",
                              len(undefined)) % {"n": len(undefined)}, per
    return float(np.mean([r.value for _rid, r in per])), None, per


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
    """run -> normalised holistic judge score per response of the human matrix (NaN if none / invalid).

    Per-axis (Likert) scores are MEDIC's, compared with clinicians' Likert scores in `reports.medic`.
    """
    j = data.judges
    out: dict[int, np.ndarray] = {}
    if j.empty or hm.responses.size == 0:
        return out
    if "axis" in j:
        j = j[j["axis"].fillna("").to_numpy(dtype=object) == ""]
    valid = (j["status"] == "met") & j["score"].notna()
    pos = pd.Index(hm.responses).get_indexer(j["response"].to_numpy(dtype=np.int64))
    for run in sorted(j["run"].unique()):
        sel = (j["run"] == run).to_numpy() & valid.to_numpy() & (pos >= 0)
        scores = np.full(hm.responses.size, np.nan)
        scores[pos[sel]] = j["score"].to_numpy(dtype=float)[sel]
        out[int(run)] = scores
    return out
