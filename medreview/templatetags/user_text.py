"""Text people supplied (case text, criteria, names, model answers) in its own language.

A Chinese page is `lang="zh-hans"`; an English case report, a model's name or a study's title on it
must not inherit that (screen readers read it with Chinese rules, fonts pick Chinese glyphs), and
an English page must not claim a Chinese narrative is English. Case text records its language;
names do not, so their script decides (`medreview.text.script_language`).

    {{ study.name|own_lang }}                      <span lang="en">Demo study</span>
    {{ revision.narrative|own_lang:revision.language }}
    <option lang="{{ name|lang_of }}">             for attributes and elements that cannot hold a span
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import get_language_info
from django.utils.translation import gettext_lazy as _

from medreview.text import script_language

register = template.Library()


@register.filter
def lang_of(value: Any, declared: str = "") -> str:
    """The BCP 47 code of a text: the recorded one, else what its script says ("" for digits)."""
    return declared or script_language(str(value if value is not None else ""))


@register.filter
def own_lang(value: Any, declared: str = "") -> SafeString | str:
    """The text, escaped, in a span carrying its language (no span for text without letters)."""
    text = "" if value is None else str(value)
    language = lang_of(text, declared)
    return format_html('<span lang="{}">{}</span>', language, text) if language else text


#: Languages case text is commonly recorded in, by primary subtag (BCP 47 "zh", "zh-Hans", "en-GB"...).
LANGUAGE_NAMES = {"en": _("English"), "zh": _("Chinese")}


@register.filter
def language_name(code: str) -> str:
    """A recorded language code ("zh", "en-GB") as its name in the reader's language ("中文", "English")."""
    if not code:
        return "—"
    primary = code.split("-")[0].lower()
    if primary in LANGUAGE_NAMES:
        return str(LANGUAGE_NAMES[primary])
    try:
        return str(get_language_info(code.lower())["name_translated"])
    except KeyError:
        return code
