"""Krippendorff's alpha (nominal, ordinal, interval).

Pure functions over numpy arrays: no Django import, no database access.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from agreement.metrics.encoding import _is_numeric_label, count_matrix, encode_ratings
from agreement.metrics.results import AlphaResult

# ---------------------------------------------------------------------------
# Krippendorff's alpha
# ---------------------------------------------------------------------------


def krippendorff_alpha(
    ratings: Any,
    level: str = "nominal",
    categories: Sequence[Any] | None = None,
) -> AlphaResult:
    """Krippendorff's alpha from coincidences; matches the ``krippendorff`` package.

    ``level``: ``"nominal"``, ``"ordinal"`` (rank metric on the ordered
    ``categories``) or ``"interval"`` (squared difference of numeric values).
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError("level must be 'nominal', 'ordinal' or 'interval'")
    codes, cats = encode_ratings(ratings, categories)
    V = len(cats)
    counts = count_matrix(codes, V).astype(float)
    m = counts.sum(axis=1)
    n_units = int((m > 0).sum())
    pairable = m >= 2
    n_pairable = int(m[pairable].sum())
    if not pairable.any():
        return AlphaResult(None, None, None, level, n_units, 0, "no unit has two or more ratings")
    if V < 2:
        return AlphaResult(
            None,
            None,
            None,
            level,
            n_units,
            n_pairable,
            "only one category: expected disagreement is 0, alpha undefined",
        )
    c = counts[pairable]
    cw = c / (m[pairable] - 1)[:, None]
    o = cw.T @ c - np.diag(cw.sum(axis=0))
    n_v = o.sum(axis=0)
    n_tot = n_v.sum()
    e = (np.outer(n_v, n_v) - np.diag(n_v)) / (n_tot - 1)
    idx = np.arange(V)
    if level == "nominal":
        d = (idx[:, None] != idx[None, :]).astype(float)
    elif level == "interval":
        if not all(_is_numeric_label(x) for x in cats):
            raise ValueError("interval level needs numeric categories")
        x = np.asarray([float(v) for v in cats])
        d = (x[:, None] - x[None, :]) ** 2
    else:
        cum = np.concatenate([[0.0], np.cumsum(n_v)])
        lo = np.minimum(idx[:, None], idx[None, :])
        hi = np.maximum(idx[:, None], idx[None, :])
        d = (cum[hi + 1] - cum[lo] - (n_v[lo] + n_v[hi]) / 2) ** 2
    do = float((o * d).sum())
    de = float((e * d).sum())
    if not de > 0:
        return AlphaResult(
            None,
            do,
            de,
            level,
            n_units,
            n_pairable,
            "expected disagreement is 0 (no variation in pairable values): alpha undefined",
        )
    return AlphaResult(1 - do / de, do / n_tot, de / n_tot, level, n_units, n_pairable)
