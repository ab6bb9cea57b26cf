"""What a reader sees on a rendered page, with the language each piece is tagged with.

`interface_leaks(html, language)` walks the page's elements (Python's HTML parser), keeping the
nearest `lang` attribute, and returns the text a reader of `language` would see in the wrong
language: on a Chinese page, English words outside text tagged `lang="en..."`; on an English
page, Chinese characters outside text tagged `lang="zh..."`. Text read out too counts: `title`,
`alt`, `aria-label`, `placeholder`, and the page's <title>.

Not interface text: <script>, <style>, <code>, <kbd>, <pre> (identifiers, key names, file
formats), URLs, hashes and other tokens with digits, identifiers with an underscore
(`physician_review`, a file format's key), acronyms in capitals (AC1, CSV, LLM, TP),
and the names in `NAMES` (benchmarks, statistics, formats). A name people gave (a study, a
model, a pseudonym) is tagged with its own language on the page; where it also sits inside an
attribute or the <title> (which cannot hold a tag), the names tagged elsewhere on the page are
taken out before the check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

#: Names a Chinese reader sees in Latin letters: benchmarks and the product, statistics named after
#: people, file formats and tools. Anything else in Latin letters must be translated or tagged.
NAMES = frozenset({
    "medreview", "LiveMedBench", "LiveClin", "HealthBench", "ClinConsensus", "Gwet", "Gwet's", "Fleiss",
    "Fleiss'", "Pearson", "Spearman", "Kendall", "Wilson", "Bradley-Terry", "Elo", "Macro-F1", "kappa",
    "Fisher-z", "irrCAC", "statsmodels", "LaTeX", "Markdown", "OpenAI", "Schema", "token", "clip", "pe",
    "en", "zh", "Pass@τ", "CACS@τ", "Likert", "scipy",
})
SKIPPED_ELEMENTS = {"script", "style", "code", "kbd", "pre"}
READ_ATTRIBUTES = ("title", "alt", "aria-label", "placeholder")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}

_URL = re.compile(r"\b(?:https?://|www\.)\S+")
_TOKEN = re.compile(r"[A-Za-z0-9@'’._τ-]+")
_LETTERS = re.compile(r"[A-Za-z]{2}")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass
class Piece:
    where: str  # "text", "title", or the attribute's name
    text: str
    lang: str


@dataclass
class _Walker(HTMLParser):
    pieces: list[Piece] = field(default_factory=list)
    stack: list[tuple[str, str]] = field(default_factory=list)
    skipping: int = 0
    in_title: bool = False

    def __post_init__(self) -> None:
        super().__init__(convert_charrefs=True)

    def _lang(self) -> str:
        return next((lang for _tag, lang in reversed(self.stack) if lang), "")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        own = attributes.get("lang", "")
        for name in READ_ATTRIBUTES:
            if attributes.get(name) and not self.skipping:
                self.pieces.append(Piece(name, attributes[name], own or self._lang()))
        if tag in VOID:
            return
        self.stack.append((tag, own))
        self.skipping += tag in SKIPPED_ELEMENTS
        self.in_title = self.in_title or tag == "title"

    def handle_endtag(self, tag: str) -> None:
        if all(name != tag for name, _lang in self.stack):
            return  # a stray end tag closes nothing
        while self.stack:
            name, _lang = self.stack.pop()
            self.skipping -= name in SKIPPED_ELEMENTS
            if name == "title":
                self.in_title = False
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        if data.strip() and not self.skipping:
            self.pieces.append(Piece("title" if self.in_title else "text", data.strip(), self._lang()))


def pieces(html: str) -> list[Piece]:
    walker = _Walker()
    walker.feed(html)
    return walker.pieces


def _english_words(text: str) -> list[str]:
    """Runs of Latin letters that read as English words: not names, acronyms or tokens with digits."""
    words = []
    for token in _TOKEN.findall(_URL.sub(" ", text)):
        token = token.strip(".-_'’")
        if _LETTERS.search(token) and not any(c.isdigit() or c == "_" for c in token) and token not in NAMES \
                and not token.isupper():
            words.append(token)
    return words


def interface_leaks(html: str, language: str) -> list[str]:
    """Interface text in the wrong language for a reader of `language` ("zh-hans" or "en")."""
    found = pieces(html)
    tagged_names = sorted({p.text for p in found if p.where == "text" and p.lang and not p.lang.startswith(
        language[:2])}, key=len, reverse=True)
    leaks = []
    for piece in found:
        if piece.lang.startswith("en" if language.startswith("zh") else "zh"):
            continue  # text tagged with its own language
        text = piece.text
        if piece.where != "text":  # attributes and <title> cannot tag the names they quote
            for name in tagged_names:
                text = text.replace(name, " ")
        if language.startswith("zh"):
            words = _english_words(text)
            if words:
                leaks.append(f"{piece.where}: {' '.join(words)}  ← {piece.text[:120]}")
        elif _HAN.search(text):
            leaks.append(f"{piece.where}: {piece.text[:120]}")
    return leaks
