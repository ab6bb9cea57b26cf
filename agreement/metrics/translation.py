"""Translation consistency (LiveClin Appendix H): physicians compare two translations of the same
text and say consistent / inconsistent. Reported: the consistency rate with a 95% Wilson interval,
pooled, per rater and per field type, and Gwet's AC1 between the raters (subjects = translated
fields, raters = physicians). Pure: pandas in, numbers out.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from agreement.metrics.coefficients import gwet_ac1
from agreement.metrics.judges import wilson_interval
from agreement.metrics.results import AgreementResult

CONSISTENT, INCONSISTENT = "consistent", "inconsistent"
CATEGORIES = (CONSISTENT, INCONSISTENT)


@dataclass(frozen=True)
class ConsistencyRate:
    consistent: int
    n: int
    value: float | None
    ci: tuple[float, float] | None

    def as_dict(self) -> dict:
        return {"consistent": self.consistent, "n": self.n, "value": self.value,
                "ci": list(self.ci) if self.ci else None}


@dataclass(frozen=True)
class TranslationConsistency:
    pooled: ConsistencyRate
    per_rater: dict[str, ConsistencyRate]
    per_field_type: dict[str, ConsistencyRate]
    ac1: AgreementResult


def consistency_rate(labels: pd.Series, *, confidence: float = 0.95) -> ConsistencyRate:
    """Share of `consistent` among the labels, with its Wilson score interval."""
    n = int(labels.size)
    k = int((labels == CONSISTENT).sum())
    return ConsistencyRate(consistent=k, n=n, value=k / n if n else None,
                           ci=wilson_interval(k, n, confidence=confidence))


def translation_consistency(ratings: pd.DataFrame, *, confidence: float = 0.95) -> TranslationConsistency:
    """`ratings`: one row per label, columns `rater`, `unit` (the translated field), `field_type`, `label`."""
    per_rater = {str(r): consistency_rate(g["label"], confidence=confidence)
                 for r, g in ratings.groupby("rater", sort=True)}
    per_type = {str(t): consistency_rate(g["label"], confidence=confidence)
                for t, g in ratings.groupby("field_type", sort=True)}
    matrix = ratings.pivot_table(index="unit", columns="rater", values="label", aggfunc="first")
    return TranslationConsistency(
        pooled=consistency_rate(ratings["label"], confidence=confidence),
        per_rater=per_rater,
        per_field_type=per_type,
        ac1=gwet_ac1(matrix, list(CATEGORIES), confidence=confidence),
    )
