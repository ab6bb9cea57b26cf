"""Shipped scale and task texts in the rater's language (the `translations` column), and the
study's choice of which case text a rater reads.

The English text is the row's own column (`name`, `label`, `description`, `instructions`); other
languages live in the row's `translations` ({"zh-hans": {"name": ...}}), written by data
migrations from `annotation.catalogue.zh` and editable in the Django admin.
"""

from __future__ import annotations

from django.db import models
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

TRANSLATIONS_HELP = 'Texts in other interface languages: {"zh-hans": {"name": "...", "description": "..."}}'


class TextDisplay(models.TextChoices):
    AUTO = "auto", _("Both side by side for bilingual raters, else what the rater reads")
    ORIGINAL = "original", _("Original only")
    TRANSLATION = "translation", _("Translation only (the original where none exists)")
    BOTH = "both", _("Original and translation side by side")


class Translated:
    """Mixin: `obj.tr("name")` is the field in the active interface language (English otherwise)."""

    translations: dict

    def tr(self, field: str) -> str:
        language = (get_language() or "").lower()
        texts = (self.translations or {}).get(language) or {}
        return texts.get(field) or getattr(self, field)

    @property
    def shown_name(self) -> str:
        return self.tr("name")

    @property
    def shown_label(self) -> str:
        return self.tr("label")

    @property
    def shown_description(self) -> str:
        return self.tr("description")

    @property
    def shown_instructions(self) -> str:
        return self.tr("instructions")
