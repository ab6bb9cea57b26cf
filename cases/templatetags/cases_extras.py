"""Template helpers for the data pages: imported Markdown (LiveClin tables) rendered safely."""

from typing import Any

from django import template

from medreview.text.safe_html import http_url, markdown_to_safe_html

register = template.Library()


# Imported Markdown (LiveClin tables) and image URLs: see medreview/text/safe_html.py.
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
    "cases": "New cases", "revisions": "New revisions of existing cases", "criteria": "Rubric criteria",
    "question_sets": "Question sets", "mcqs": "MCQs", "responses": "Model responses",
    "grader_decisions": "Grader decisions", "ai_labels": "AI labels",
}


@register.filter(name="count_label")
def count_label(key: str) -> str:
    return COUNT_LABELS.get(key, key.replace("_", " ").capitalize())


@register.filter(name="counts_summary")
def counts_summary(counts: Any) -> str:
    """'8 new cases, 41 rubric criteria' from a release's counts; zero counts left out."""
    if not isinstance(counts, dict):
        return ""
    parts = [f"{n} {_lower(count_label(k))}" for k, n in counts.items() if k in COUNT_LABELS and n]
    return ", ".join(parts) or "nothing new"


def _lower(label: str) -> str:
    return label if label == "MCQs" else label.lower()
