"""Position bias of a pairwise judge: does its verdict depend on which response it was shown first?

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: Verdicts that decide a pair (``tie`` included); ``invalid`` and ``failed`` are counted apart.
VALID_PAIRWISE = ("A", "B", "tie")


@dataclass(frozen=True)
class PairwisePositionBias:
    """Counts of one judge's judgements; shares are None when undefined."""

    pairs: int  # distinct (response_a, response_b) pairs judged at least once
    pairs_both_orders: int  # pairs with a valid verdict (A / B / tie) in both orders
    flips: int  # of those, pairs whose verdict differs between the orders
    flip_share: float | None  # flips / pairs_both_orders
    judgements: int  # valid verdicts
    first_shown_wins: int  # decided verdicts (A or B) won by the response shown first
    first_shown_win_share: float | None  # first_shown_wins / decided verdicts: 0.5 = no preference
    invalid: int
    failed: int


def pairwise_position_bias(response_a: Any, response_b: Any, order: Any, verdict: Any) -> PairwisePositionBias:
    """Position bias over one judge's judgements, given as four equal-length sequences.

    ``order`` is ``"ab"`` (response A shown first) or ``"ba"``; ``verdict`` is ``"A"``, ``"B"``,
    ``"tie"``, ``"invalid"`` or ``"failed"``, always in terms of response A / B whatever the order
    shown, so a consistent judge gives the same verdict in both orders. When a pair was judged twice
    in the same order, the later judgement counts. Invalid and failed judgements are counted, never
    dropped silently.
    """
    frame = pd.DataFrame({
        "a": np.asarray(response_a), "b": np.asarray(response_b),
        "order": np.asarray(order, dtype=object), "verdict": np.asarray(verdict, dtype=object),
    })
    valid = frame[frame["verdict"].isin(VALID_PAIRWISE)]
    decided = valid[valid["verdict"] != "tie"]
    first = ((decided["order"] == "ab") & (decided["verdict"] == "A")) | (
        (decided["order"] == "ba") & (decided["verdict"] == "B"))
    latest = valid.drop_duplicates(["a", "b", "order"], keep="last")
    wide = latest.pivot(index=["a", "b"], columns="order", values="verdict") if len(latest) else pd.DataFrame()
    both = wide.dropna(subset=["ab", "ba"]) if {"ab", "ba"} <= set(wide.columns) else wide.iloc[0:0]
    flips = int((both["ab"] != both["ba"]).sum()) if len(both) else 0
    n_both, n_first = int(len(both)), int(first.sum())
    return PairwisePositionBias(
        pairs=int(len(frame[["a", "b"]].drop_duplicates())),
        pairs_both_orders=n_both,
        flips=flips,
        flip_share=flips / n_both if n_both else None,
        judgements=int(len(valid)),
        first_shown_wins=n_first,
        first_shown_win_share=n_first / len(decided) if len(decided) else None,
        invalid=int((frame["verdict"] == "invalid").sum()),
        failed=int((frame["verdict"] == "failed").sum()),
    )
