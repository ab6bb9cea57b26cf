"""Rendering text that others wrote (guidelines, imported LiveClin tables) without letting HTML through."""

from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe

_ALLOWED_TAGS = set(nh3.ALLOWED_TAGS)
_URL_SCHEMES = {"http", "https", "mailto"}


def markdown_to_safe_html(text: Any) -> SafeString:
    """Markdown (tables enabled) rendered to HTML and sanitised with nh3; never raw HTML through."""
    if not isinstance(text, str) or not text:
        return mark_safe("")  # noqa: S308 - empty string
    return _rendered(text)


# The same texts come back on every page (a study's guidelines, a task's instructions on each item of
# the rating loop): rendering them is a few milliseconds a page, remembering them a dictionary look-up.
# The result depends on the text alone; the bound keeps a process's memory in check.
@lru_cache(maxsize=512)
def _rendered(text: str) -> SafeString:
    html = markdown_lib.markdown(text, extensions=["tables", "sane_lists", "fenced_code"])
    cleaned = nh3.clean(html, tags=_ALLOWED_TAGS, url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer")
    return mark_safe(cleaned)  # noqa: S308 - output of nh3, the sanitiser


def http_url(value: Any) -> str:
    """The URL when it is http(s), else "" (no javascript:, data: or relative paths from imports)."""
    if not isinstance(value, str):
        return ""
    url = value.strip()
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return ""
    return url if scheme in {"http", "https"} else ""
