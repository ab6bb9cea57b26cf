"""Agreement between expert groups and each grader against each group (ClinConsensus 6.1, Tables 3-4)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agreement import metrics
from agreement.reports.arrays import HumanMatrix, grader_arrays, human_matrix
from agreement.reports.base import LOW_CASE_MF1, SENIOR_RANKS, LabelData, Table, _run_label
from agreement.reports.words import cell_name
from agreement.selectors import (
    Selection,
    rater_ids_for_pseudonyms,
    study_rater_groups,
)


def designed_groups(selection: Selection) -> dict[int, str] | None:
    """The study's own groups (rater id -> "A" / "B") when the report would use them, else None.

    Read once per report (strata reuse it). Explicit pseudonyms and `group_by=rank` win; otherwise a
    study that put its raters in groups gets the group tables without being asked.
    """
    if (selection.group_a and selection.group_b) or selection.group_by == "rank" or selection.study_id is None:
        return None
    return study_rater_groups(selection.study_id)


def _groups(
    data: LabelData, selection: Selection, hm: HumanMatrix, designed: dict[int, str] | None,
) -> tuple[str, str, np.ndarray, np.ndarray] | None:
    """Rater-column masks of the two expert groups, or None when no grouping applies."""
    if selection.group_a and selection.group_b:
        a_ids = set(rater_ids_for_pseudonyms(selection.group_a))
        b_ids = set(rater_ids_for_pseudonyms(selection.group_b))
        names = ("Group A", "Group B")
    elif designed or (designed is not None and selection.group_by == "study"):
        a_ids = {uid for uid, g in designed.items() if g == "A"}
        b_ids = {uid for uid, g in designed.items() if g == "B"}
        names = ("group A by study design", "group B by study design")
    elif selection.group_by == "rank":
        a_ids = {uid for uid, info in data.raters.items() if info.rank not in SENIOR_RANKS}
        b_ids = {uid for uid, info in data.raters.items() if info.rank in SENIOR_RANKS}
        names = ("Attending", "Senior (associate chief, chief)")  # shown through agreement.presentation
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


def decision_rates(hm: HumanMatrix, mask: np.ndarray, pair_scope: np.ndarray, n_scopes: int) -> list[float | None]:
    """Met decisions / decisions of the group's raters (`mask` over rater columns): over every pair, then
    over the pairs of each scope (`pair_scope`: a scope number per pair, -1 for none).

    Every rating counts, as in the tau calibration's hit rate; a majority would hide split decisions.
    Counted for all scopes in one pass over the ratings (one pass per scope took 0.1 s at 10x
    ClinConsensus scale).
    """
    rows = mask[hm.rows_rater] & ~np.isnan(hm.rows_met)
    scope = np.where(pair_scope >= 0, pair_scope, n_scopes)[hm.rows_pair[rows]]
    met = np.bincount(scope, weights=hm.rows_met[rows], minlength=n_scopes + 1)
    count = np.bincount(scope, minlength=n_scopes + 1)
    totals = [(met.sum(), count.sum())] + list(zip(met[:n_scopes], count[:n_scopes], strict=True))
    return [float(m / n) if n else None for m, n in totals]


def expert_group_tables(
    data: LabelData, selection: Selection, designed: dict[int, str] | None = None,
) -> list[Table]:
    """ClinConsensus Tables 3-4 for the selection's groups; `designed`: `designed_groups(selection)`."""
    hm = human_matrix(data)
    groups = _groups(data, selection, hm, designed)
    if groups is None or hm.n_pairs == 0:
        return []
    name_a, name_b, mask_a, mask_b = groups
    ga, gb = group_labels(hm, mask_a), group_labels(hm, mask_b)
    both = ~np.isnan(ga) & ~np.isnan(gb)
    cell = np.where(both, 2 * np.nan_to_num(ga) + np.nan_to_num(gb), -1).astype(np.int64)
    rows = []
    # A model number per pair, through the responses (thousands) rather than the pairs' model names
    # (hundreds of thousands of Python strings, compared once per model).
    models = sorted({m for m in hm.response_model if m is not None})
    number = {m: k for k, m in enumerate(models)}
    response_scope = np.array([number.get(m, -1) for m in hm.response_model], dtype=np.int64)
    pair_scope = response_scope[hm.response_code] if hm.response_code.size else np.zeros(0, np.int64)
    scopes: list[tuple[str, np.ndarray]] = [("All models", np.ones(hm.n_pairs, bool))]
    scopes += [(model, pair_scope == k) for k, model in enumerate(models)]
    rates_a = decision_rates(hm, mask_a, pair_scope, len(models))
    rates_b = decision_rates(hm, mask_b, pair_scope, len(models))
    for (scope, pairs), rate_a, rate_b in zip(scopes, rates_a, rates_b, strict=True):
        mask = both & pairs
        res = metrics.macro_f1(ga[mask], gb[mask])
        # Case level: one confusion table per response, all at once.
        codes = hm.response_code[mask] * 4 + cell[mask]
        counts = np.bincount(codes, minlength=hm.responses.size * 4).reshape(-1, 4)
        present = counts.sum(axis=1) > 0
        case = metrics.macro_f1_from_counts(counts[present, 0], counts[present, 1], counts[present, 2], counts[present, 3])
        defined = case[~np.isnan(case)]
        rows.append({
            "scope": scope, "n_decisions": int(mask.sum()), "macro_f1": res.value,
            "positive_rate_a": rate_a, "positive_rate_b": rate_b,
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
    note = _("Group A = %(a)s (%(n_a)s), group B = %(b)s (%(n_b)s); group A is the reference. Positive rate = "
             "the group's met decisions / its decisions on the scope's criteria (every rating counted, like the "
             "tau calibration's hit rate).") % {
        "a": cell_name(name_a), "b": cell_name(name_b),
        "n_a": ngettext("%(n)s rater", "%(n)s raters", int(mask_a.sum())) % {"n": int(mask_a.sum())},
        "n_b": ngettext("%(n)s rater", "%(n)s raters", int(mask_b.sum())) % {"n": int(mask_b.sum())},
    }
    return [
        Table("expert_groups", _("Agreement between expert groups (ClinConsensus 6.1, Table 3)"), group_table, note),
        Table("grader_vs_groups", _("Each grader against each expert group (ClinConsensus Table 4)"), pd.DataFrame(
            vs_groups, columns=["grader", "macro_f1_group_a", "macro_f1_group_b", "average", "positive_rate",
                                "n_invalid"]), note),
    ]
