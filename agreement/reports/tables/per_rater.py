"""Each rater against the others, per task: rows of the `per_rater` table (statistics in `agreement.metrics`)."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from agreement import metrics


class _Pseudonyms(Protocol):
    def pseudonym(self, rater_id: int) -> str: ...


def _per_rater_rows(
    data: _Pseudonyms, slug: str, matrix: np.ndarray, column: np.ndarray, cats: list[str], rater_ids: np.ndarray
) -> list[dict[str, Any]]:
    """Each rater against the others on one task, for all raters at once (`metrics.per_rater_agreement`)."""
    met = cats.index("met") if set(cats) == {"met", "not_met"} else None
    res = metrics.per_rater_agreement(matrix, column, len(cats), int(rater_ids.size), met=met)
    if res is None:
        return []
    return [
        {
            "task": slug,
            "rater": data.pseudonym(rater_id),
            "n_labels": res.n_labels[k],
            "n_shared": res.n_shared[k],
            "agreement_with_others": res.agreement_with_others[k],
            "ac1_vs_others_majority": res.ac1_vs_others_majority[k],
            "macro_f1_vs_others_majority": res.macro_f1_vs_others_majority[k],
            "ac1_without_rater": res.ac1_without_rater[k],
        }
        for k, rater_id in enumerate(rater_ids)  # loop over raters, never over subjects
    ]
