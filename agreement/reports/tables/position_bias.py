"""Position bias of pairwise judges (`metrics.pairwise_position_bias` over each whole run)."""

from __future__ import annotations

import pandas as pd
from django.utils.translation import gettext as _

from agreement import metrics
from agreement.reports.base import LabelData, Table, _run_label
from agreement.selectors import pairwise_run_frame

POSITION_BIAS_COLUMNS = [
    "grader", "n_pairs", "n_both_orders", "n_flips", "flip_rate", "first_shown_win_share", "n_invalid", "n_failed",
]


def position_bias_table(data: LabelData) -> list[Table]:
    """Position bias of each pairwise judge with judgements on the selection's responses.

    Counted over each whole run (all of the judge's judgements, not only the selection's), so a
    judge has one figure whatever the filters.
    """
    p = data.pairwise
    if p.empty:
        return []
    whole = pairwise_run_frame(sorted(int(r) for r in p["run"].unique()))
    rows = []
    for run, judged in whole.groupby("run", sort=True):
        bias = metrics.pairwise_position_bias(judged["a"], judged["b"], judged["order"], judged["verdict"])
        rows.append({
            "grader": _run_label(data, run), "n_pairs": bias.pairs, "n_both_orders": bias.pairs_both_orders,
            "n_flips": bias.flips, "flip_rate": bias.flip_share, "first_shown_win_share": bias.first_shown_win_share,
            "n_invalid": bias.invalid, "n_failed": bias.failed,
        })
    return [Table("position_bias", _("Pairwise judge position bias"), pd.DataFrame(rows, columns=POSITION_BIAS_COLUMNS),
                  _("Over each whole pairwise run: a flip is a different verdict when the two responses swap places; "
                    "a first-shown win share of 0.5 means no position preference."))]
