"""MEDIC judge validation (Appendix A.1, Sec. 4 / Fig. 5): Likert judges against clinicians, pairwise ratings.

Tables: judge scores per axis, judge minus clinician per axis (paired t interval), clinicians' AC2
(quadratic) per axis, pairwise win rates, Bradley-Terry / Elo ratings with bootstrap CIs for each
judge and for the physicians, Spearman / Kendall between those rankings, position bias with a
Wilson interval and a binomial test for judges and physicians alike. Statistics are in
`agreement.metrics.judges`; this module only shapes the label frames.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agreement import metrics
from agreement.metrics import judges as J
from agreement.reports.base import PHYSICIANS, LabelData, Table, _run_label
from agreement.reports.words import cell_name

#: Tasks whose labels are 1-5 scores on named axes, and pairwise preferences (annotation.TaskTarget).
LIKERT_TARGET = "response_axis"
PAIRWISE_TARGET = "pairwise"
#: Bootstrap replicates for rating CIs; seeded so a report is reproducible.
N_BOOT = 1000
BOOT_SEED = 20260101


def _axis_name(value: Any) -> str:
    return str(value).strip().casefold()


def _likert_ratings(data: LabelData) -> pd.DataFrame:
    """Clinicians' first-round Likert ratings: response, model, axis, rater, score (float)."""
    r = data.ratings
    slugs = [s for s, scale in data.scales.items() if scale.target == LIKERT_TARGET]
    if r.empty or not slugs:
        return pd.DataFrame(columns=["task", "item", "field", "response", "model", "axis", "rater", "score"])
    sub = r[r["task"].isin(slugs)]
    field_key = sub["field"].astype(str)
    score = pd.to_numeric(sub["label"].astype(str), errors="coerce")
    return pd.DataFrame({
        "task": sub["task"].to_numpy(dtype=object), "item": sub["item"].to_numpy(), "field": field_key.to_numpy(),
        "response": sub["response"].to_numpy(), "model": sub["model"].to_numpy(dtype=object),
        "axis": field_key.str.removeprefix("axis:").to_numpy(dtype=object), "rater": sub["rater"].to_numpy(),
        "score": score.to_numpy(dtype=float),
    })


def judge_axis_table(data: LabelData) -> list[Table]:
    """Every judge score per judge and axis (holistic scores under "(overall)")."""
    j = data.judges
    if j.empty:
        return []
    valid = (j["status"] == "met") & j["score"].notna()
    frame = j.assign(valid=valid, axis=j["axis"].fillna("").replace("", "(overall)"))
    rows = []
    for (run, axis), g in frame.groupby(["run", "axis"], sort=True):
        ok = g[g["valid"]]
        rows.append({
            "judge": _run_label(data, run), "axis": axis, "n_scores": int(len(g)), "n_valid": int(len(ok)),
            "mean_raw": float(ok["raw"].mean()) if ok["raw"].notna().any() else None,
            "mean_normalized": float(ok["score"].mean()) if len(ok) else None,
        })
    return [Table("judge_axis_scores", _("Judge scores per axis"), pd.DataFrame(rows, columns=[
        "judge", "axis", "n_scores", "n_valid", "mean_raw", "mean_normalized"]),
        _("Raw = the judge's score on its own scale (1-5 for a Likert judge); normalised to [0, 1]. "
          "Invalid or failed outputs are counted in the scores and left out of the means."))]


def judge_vs_clinician_table(data: LabelData) -> list[Table]:
    """MEDIC Appendix A.1: judge minus clinician per axis, paired per response, 95% CI."""
    likert = _likert_ratings(data)
    j = data.judges
    if likert.empty or j.empty:
        return []
    clin = (likert.dropna(subset=["score"]).assign(key=lambda f: f["axis"].map(_axis_name))
            .groupby(["response", "key"], sort=False)["score"].mean())
    jj = j[(j["status"] == "met") & j["raw"].notna() & (j["axis"].fillna("") != "")]
    if jj.empty or clin.empty:
        return []
    keys = pd.MultiIndex.from_arrays([jj["response"].to_numpy(), jj["axis"].map(_axis_name).to_numpy()])
    frame = pd.DataFrame({
        "judge": [_run_label(data, r) for r in jj["run"]], "axis": jj["axis"].to_numpy(dtype=object),
        "judge_score": jj["raw"].to_numpy(dtype=float), "clinician_score": clin.reindex(keys).to_numpy(dtype=float),
    })
    frame = frame.dropna(subset=["clinician_score"])
    if frame.empty:
        return []
    table = J.mean_differences(frame, by=("judge", "axis")).drop(columns=["reason"])
    return [Table("judge_vs_clinician", _("Judge minus clinician per axis (MEDIC Appendix A.1)"), table,
                  _("Per response, the judge's 1-5 score minus the clinicians' mean first-round score on that axis; "
                    "mean with a paired t interval on per-response differences (statsmodels). A CI that excludes "
                    "0 is a systematic deviation."))]


def clinician_ac2_table(data: LabelData) -> list[Table]:
    """Gwet's AC2 with quadratic weights between clinicians on each 1-5 axis."""
    likert = _likert_ratings(data)
    if likert.empty:
        return []
    rows = []
    for (task, axis), g in likert.groupby(["task", "axis"], sort=True):
        scale = data.scales.get(task)
        cats = [float(c) for c in scale.categories] if scale and scale.categories else None
        wide = g.pivot_table(index="item", columns="rater", values="score", aggfunc="first")
        res = metrics.gwet_ac2(wide.to_numpy(dtype=float), cats, weights="quadratic")
        rows.append({
            "task": scale.name if scale else task, "axis": axis, "n_responses": res.n_subjects,
            "n_paired": res.n_paired, "n_raters": res.n_raters, "ac2": res.value, "ac2_se": res.se,
            "ac2_ci_low": res.ci[0] if res.ci else None, "ac2_ci_high": res.ci[1] if res.ci else None,
            "ac2_p": res.p_value,
        })
    return [Table("clinician_ac2", _("Agreement between clinicians per axis (AC2, quadratic weights)"),
                  pd.DataFrame(rows), _("Gwet's AC2 on the 1-5 scores, quadratic weights over the scale's values."))]


# ---------------------------------------------------------------------------
# Pairwise
# ---------------------------------------------------------------------------


def _sources(data: LabelData, human: pd.DataFrame) -> list[tuple[str, J.MatchTable, pd.DataFrame]]:
    """(name, matches, verdicts) for each pairwise judge run (MEDIC rule) and for the physicians."""
    out = []
    p = data.pairwise
    if not p.empty and "model_a" in p.columns:
        for run, g in p.groupby("run", sort=True):
            g = g.drop_duplicates(["a", "b", "order"], keep="last")
            verdicts = pd.DataFrame({
                "pair": g["a"].astype(np.int64).to_numpy() * (1 << 32) + g["b"].astype(np.int64).to_numpy(),
                "a": g["a"].to_numpy(), "b": g["b"].to_numpy(),
                "model_a": g["model_a"].to_numpy(dtype=object), "model_b": g["model_b"].to_numpy(dtype=object),
                "order": g["order"].astype(str).to_numpy(), "verdict": g["verdict"].astype(str).to_numpy(),
            })
            out.append((_run_label(data, run), J.medic_matches(verdicts), verdicts))
    if not human.empty:
        out.append((PHYSICIANS, J.single_matches(human), human))
    return out


def pairwise_tables(data: LabelData, human: pd.DataFrame, *, n_boot: int = N_BOOT, seed: int = BOOT_SEED) -> list[Table]:
    """Win rates, ratings with CIs, ranking agreement and position bias for judges and physicians.

    ``human``: physicians' first-round pairwise labels (columns a, b, model_a, model_b, order, verdict).
    """
    sources = _sources(data, human)
    if not sources:
        return []
    rating_rows, win_rows, bias_rows = [], [], []
    ratings: dict[str, pd.Series] = {}
    for name, table, verdicts in sources:
        m = table.matches
        if m.empty:
            continue
        res = J.bradley_terry(m, n_boot=n_boot, seed=seed)
        if res.ratings is not None:
            ratings[name] = res.ratings
        rating_rows.extend(_rating_rows(name, res, m, table))
        wr = J.win_rates(m)
        win_rows.extend({"source": name, **row} for row in wr.to_dict("records"))
        bias = J.position_bias(verdicts["a"], verdicts["b"], verdicts["order"], verdicts["verdict"])
        bias_rows.append({
            "source": name, "n_verdicts": int(len(verdicts)), "n_decided": bias.n_decided,
            "first_shown_win_share": bias.counts.first_shown_win_share,
            "ci_low": bias.ci[0] if bias.ci else None, "ci_high": bias.ci[1] if bias.ci else None,
            "p_value": bias.p_value, "n_both_orders": bias.counts.pairs_both_orders,
            "flip_rate": bias.counts.flip_share, "n_invalid": bias.counts.invalid + bias.counts.failed,
        })
    tables = [
        Table("pairwise_ratings", _("Pairwise ratings (Bradley-Terry on the Elo scale, MEDIC Fig. 5a)"),
              pd.DataFrame(rating_rows, columns=["source", "model", "rating", "ci_low", "ci_high", "n_matches",
                                                 "wins", "draws", "losses", "reason"]),
              _("Judges: a win only when the response wins in both presentation orders, otherwise a draw (MEDIC); "
                "pairs missing an order or with an invalid verdict are left out. Physicians: each first-round "
                "label is one match. Ratings: maximum likelihood, a draw = half a win, mean 1000, 400 points = "
                "10:1 odds; 95%% CI: percentile bootstrap over matches, %(n_boot)s replicates, seed %(seed)s.")
              % {"n_boot": n_boot, "seed": seed}),
        Table("pairwise_win_rates", _("Win rate per model pair"), pd.DataFrame(win_rows, columns=[
            "source", "model", "opponent", "n", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high",
            "score_rate"]), _("Win rate = wins / matches (a draw is not a win), Wilson 95% CI; "
                              "score rate counts a draw as half a win.")),
    ]
    if len(ratings) >= 2:
        agreement = J.ranking_agreement(ratings).drop(columns=["reason"])
        tables.append(Table("pairwise_ranking_agreement", _("Agreement between rankings (MEDIC Fig. 5b)"), agreement,
                            _("Spearman and Kendall τ-b between two sources' ratings, over the models both rated.")))
    tables.append(Table("pairwise_position_bias", _("Position bias: judges and physicians"), pd.DataFrame(
        bias_rows, columns=["source", "n_verdicts", "n_decided", "first_shown_win_share", "ci_low", "ci_high",
                            "p_value", "n_both_orders", "flip_rate", "n_invalid"]),
        _("Share of decided verdicts (A or B) won by the response shown first: 0.5 = no preference; Wilson 95% "
          "CI, two-sided exact binomial test. Physicians see each pair once, in the order their assignment "
          "recorded; on the selection's pairs.")))
    return tables


def _rating_rows(name: str, res: J.RatingResult, m: pd.DataFrame, table: J.MatchTable) -> list[dict[str, Any]]:
    models = sorted(set(m["model_a"]) | set(m["model_b"]), key=str)
    wins = {k: 0 for k in models}
    draws = dict(wins)
    losses = dict(wins)
    for a, b, s in m[["model_a", "model_b", "score"]].itertuples(index=False):
        if s == 0.5:
            draws[a] += 1
            draws[b] += 1
        else:
            winner, loser = (a, b) if s == 1.0 else (b, a)
            wins[winner] += 1
            losses[loser] += 1
    reason = res.reason or ""
    if table.n_incomplete or table.n_invalid:
        left_out = _("left out: %(incomplete)s without both orders, %(invalid)s with an invalid verdict") % {
            "incomplete": ngettext("%(n)s pair", "%(n)s pairs", table.n_incomplete) % {"n": table.n_incomplete},
            "invalid": table.n_invalid}
        reason = (cell_name(reason) + _("; ") if reason else "") + left_out
    rows = []
    for model in models:
        rating = res.ratings.get(model) if res.ratings is not None else None
        ci = res.ci.get(model) if res.ci else None
        rows.append({
            "source": name, "model": model, "rating": rating, "ci_low": ci[0] if ci else None,
            "ci_high": ci[1] if ci else None, "n_matches": wins[model] + draws[model] + losses[model],
            "wins": wins[model], "draws": draws[model], "losses": losses[model], "reason": reason,
        })
    return sorted(rows, key=lambda r: -(r["rating"] if r["rating"] is not None else -1e18))


def likert_tables(data: LabelData) -> list[Table]:
    """MEDIC's Likert tables: judge scores per axis, judge minus clinician, clinicians' AC2."""
    return [*judge_axis_table(data), *judge_vs_clinician_table(data), *clinician_ac2_table(data)]


def medic_tables(
    data: LabelData, human_pairwise: pd.DataFrame | None = None, *, likert: bool = True, pairwise: bool = True,
) -> list[Table]:
    """Every MEDIC table the selection's labels allow (none for a study without Likert or pairwise data).

    `likert` / `pairwise` False leave that family out (a study whose tasks are not of that kind).
    """
    human = human_pairwise if human_pairwise is not None else pd.DataFrame()
    return [*(likert_tables(data) if likert else []), *(pairwise_tables(data, human) if pairwise else [])]
