"""Template helpers for the data pages: imported Markdown (LiveClin tables) rendered safely, and the
words of an import report in the reader's language."""

from typing import Any

from django import template
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from medreview.safe_html import http_url, markdown_to_safe_html

register = template.Library()


# Imported Markdown (LiveClin tables) and image URLs: see medreview/safe_html.py.
register.filter("cases_markdown", markdown_to_safe_html)
register.filter("http_url", http_url)


@register.filter(name="table_markdown")
def table_markdown(table: Any) -> str:
    """LiveClin table details keep the table's Markdown; releases name that key differently."""
    if isinstance(table, str):
        return table
    if isinstance(table, dict):
        for key in ("markdown", "content", "table", "text"):
            if isinstance(table.get(key), str):
                return table[key]
    return ""


COUNT_LABELS = {
    "cases": gettext_lazy("New cases"), "revisions": gettext_lazy("New revisions of existing cases"),
    "criteria": gettext_lazy("Rubric criteria"), "question_sets": gettext_lazy("Question sets"),
    "mcqs": gettext_lazy("MCQs"), "responses": gettext_lazy("Model responses"),
    "grader_decisions": gettext_lazy("Grader decisions"), "judge_scores": gettext_lazy("Judge scores"),
    "pairwise_judgements": gettext_lazy("Pairwise verdicts"), "judgements": gettext_lazy("Judge verdicts"),
}


def _count_phrase(key: str, n: int) -> str:
    """'8 new cases' with the plural the language needs; None for counts no page names."""
    phrases = {
        "cases": lambda: ngettext("%(n)s new case", "%(n)s new cases", n),
        "revisions": lambda: ngettext("%(n)s new revision", "%(n)s new revisions", n),
        "criteria": lambda: ngettext("%(n)s rubric criterion", "%(n)s rubric criteria", n),
        "question_sets": lambda: ngettext("%(n)s question set", "%(n)s question sets", n),
        "mcqs": lambda: ngettext("%(n)s MCQ", "%(n)s MCQs", n),
        "responses": lambda: ngettext("%(n)s model response", "%(n)s model responses", n),
        "grader_decisions": lambda: ngettext("%(n)s grader decision", "%(n)s grader decisions", n),
    }
    return phrases[key]() % {"n": n} if key in phrases else ""


@register.filter(name="count_label")
def count_label(key: str) -> str:
    return str(COUNT_LABELS.get(key, key.replace("_", " ").capitalize()))


@register.filter(name="counts_summary")
def counts_summary(counts: Any) -> str:
    """'8 new cases, 41 rubric criteria' from a release's counts; zero counts left out."""
    if not isinstance(counts, dict):
        return ""
    parts = [_count_phrase(k, n) for k, n in counts.items() if n]
    # Translators: joins the counts of an import, e.g. "8 new cases, 41 rubric criteria".
    return _(", ").join(p for p in parts if p) or _("nothing new")


IMPORT_STATUS = {
    "dry-run": pgettext_lazy("import", "checked, nothing written yet"),
    "imported": pgettext_lazy("import", "imported"),
    "unchanged": pgettext_lazy("import", "already imported"),
    "refused": pgettext_lazy("import", "refused"),
    "failed": pgettext_lazy("import", "failed"),
}


@register.filter(name="import_status")
def import_status(status: str) -> str:
    """An import report's status word ("dry-run", "refused"...) as a reader says it."""
    return str(IMPORT_STATUS.get(status, status))


TURN_ROLES = {"user": gettext_lazy("Patient"), "assistant": gettext_lazy("Assistant"),
              "system": gettext_lazy("System prompt")}


@register.filter(name="turn_role")
def turn_role(role: str) -> str:
    """Who speaks in a HealthBench conversation turn."""
    return str(TURN_ROLES.get(role, role))
