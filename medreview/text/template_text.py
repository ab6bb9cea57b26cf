"""Find user-facing text in Django templates that is not marked for translation.

Used by the test that keeps the interface translatable (tests/i18n/test_templates_marked.py) and
by hand when marking a template. It walks Django's own template tokens: literal text outside tags
and the values of user-facing attributes (title, placeholder, aria-label, alt, ...) must sit inside
`{% translate %}` / `{% blocktranslate %}`. Not text: tag names and other attributes, `<script>`
and `<style>`, `<kbd>` / `<code>` contents (key names, identifiers), `{% comment %}`, `{# #}`, and
strings without a letter. Names that are the same in every language (medreview, LiveClin...) are in
`UNTRANSLATED`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from django.template.base import DebugLexer, TokenType

USER_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "aria-description", "data-confirm", "label"}
RAW_ELEMENTS = {"script", "style", "kbd", "code", "pre"}
UNTRANSLATED = {"medreview", "LiveMedBench", "LiveClin", "HealthBench", "ClinConsensus", "MEDIC", "CSV", "XLSX",
                "JSON", "JSONL", "LaTeX", "PDF", "AC1", "F1", "Macro-F1", "API", "SHA-256", "pts", "A", "B", "OK"}
_LETTER = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class Untranslated:
    line: int
    kind: str  # "text" or the attribute's name
    text: str
    start: int  # offsets in the template source
    end: int


def _wanted(text: str) -> bool:
    core = text.strip().strip(" ·←→()[]:;,|—–-/")
    return bool(_LETTER.search(core)) and core not in UNTRANSLATED and not core.startswith("&")


class _Scanner:
    """Character state machine over the TEXT tokens; template tags are opaque."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.found: list[Untranslated] = []
        self.in_tag = False
        self.tag_name = ""
        self.attr_name = ""
        self.quote = ""
        self.value_start = -1
        self.value_pure = True
        self.value_breaks: list[tuple[int, int]] = []
        self.raw: list[str] = []
        self.text_start = -1

    def _flush_text(self, end: int) -> None:
        if self.text_start >= 0 and not self.raw:
            chunk = self.source[self.text_start:end]
            if _wanted(chunk):
                lead = len(chunk) - len(chunk.lstrip())
                start = self.text_start + lead
                stop = start + len(chunk.strip())
                self.found.append(Untranslated(self.source.count("\n", 0, start) + 1, "text", chunk.strip(), start, stop))
        self.text_start = -1

    def opaque(self, start: int, end: int) -> None:
        """A template tag or variable: it splits text and makes an attribute value not a literal."""
        if self.in_tag:
            if self.quote:
                self.value_pure = False
                self.value_breaks.append((start, end))
            return
        self._flush_text(start)

    def text(self, start: int, end: int) -> None:
        for i in range(start, end):
            self._char(i, self.source[i])
        if not self.in_tag:
            self._flush_text(end)

    def _char(self, i: int, c: str) -> None:
        if not self.in_tag:
            if c == "<":
                self._flush_text(i)
                self.in_tag, self.tag_name, self.attr_name = True, "", ""
                self._tag_text_start = i + 1
            elif self.text_start < 0 and not c.isspace():
                self.text_start = i
            return
        if self.quote:
            if c == self.quote:
                self._end_value(i)
            return
        if c in "\"'":
            self.quote, self.value_start, self.value_pure, self.value_breaks = c, i + 1, True, []
        elif c == ">":
            self._end_tag(i)
        elif c == "=":
            pass
        elif c.isspace():
            if not self.tag_name:
                self.tag_name = self.source[self._tag_text_start:i].lower()
        else:
            if self.source[i - 1].isspace() or self.source[i - 1] in "\"'":
                self.attr_name = ""
            if self.tag_name:
                self.attr_name += c.lower()

    def _end_value(self, i: int) -> None:
        name = self.attr_name.rstrip("=")
        if name in USER_ATTRIBUTES and not self.raw:
            # The literal pieces of the value, between any template tags in it.
            edges = [self.value_start, *(x for span in self.value_breaks for x in span), i]
            for start, stop in zip(edges[::2], edges[1::2], strict=True):
                piece = self.source[start:stop]
                if _wanted(piece):
                    lead = len(piece) - len(piece.lstrip())
                    begin = start + lead
                    self.found.append(Untranslated(self.source.count("\n", 0, begin) + 1, name, piece.strip(),
                                                   begin, begin + len(piece.strip())))
        self.quote = ""

    def _end_tag(self, i: int) -> None:
        if not self.tag_name:
            self.tag_name = self.source[self._tag_text_start:i].lower().rstrip("/")
        name = self.tag_name.strip()
        self.in_tag = False
        if name.startswith("/"):
            if self.raw and self.raw[-1] == name[1:]:
                self.raw.pop()
        elif name in RAW_ELEMENTS:
            self.raw.append(name)


def untranslated(source: str) -> list[Untranslated]:
    """Every unmarked user-facing string of a template's source, in order."""
    scanner = _Scanner(source)
    skip_until = ""
    for token in DebugLexer(source).tokenize():
        start, end = token.position
        if token.token_type == TokenType.BLOCK:
            head = token.contents.split()[0] if token.contents.split() else ""
            if skip_until:
                if head == skip_until:
                    skip_until = ""
                continue
            if head in ("blocktranslate", "blocktrans", "comment", "verbatim"):
                skip_until = {"blocktranslate": "endblocktranslate", "blocktrans": "endblocktrans",
                              "comment": "endcomment", "verbatim": "endverbatim"}[head]
            scanner.opaque(start, end)
        elif skip_until:
            continue
        elif token.token_type == TokenType.TEXT:
            scanner.text(start, end)
        else:
            scanner.opaque(start, end)
    return scanner.found


def scan_templates(root: Path) -> dict[str, list[Untranslated]]:
    out = {}
    for path in sorted(root.rglob("*.html")):
        found = untranslated(path.read_text(encoding="utf-8"))
        if found:
            out[str(path.relative_to(root))] = found
    return out
