"""The translation-consistency report of a study (LiveClin Appendix H; docs/i18n.md): consistency
rate with a 95% Wilson interval, pooled, per rater (by pseudonym) and per field type, and Gwet's AC1
between the raters. First-round ratings only, as every agreement report."""

from __future__ import annotations

from typing import Any

import pandas as pd

from agreement.metrics.translation import TranslationConsistency, translation_consistency
from annotation.catalogue import TRANSLATION_CONSISTENCY
from annotation.models import Assignment, Rating, Study

FIELD_TYPES = {"narrative": "narrative", "query": "query", "advice": "advice", "scenario": "scenario",
               "criterion": "criterion"}


def field_type(field_key: str) -> str:
    """`translation:criterion:12` -> criterion; `translation:mcq:3:option:B` -> mcq_option."""
    parts = field_key.split(":")[1:]
    if parts and parts[0] == "mcq":
        return "mcq_option" if "option" in parts else "mcq_stem"
    return FIELD_TYPES.get(parts[0], parts[0]) if parts else "unknown"


def consistency_ratings(study: Study) -> pd.DataFrame:
    """One row per first-round label of the study's translation-consistency fields."""
    rows = (
        Rating.objects.filter(
            assignment__item__study=study, task__slug=TRANSLATION_CONSISTENCY.slug, round=1,
            assignment__state__in=Assignment.RATED_STATES,
        )
        .values_list("assignment__rater__profile__pseudonym", "assignment__item_id", "field_key", "label")
    )
    data = [
        {"rater": pseudonym, "unit": f"{item_id}|{key}", "field_type": field_type(key), "label": label}
        for pseudonym, item_id, key, label in rows
    ]
    return pd.DataFrame(data, columns=["rater", "unit", "field_type", "label"])


def translation_consistency_report(study: Study) -> TranslationConsistency | None:
    ratings = consistency_ratings(study)
    return translation_consistency(ratings) if len(ratings) else None


def report_as_dict(result: TranslationConsistency | None) -> dict[str, Any]:
    if result is None:
        return {"pooled": None, "per_rater": {}, "per_field_type": {}, "ac1": None}
    ac1 = result.ac1
    return {
        "pooled": result.pooled.as_dict(),
        "per_rater": {k: v.as_dict() for k, v in result.per_rater.items()},
        "per_field_type": {k: v.as_dict() for k, v in result.per_field_type.items()},
        "ac1": {"value": ac1.value, "ci": list(ac1.ci) if ac1.ci else None, "pa": ac1.pa, "pe": ac1.pe,
                "reason": ac1.reason},
    }
