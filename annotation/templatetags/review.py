"""Template helpers for the review pages: safe Markdown, safe image URLs, LiveClin details, durations."""

from typing import Any

from django import template
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.roles import rank_name
from medreview.text.safe_html import http_url, markdown_to_safe_html

register = template.Library()

# Guidelines and LiveClin tables are Markdown written by others (see medreview/text/safe_html.py).
register.filter("markdown_safe", markdown_to_safe_html)
register.filter("http_url", http_url)


@register.filter(name="detail_url")
def detail_url(detail: Any) -> str:
    """The http(s) URL of a LiveClin image/table detail record, whatever key the source used."""
    if isinstance(detail, str):
        return http_url(detail)
    if isinstance(detail, dict):
        for key in ("url", "image_url", "src", "link", "file"):
            url = http_url(detail.get(key))
            if url:
                return url
    return ""


@register.filter(name="detail_markdown")
def detail_markdown(detail: Any) -> str:
    """The Markdown of a LiveClin table detail record (tables keep their Markdown on import)."""
    if isinstance(detail, str):
        return detail
    if isinstance(detail, dict):
        for key in ("markdown", "table_markdown", "content", "table", "md"):
            value = detail.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return ""


@register.filter(name="detail_caption")
def detail_caption(detail: Any) -> str:
    if isinstance(detail, dict):
        for key in ("caption", "title", "label"):
            value = detail.get(key)
            if isinstance(value, str):
                return value
    return ""


@register.filter(name="seconds")
def seconds(value: Any) -> str:
    """A duration in the reader's language: "1 min 05 s" / "42 s" ("1 分 05 秒" / "42 秒"); "—" when
    unknown. Units are abbreviations, so one form serves every count (no plural)."""
    if value is None or value == "":
        return "—"
    try:
        total = int(round(float(value)))
    except (TypeError, ValueError):
        return "—"
    minutes, secs = divmod(total, 60)
    if minutes >= 60:
        hours, minutes = divmod(minutes, 60)
        return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": f"{minutes:02d}"}
    if minutes:
        return _("%(minutes)s min %(seconds)s s") % {"minutes": minutes, "seconds": f"{secs:02d}"}
    return _("%(seconds)s s") % {"seconds": secs}


@register.filter
def criterion_points(value: Any) -> str:
    """A criterion's signed points in the reader's language: "+6 pts", "-7 pts", "+1 pt" ("+6 分")."""
    points = int(value)
    sign = "+" if points > 0 else "-" if points < 0 else ""
    return ngettext("%(points)s pt", "%(points)s pts", abs(points)) % {
        "points": sign + number_format(abs(points))}


@register.filter(name="percent_of")
def percent_of(part: Any, whole: Any) -> int:
    try:
        part_f, whole_f = float(part), float(whole)
    except (TypeError, ValueError):
        return 0
    if whole_f <= 0:
        return 0
    return max(0, min(100, round(100 * part_f / whole_f)))


@register.filter(name="lookup")
def lookup(mapping: Any, key: Any) -> Any:
    """`mapping[key]` or None: per-field extras kept in a dict by field id (e.g. the Judge's pre-screen)."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.filter(name="rank_name")
def rank_name_filter(rank: Any) -> str:
    """A rank code as people read it, in the interface language ("associate_chief" -> "Associate Chief")."""
    return rank_name(str(rank or ""))
