"""Ranking stability between graders (ClinConsensus Table 15)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement import metrics
from agreement.reports.arrays import GraderArrays, HumanMatrix
from agreement.reports.base import CONSENSUS, LabelData, Table, _run_label


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
    scores_table = model_scores.reset_index()
    return [
        Table("model_scores", _("Model score per grader (mean case score)"), scores_table),
        Table("ranking_stability", _("Ranking stability between graders (ClinConsensus Table 15)"),
              metrics.ranking_stability(model_scores),
              _("Mean absolute difference of model scores in percentage points; ties in top-k broken by model "
                "name.")),
    ]
