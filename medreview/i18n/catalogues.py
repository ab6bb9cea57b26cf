"""The interface's translation catalogues on disk: which `.po` each language needs, compiled or not.

Django serves a language only from its compiled `.mo`; the repository holds the `.po` sources.
`manage.py compile_catalogues` compiles them (pure Python, `medreview.i18n.msgfmt`) and the deploy check
(`medreview.i18n.checks`) refuses a server whose `.mo` files are missing or older than their `.po`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.utils.translation import to_locale


@dataclass(frozen=True)
class Catalogue:
    language: str  # Django's code, e.g. "zh-hans"
    po: Path
    mo: Path

    @property
    def problem(self) -> str:
        """Why this catalogue is not served as written ("" when its .mo is current)."""
        if not self.mo.exists():
            return "not compiled"
        if self.mo.stat().st_mtime < self.po.stat().st_mtime:
            return "compiled from an older .po"
        return ""


#: The language the interface is written in: its text is the msgids, so it needs no catalogue.
SOURCE_LANGUAGE = "en"


def translated_languages() -> list[str]:
    """Every interface language except the one the code is written in."""
    return [code for code, _name in settings.LANGUAGES if code.split("-")[0] != SOURCE_LANGUAGE]


def catalogues(language: str) -> list[Catalogue]:
    """The .po files of one language under every LOCALE_PATHS directory."""
    found = []
    for root in settings.LOCALE_PATHS:
        for po in sorted((Path(root) / to_locale(language) / "LC_MESSAGES").glob("*.po")):
            found.append(Catalogue(language, po, po.with_suffix(".mo")))
    return found
