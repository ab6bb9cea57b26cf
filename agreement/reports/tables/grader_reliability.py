"""Grader reliability (LiveMedBench Table 2, ClinConsensus Table 4): Macro-F1 against physicians and
case-level Pearson against their consensus score."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement import metrics
from agreement.reports.arrays import (
    HumanMatrix,
    _confusion_all_pairs,
    grader_arrays,
    grader_vs_raters,
    human_matrix,
    judge_scores,
)
from agreement.reports.base import LabelData, Table, _none, _run_label
from agreement.reports.tables.ranking import _ranking_tables
from agreement.reports.words import cell_name


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
    mean, pooled, n_pairs, _pairs = _human_macro_f1(hm)
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
            "reason": _("; ").join(cell_name(x) for x in (f1_reason, pr.reason) if x),
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
        n_all = int(((data.judges["run"] == run) & (data.judges["axis"].fillna("") == "")).sum())
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
        Table("grader_reliability", _("Grader reliability (LiveMedBench Table 2, ClinConsensus Table 4)"), fid,
              _("Macro-F1 at criterion level (grader: mean over physicians); Pearson r at case level against the "
                "physicians' consensus score. Graders are compared on the pairs the physicians rated.")),
        Table("grader_vs_rater", _("Each grader against each physician"), pd.DataFrame(vs_rater, columns=[
            "grader", "rater", "macro_f1", "f1_met", "f1_not_met", "tp", "fp", "fn", "tn", "n", "n_invalid"])),
    ]
    tables.extend(_ranking_tables(data, hm, consensus, graders, judges))
    return tables
