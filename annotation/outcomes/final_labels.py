"""The one place that decides an item's final label per field.

The ladder: the inspector's decision (adjudicated, or accepted), else the raters' unanimous
first-round label (written as a `consensus` final label when the policy resolved the item without
inspection, or read from the first round while the item still waits), else "unresolved". Every
export and the curation go through `decide_final_label`, and carry its `rule` and `source`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RULE_INSPECTOR = "inspector"
RULE_UNANIMOUS = "unanimous"
RULE_UNRESOLVED = "unresolved"
RULES = (RULE_INSPECTOR, RULE_UNANIMOUS, RULE_UNRESOLVED)

SOURCE_FIRST_ROUND = "first-round"  # unanimous, read from the ratings (no FinalLabel row yet)
INSPECTOR_SOURCES = ("adjudicated", "accepted")  # FinalLabel.Source values set by an inspector


@dataclass(frozen=True)
class FinalDecision:
    label: str | None  # None: unresolved
    rule: str
    source: str  # FinalLabel.Source value, "first-round", or "" when unresolved

    @property
    def resolved(self) -> bool:
        return self.label is not None


UNRESOLVED = FinalDecision(label=None, rule=RULE_UNRESOLVED, source="")


def decide_final_label(
    *, stored_label: str | None, stored_source: str | None, first_round: Sequence[str], raters_per_item: int,
) -> FinalDecision:
    """`stored_*`: the field's FinalLabel row, if any; `first_round`: the raters' round-1 labels.

    A unanimous first round needs every slot filled: one rater's label out of two is not agreement."""
    if stored_label is not None:
        rule = RULE_INSPECTOR if stored_source in INSPECTOR_SOURCES else RULE_UNANIMOUS
        return FinalDecision(label=stored_label, rule=rule, source=stored_source or "")
    if len(first_round) >= max(raters_per_item, 1) and len(set(first_round)) == 1:
        return FinalDecision(label=first_round[0], rule=RULE_UNANIMOUS, source=SOURCE_FIRST_ROUND)
    return UNRESOLVED
