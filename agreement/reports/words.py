"""The words the report code writes into table cells (scopes, strata, scorers, grader kinds) and the
reasons the statistics give for an undefined value, in the reader's language.

The tables keep the English: charts, exports and tests compare against it; pages and the PDF show
`cell_words(text)` (agreement.reports.presentation), and notes built with a name in them use `cell_name`.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_noop
from django.utils.translation import gettext_lazy as _

from agreement.reports.base import CONSENSUS, PHYSICIANS
from graders.models import GraderKind

CELL_WORDS: dict[str, Any] = {
    "All": _("All"), "All models": _("All models"), CONSENSUS: _("Physician consensus"),
    PHYSICIANS: _("Physicians"), "Human inter-rater": _("Physicians with each other"), "physicians": _("physicians"),
    "(overall)": _("(overall)"), "Group A": _("Group A"), "Group B": _("Group B"),
    "group A by study design": _("group A by study design"), "group B by study design": _("group B by study design"),
    "Attending": _("Attending physicians"), "Senior (associate chief, chief)": _("Senior (associate chief, chief)"),
    "given": _("given"),
    # agreement.metrics (pure: no Django) explains an undefined value in English; these are its words.
    "no pairs": _("no pairs"),
    "F1(met) undefined: no met labels and no met predictions":
        _("F1(met) undefined: no met labels and no met predictions"),
    "F1(not met) undefined: no not-met labels and no not-met predictions":
        _("F1(not met) undefined: no not-met labels and no not-met predictions"),
    "no subject has two or more ratings: observed agreement undefined":
        _("no subject has two or more ratings: observed agreement undefined"),
    "only one category: chance agreement pe = 1, kappa = 0/0 undefined":
        _("only one category: chance agreement pe = 1, kappa = 0/0 undefined"),
    "only one category: value set to 1 (irrCAC convention); pe, se, ci and p undefined":
        _("only one category: value set to 1 (irrCAC convention); pe, se, ci and p undefined"),
    "a rater has no ratings: rater marginals undefined": _("a rater has no ratings: rater marginals undefined"),
    "only one category: expected disagreement is 0, alpha undefined":
        _("only one category: expected disagreement is 0, alpha undefined"),
    "a single subject: standard error undefined": _("a single subject: standard error undefined"),
    "p-value undefined": _("p-value undefined"),
    "no response scored by both": _("no response scored by both"),
    "one response: no interval": _("one response: no interval"),
    "every difference is equal": _("every difference is equal"),
    "no matches": _("no matches"), "one model only": _("one model only"),
    "a model never scored against the others: no finite ratings":
        _("a model never scored against the others: no finite ratings"),
    "fewer than two physicians share a decision": _("fewer than two physicians share a decision"),
    "no raters": _("no raters"), "no ratings": _("no ratings"), "no responses": _("no responses"),
    "fewer than two bootstrap replicates with a defined value":
        _("fewer than two bootstrap replicates with a defined value"),
    "chance agreement pe = 1 (all ratings in one category): coefficient is 0/0, undefined":
        _("chance agreement pe = 1 (all ratings in one category): coefficient is 0/0, undefined"),
    "chance agreement pe = 1 (raters used a single category): kappa is 0/0, undefined":
        _("chance agreement pe = 1 (raters used a single category): kappa is 0/0, undefined"),
    "no subject has two or more ratings": _("no subject has two or more ratings"),
    "fewer than 3 complete pairs": _("fewer than 3 complete pairs"),
    "constant input: correlation undefined": _("constant input: correlation undefined"),
    "correlation undefined": _("correlation undefined"),
    "no physician-written responses": _("no physician-written responses"),
    "no unit has two or more ratings": _("no unit has two or more ratings"),
    "expected disagreement is 0 (no variation in pairable values): alpha undefined":
        _("expected disagreement is 0 (no variation in pairable values): alpha undefined"),
    "Rubric Accuracy": _("Rubric Accuracy"),
    **{kind.value: kind.label for kind in GraderKind},
}

#: A report's counts (`Report.counts`) as a reader names them (the XLSX "About" sheet, the PDF cover).
COUNT_NAMES = {
    "ratings_round_1": gettext_noop("First-round ratings"), "ratings_later_rounds_not_used":
    gettext_noop("Later-round ratings (not used)"), "raters": gettext_noop("Raters"),
    "grader_decisions": gettext_noop("Grader decisions"), "judge_scores": gettext_noop("Judge scores"),
    "pairwise_judgements": gettext_noop("Pairwise verdicts"),
    "ratings_imported": gettext_noop("First-round ratings imported from outside medreview"),
}


#: Cells with a name or a number in them: (pattern, text with %(value)s).
CELL_PATTERNS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"Macro-F1 undefined against rater\(s\) (?P<value>.+)"),
     _("Macro-F1 undefined against rater(s) %(value)s")),
    (re.compile(r"grader a: (?P<value>.+)"), _("grader A: %(value)s")),
    (re.compile(r"grader b: (?P<value>.+)"), _("grader B: %(value)s")),
]


def _cell_word(text: str) -> str | None:
    if text in CELL_WORDS:
        return str(CELL_WORDS[text])
    for pattern, words in CELL_PATTERNS:
        if match := pattern.fullmatch(text):
            value = match.group("value")
            return str(words) % {"value": _cell_word(value) or value}
    return None


def cell_words(text: str) -> str | None:
    """A cell the report code wrote, in the reader's language ("; "-joined reasons part by part);
    None for anything else (names, strata, numbers)."""
    parts = text.split("; ")
    shown = [_cell_word(p) for p in parts]
    return gettext("; ").join(shown) if all(x is not None for x in shown) else None  # type: ignore[arg-type]


def cell_name(text: str) -> str:
    """A name the report code gave (a group, a scope) as the reader says it; other names unchanged."""
    return cell_words(text) or text
