"""Template helpers for the data pages: imported Markdown (LiveClin tables) rendered safely."""

from typing import Any

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter(name="cases_markdown")
def cases_markdown(text: Any) -> SafeString:
    """Markdown rendered to HTML, then sanitised with nh3: imported text never brings raw HTML through."""
    if not isinstance(text, str) or not text:
        return mark_safe("")  # noqa: S308 - empty string
    html = markdown_lib.markdown(text, extensions=["tables", "sane_lists"])
    return mark_safe(nh3.clean(html, link_rel="noopener noreferrer"))  # noqa: S308 - nh3 output


@register.filter(name="http_url")
def http_url(value: Any) -> str:
    """Only http(s) links from imported image details; never javascript: or data: URLs."""
    if isinstance(value, str) and value.strip().lower().startswith(("http://", "https://")):
        return value.strip()
    return ""


@register.filter(name="get_item")
def get_item(mapping: Any, key: str) -> Any:
    return mapping.get(key, "") if isinstance(mapping, dict) else ""


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
    "grader_decisions": "Grader decisions",
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
