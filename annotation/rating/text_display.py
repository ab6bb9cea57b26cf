"""What a rater reads of an item's case text: the original, a translation, or both side by side.

The study decides (`Study.text_display`, default `auto`: both for a rater who reads the original's
language and the translation's, else the one they read). The rating records the version read
(`Rating.text_version`): the display, the original's language and the ids of the translations
shown, which are immutable rows, so the record stays true when better translations arrive.

Blinding: a translation carries no model or grader name; the rater sees its text and language only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser

from annotation.models import Item, Study
from annotation.models.translated import TextDisplay
from cases.models import TextTranslation
from cases.translations import same_language, shown_translations


@dataclass(frozen=True)
class TextView:
    """One rater's view of one item's text: which versions show and the translations by field key."""

    display: str  # a TextDisplay other than AUTO
    original_language: str
    translation_language: str
    translations: dict[str, TextTranslation] = field(default_factory=dict)

    @property
    def shows_original(self) -> bool:
        return self.display != TextDisplay.TRANSLATION or not self.translations

    @property
    def shows_translation(self) -> bool:
        return self.display in (TextDisplay.TRANSLATION, TextDisplay.BOTH) and bool(self.translations)

    def translation(self, key: str) -> TextTranslation | None:
        return self.translations.get(key) if self.shows_translation else None

    def record(self) -> dict:
        """What a rating stores in `text_version`."""
        return {
            "display": self.display if self.shows_translation else TextDisplay.ORIGINAL.value,
            "original_language": self.original_language,
            "translation_language": self.translation_language if self.shows_translation else "",
            "translations": sorted(t.pk for t in self.translations.values()) if self.shows_translation else [],
        }


def rater_languages(user: AbstractBaseUser) -> list[str]:
    profile = getattr(user, "profile", None)
    return list(getattr(profile, "languages", None) or [])


def resolve_display(study: Study, original_language: str, reads: list[str]) -> str:
    """The study's setting for one rater; `auto` becomes both / original / translation."""
    if study.text_display != TextDisplay.AUTO:
        return study.text_display
    reads_original = any(same_language(lang, original_language) for lang in reads)
    reads_translation = any(same_language(lang, study.translation_language) for lang in reads)
    if reads_translation and not reads_original and original_language:
        return TextDisplay.TRANSLATION
    if reads_original and not reads_translation:
        return TextDisplay.ORIGINAL
    return TextDisplay.BOTH  # bilingual, or languages unknown: show everything there is


def text_view_for(item: Item, rater: AbstractBaseUser) -> TextView:
    """The text `rater` reads on `item` (one query for the translations, none when not needed)."""
    study = item.study
    original = item.revision.language or ""
    target = study.translation_language or ""
    display = resolve_display(study, original, rater_languages(rater))
    if not target or same_language(original, target) or display == TextDisplay.ORIGINAL:
        return TextView(display=TextDisplay.ORIGINAL, original_language=original, translation_language=target)
    return TextView(display=display, original_language=original, translation_language=target,
                    translations=shown_translations(item.revision_id, target))
