"""`{% bilingual text_view key text %}`: one field of case text in its own language, beside its
translation when the rater's study shows both (annotation.rating.text_display). Every block carries its
own `lang`, so Chinese never inherits the page's `lang="en"` (fonts, screen readers)."""

from __future__ import annotations

from typing import Any

from django import template

from annotation.fields import axis_label
from annotation.rating.text_display import TextView

register = template.Library()


@register.inclusion_tag("rating/_bilingual.html")
def bilingual(text_view: TextView | None, key: str, text: str, language: str = "", css: str = "") -> dict[str, Any]:
    original_language = language or (text_view.original_language if text_view else "")
    translation = text_view.translation(key) if text_view else None
    return {
        "text": text,
        "language": original_language,
        "translation": translation,
        "show_original": text_view is None or text_view.shows_original or translation is None,
        "css": css,
    }


@register.filter
def text_language(text_view: TextView | None, fallback: str = "") -> str:
    """The language of original text on the page (for `lang` attributes of inline fields)."""
    return (text_view.original_language if text_view else "") or fallback


@register.filter
def stem_key(mcq: Any) -> str:
    return f"mcq:{mcq.pk}:stem"


@register.filter
def option_key(mcq: Any, letter: str) -> str:
    return f"mcq:{mcq.pk}:option:{letter}"


@register.filter
def criterion_key(criterion: Any) -> str:
    return f"criterion:{criterion.pk}"


@register.simple_tag
def translation_of(text_view: TextView | None, key: str) -> Any:
    """The translation shown for `key` (None when this rater reads the original only)."""
    return text_view.translation(key) if text_view else None


@register.filter(name="axis_label")
def axis_label_filter(axis: str) -> str:
    """A shipped axis name (Accuracy, Safety, Patient safety...) in the interface language."""
    return axis_label(axis)
