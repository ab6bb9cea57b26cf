"""What an import created or left alone, as a reader says it: "8 new cases, 41 rubric criteria".

Shared by the data pages (`cases_extras`) and `manage.py import_cases`; the report itself keeps
its keys (`cases`, `criteria`...) for scripts and the API.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

#: A count's subject, as a table row names it.
THINGS = {
    "cases": _("Cases"), "revisions": _("Case revisions"), "criteria": _("Rubric criteria"),
    "question_sets": _("Question sets"), "mcqs": _("MCQs"), "responses": _("Model responses"),
    "grader_decisions": _("Grader decisions"), "judge_scores": _("Judge scores"),
    "pairwise_judgements": _("Pairwise verdicts"), "judgements": _("Judge verdicts"), "ai_labels": _("AI labels"),
}
#: What an import created, where "new" matters (cases and revisions of existing cases).
CREATED = {"cases": _("New cases"), "revisions": _("New revisions of existing cases")}


def thing_label(key: str) -> str:
    return str(THINGS.get(key, key.replace("_", " ")))


def created_label(key: str) -> str:
    return str(CREATED.get(key) or THINGS.get(key, key.replace("_", " ")))


def _phrase(key: str, n: int) -> str:
    """'8 new cases' with the plural the language needs; "" for counts no page names."""
    phrases = {
        "cases": lambda: ngettext("%(n)s new case", "%(n)s new cases", n),
        "revisions": lambda: ngettext("%(n)s new revision", "%(n)s new revisions", n),
        "criteria": lambda: ngettext("%(n)s rubric criterion", "%(n)s rubric criteria", n),
        "question_sets": lambda: ngettext("%(n)s question set", "%(n)s question sets", n),
        "mcqs": lambda: ngettext("%(n)s MCQ", "%(n)s MCQs", n),
        "responses": lambda: ngettext("%(n)s model response", "%(n)s model responses", n),
        "grader_decisions": lambda: ngettext("%(n)s grader decision", "%(n)s grader decisions", n),
        "judge_scores": lambda: ngettext("%(n)s judge score", "%(n)s judge scores", n),
        "pairwise_judgements": lambda: ngettext("%(n)s pairwise verdict", "%(n)s pairwise verdicts", n),
        "ai_labels": lambda: ngettext("%(n)s AI label", "%(n)s AI labels", n),
    }
    return phrases[key]() % {"n": n} if key in phrases else ""


def counts_summary(counts: Any) -> str:
    """'8 new cases, 41 rubric criteria' from a release's or an import's counts; zeros left out."""
    if not isinstance(counts, dict):
        return ""
    parts = [_phrase(k, n) for k, n in counts.items() if isinstance(n, int) and n]
    # Translators: joins the counts of an import, e.g. "8 new cases, 41 rubric criteria".
    return gettext(", ").join(p for p in parts if p) or gettext("nothing new")
