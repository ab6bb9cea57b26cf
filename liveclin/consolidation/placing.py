"""Which rule places a label (pure: no Django, so the rules are tested on plain data).

An explicit mapping names a label exactly (any case, surrounding spaces ignored) and wins; else the
first keyword rule (in order) whose keyword the label contains, any case, as whole words
("CT" places "CT Angiography" but not "Doctor's note"). A label no rule places is unplaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

KEYWORD, MAPPING = "keyword", "mapping"


@dataclass(frozen=True)
class Rule:
    kind: str  # keyword | mapping
    pattern: str
    category: str  # the intermediate category's code
    order: int = 0
    id: int | None = None


def normalise(label: str) -> str:
    return " ".join(label.split()).casefold()


def _matches(rule: Rule, label: str) -> bool:
    words = re.escape(normalise(rule.pattern))
    return re.search(rf"(?<!\w){words}(?!\w)", normalise(label)) is not None


def place(label: str, rules: Sequence[Rule]) -> Rule | None:
    """The rule that places `label`, or None."""
    key = normalise(label)
    for rule in rules:
        if rule.kind == MAPPING and normalise(rule.pattern) == key:
            return rule
    for rule in sorted((r for r in rules if r.kind == KEYWORD), key=lambda r: r.order):
        if _matches(rule, label):
            return rule
    return None


def place_all(labels: Iterable[str], rules: Sequence[Rule]) -> dict[str, Rule | None]:
    return {label: place(label, rules) for label in labels}
