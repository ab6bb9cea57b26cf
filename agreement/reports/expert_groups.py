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


def _groups(data: LabelData, selection: Selection, hm: HumanMatrix) -> tuple[str, str, np.ndarray, np.ndarray] | None:
    """Rater-column masks of the two expert groups, or None when no grouping applies."""
    if selection.group_a and selection.group_b:
        a_ids = set(rater_ids_for_pseudonyms(selection.group_a))
        b_ids = set(rater_ids_for_pseudonyms(selection.group_b))
        names = ("Group A", "Group B")
    elif selection.group_by == "study" and selection.study_id is not None:
        designed = study_rater_groups(selection.study_id)
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
    note = _("Group A = %(a)s (%(n_a)s), group B = %(b)s (%(n_b)s); group A is the reference.") % {
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
