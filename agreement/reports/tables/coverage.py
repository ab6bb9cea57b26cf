"""ClinConsensus coverage tables (Sec. 4.2-4.3, App. H Tables 9-10, I.4 Table 15 on CACS).

Each *scorer* (every rubric grader run, and the physicians' consensus) gives each response a number
of rubric hits: criteria with positive points judged met (invalid or failed grader outputs count as
not met; a physicians' tie counts as not met). From the hits: Rubric Accuracy, Pass@tau and
CACS@tau per model (`agreement.metrics.rubrics.coverage`), tau given, calibrated from physician-written
responses imported as a model, or scaled from the paper's 10 of 30.

Calibration follows ClinConsensus Sec. 4.3 to the letter: it counts the physicians' decisions on
the physician-written responses themselves (met decisions over decisions per response, times its
criteria), never a per-criterion consensus, so a 1-1 split between two physicians counts as half
a hit rather than as not met.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement.metrics.rubrics import coverage as C
from agreement.reports.arrays import HumanMatrix, human_matrix
from agreement.reports.base import CONSENSUS, LabelData, Table, _run_label
from agreement.selectors import Selection

#: ClinConsensus: tau = 10 for 30 criteria per case.
PAPER_TAU, PAPER_N = 10, 30


def _grader_hits(data: LabelData) -> dict[str, pd.DataFrame]:
    d = data.decisions
    out: dict[str, pd.DataFrame] = {}
    if d.empty:
        return out
    # Columns, not a sub-frame per run: copying every column of the decisions took longer than the sums.
    positive = d["points"].to_numpy(dtype=float) > 0
    run = d["run"].to_numpy()
    # A categorical compares by its codes: no string per decision (0.1 s at 10x ClinConsensus scale).
    met = d["verdict"].eq("met").to_numpy(dtype=np.int64)
    model, response = d["model"].to_numpy(dtype=object), d["response"].to_numpy()
    for r in np.unique(run[positive]):
        rows = positive & (run == r)
        out[_run_label(data, r)] = _sum_per_response(model[rows], response[rows], hits=met[rows])
    return out


def _sum_per_response(model: np.ndarray, response: np.ndarray, **columns: np.ndarray) -> pd.DataFrame:
    """Integer columns summed per (model, response) with a count of rows (n_criteria), sorted by model and
    response, rows without a model or a response left out: `groupby(["model", "response"]).sum()`,
    grouped by the response alone. A response has one model, and hashing a model name per row took 0.1 s
    per scorer at 10x ClinConsensus scale."""
    number, responses = pd.factorize(response, sort=True)
    if (number < 0).any():  # no response: the groupby leaves the row out
        known = number >= 0
        number, model, columns = number[known], model[known], {k: v[known] for k, v in columns.items()}
    n = len(responses)
    names = np.empty(n, dtype=object)
    names[number] = model
    frame = pd.DataFrame({
        "model": names, "response": responses,
        **{k: np.bincount(number, weights=v, minlength=n).astype(np.int64) for k, v in columns.items()},
        "n_criteria": np.bincount(number, minlength=n).astype(np.int64),
    })
    return frame[frame["model"].notna()].sort_values(["model", "response"], kind="stable", ignore_index=True)


def _pair_counts(data: LabelData) -> tuple[HumanMatrix, np.ndarray, np.ndarray]:
    """(human matrix, met decisions per pair, decisions per pair)."""
    hm = human_matrix(data)
    labelled = ~np.isnan(hm.rows_met)
    met = np.bincount(hm.rows_pair[labelled & (hm.rows_met == 1)], minlength=hm.n_pairs)
    decisions = np.bincount(hm.rows_pair[labelled], minlength=hm.n_pairs)
    return hm, met, decisions


def _per_response(hm: HumanMatrix, keep: np.ndarray, **columns: np.ndarray) -> pd.DataFrame:
    """Sum per-pair columns over each response's kept pairs (criteria with positive points, judged)."""
    return _sum_per_response(hm.model[keep], hm.response[keep], **{k: v[keep] for k, v in columns.items()})


def _physician_hits(data: LabelData) -> pd.DataFrame:
    """Per response: criteria (positive points) the physicians' majority judged met; ties not met."""
    hm, met, decisions = _pair_counts(data)
    if hm.n_pairs == 0:
        return pd.DataFrame(columns=["model", "response", "hits", "n_criteria"])
    keep = (decisions > 0) & (hm.points > 0)
    return _per_response(hm, keep, hits=(2 * met > decisions).astype(np.int64))


def physician_decisions(data: LabelData) -> pd.DataFrame:
    """Per response: the physicians' met decisions, all their decisions and the criteria they judged.

    Criteria with positive points only (like the hits of every scorer); each rating counts once.
    """
    hm, met, decisions = _pair_counts(data)
    if hm.n_pairs == 0:
        return pd.DataFrame(columns=["model", "response", "met", "decisions", "n_criteria"])
    keep = (decisions > 0) & (hm.points > 0)
    return _per_response(hm, keep, met=met, decisions=decisions)


def _tau(selection: Selection, data: LabelData, scorers: dict[str, pd.DataFrame]) -> tuple[int, str, Any]:
    """(tau, how it was chosen, calibration or None)."""
    given = selection.tau
    calibration_model = selection.tau_model
    if given:
        return int(given), "given", None
    if calibration_model:
        decided = physician_decisions(data)
        cal_rows = decided[decided["model"] == calibration_model]
        cal = C.calibrate_tau(cal_rows["met"].to_numpy(), cal_rows["n_criteria"].to_numpy(),
                              cal_rows["decisions"].to_numpy())
        if cal.tau is not None:
            return cal.tau, _("calibrated from the physicians' decisions on %(model)s: met decisions over decisions "
                              "per response, times its criteria, averaged and rounded") % {"model": calibration_model}, cal
        scaled, how, _none = _scaled(scorers)
        return scaled, _("%(how)s: no physician labels on %(model)s to calibrate from") % {
            "how": how, "model": calibration_model}, cal
    return _scaled(scorers)


def _scaled(scorers: dict[str, pd.DataFrame]) -> tuple[int, str, None]:
    sizes = np.concatenate([p["n_criteria"].to_numpy() for p in scorers.values()]) if scorers else np.zeros(0)
    median_n = float(np.median(sizes)) if sizes.size else PAPER_N
    tau = max(1, int(np.floor(median_n * PAPER_TAU / PAPER_N + 0.5)))
    return tau, _("scaled from ClinConsensus' 10 of 30 to the median %(n)s criteria per response") % {
        "n": f"{median_n:g}"}, None


def _scorers(data: LabelData) -> dict[str, pd.DataFrame]:
    """Every scorer's hits per response, computed once per LabelData (tau and the tables share them)."""
    if "coverage_scorers" not in data.memo:
        physicians = _physician_hits(data)
        data.memo["coverage_scorers"] = {**({CONSENSUS: physicians} if len(physicians) else {}),
                                         **_grader_hits(data)}
    return data.memo["coverage_scorers"]


TauChoice = tuple[int, str, Any]


def coverage_tau(data: LabelData, selection: Selection) -> TauChoice | None:
    """(tau, how it was chosen, calibration or None) on the whole selection, or None without rubric hits.

    Chosen once and kept for every stratum (ClinConsensus: one tau across difficulty strata).
    """
    scorers = _scorers(data)
    return _tau(selection, data, scorers) if scorers else None


def coverage_tables(data: LabelData, selection: Selection, choice: TauChoice | None = None) -> list[Table]:
    scorers = _scorers(data)
    if not scorers:
        return []
    tau, how, cal = choice if choice is not None else _tau(selection, data, scorers)
    calibration_model = selection.tau_model
    rows = []
    for name, per in scorers.items():
        if calibration_model:
            per = per[per["model"] != calibration_model]
        if per.empty:
            continue
        table = C.coverage_table(per, tau=tau)
        rows.extend({"scorer": name, **r} for r in table.to_dict("records"))
    note = _("τ = %(tau)s (%(how)s). Hits = criteria with positive points judged met; invalid grader outputs and "
             "physicians' ties count as not met. Responses with fewer than τ criteria have no Pass@τ or CACS@τ.") % {
        "tau": tau, "how": how}
    tables = [Table("coverage", _("Coverage per model: Rubric Accuracy, Pass@%(tau)s, CACS@%(tau)s (ClinConsensus)")
                    % {"tau": tau},
                    pd.DataFrame(rows, columns=["scorer", "model", "tau", "n_responses", "n_short", "mean_hits",
                                                "rubric_accuracy", "pass_rate", "cacs"]), note)]
    if cal is not None and cal.tau is not None:
        tables.extend(_calibration_tables(cal, calibration_model))
    primary_name = next((n for n in scorers if n != CONSENSUS), CONSENSUS)
    primary = scorers[primary_name]
    if calibration_model:
        primary = primary[primary["model"] != calibration_model]
    if primary["model"].nunique() >= 2:
        sens = C.threshold_sensitivity(primary, tau=tau)
        sens.insert(0, "scorer", primary_name)
        tables.append(Table("threshold_sensitivity", _("Sensitivity of the ranking to tau (ClinConsensus Table 10)"),
                            sens, _("Each metric's model ranking against that of CACS@%(tau)s: Spearman, Kendall, "
                                    "and how many of the top 3 / top 5 models it keeps (ties broken by model "
                                    "name).") % {"tau": tau}))
    tables.extend(_stability_table(scorers, tau, calibration_model))
    return tables


def coverage_calibration_tables(choice: TauChoice | None, model: str) -> list[Table]:
    """The calibration tables of a tau choice (none when tau was given or scaled)."""
    if choice is None or choice[2] is None or choice[2].tau is None:
        return []
    return _calibration_tables(choice[2], model)


def _calibration_tables(cal: C.TauCalibration, model: str) -> list[Table]:
    summary = pd.DataFrame([{
        "calibration_model": model, "tau": cal.tau, "n_responses": cal.n_responses, "mean_hits": cal.mean,
        "median_hits": cal.median, "q1": cal.q1, "q3": cal.q3, "hit_rate": cal.hit_rate,
        "n_decisions": cal.n_decisions, "n_hits": cal.n_hits,
    }])
    dist = pd.DataFrame({"hits": list(cal.distribution), "responses": list(cal.distribution.values())})
    return [
        Table("tau_calibration", _("Threshold calibrated from physician-written responses (ClinConsensus 4.3)"),
              summary, _("A response's hits = the physicians' met decisions on it over their decisions, times its "
                         "criteria (positive points); τ = the rounded (half up) mean over the physician-written "
                         "responses; hit rate = met decisions / decisions. ClinConsensus: 2,904 of 8,550 decisions, "
                         "10.19 of 30 → τ = 10.")),
        Table("tau_distribution", _("Rubric hits of the physician-written responses"), dist),
    ]


STABILITY_COLUMNS = ["scorer_a", "scorer_b", "n_models", "spearman", "spearman_p", "kendall", "kendall_p",
                     "top3_overlap", "top5_overlap", "mean_abs_diff_pp"]


def _stability_table(scorers: dict[str, pd.DataFrame], tau: int, exclude_model: str) -> list[Table]:
    if len(scorers) < 2:
        return []
    cacs = {}
    for name, per in scorers.items():
        per = per[per["model"] != exclude_model] if exclude_model else per
        if len(per):
            cacs[name] = C.coverage_table(per, tau=tau).set_index("model")["cacs"]
    names = list(cacs)
    rows = []
    for i in range(len(names)):
        for k in range(i + 1, len(names)):
            s = C.ranking_stability(cacs[names[i]], cacs[names[k]])
            rows.append({
                "scorer_a": names[i], "scorer_b": names[k], "n_models": s.n_models, "spearman": s.spearman,
                "spearman_p": s.spearman_p, "kendall": s.kendall, "kendall_p": s.kendall_p,
                "top3_overlap": f"{s.top3}/{s.top3_of}" if s.top3_of else None,
                "top5_overlap": f"{s.top5}/{s.top5_of}" if s.top5_of else None,
                "mean_abs_diff_pp": s.mean_abs_diff * 100 if s.mean_abs_diff is not None else None,
            })
    return [Table("ranking_stability_cacs",
                  _("Ranking stability between scorers on CACS@%(tau)s (ClinConsensus Table 15)") % {"tau": tau},
                  pd.DataFrame(rows, columns=STABILITY_COLUMNS),
                  _("Models ranked by CACS; Spearman and Kendall tau-b with two-sided p (scipy); mean absolute "
                    "difference in percentage points."))]
