"""Template helpers for the data pages: imported Markdown (LiveClin tables) rendered safely, and the
words of an import report in the reader's language."""

from typing import Any

from django import template
from django.utils.translation import gettext_lazy, pgettext_lazy

from cases.importers.counts import counts_summary, created_label, thing_label
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


register.filter("counts_summary", counts_summary)
register.filter("created_label", created_label)
register.filter("thing_label", thing_label)


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
