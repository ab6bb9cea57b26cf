"""The terminology table of docs/i18n.md is the one the Chinese catalogue uses: each listed entry is
translated with the table's term, every entry naming a thing in English names it with its one
Chinese term, and no entry uses a retired word (评审者, 特权信息, 完美...)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from medreview.i18n.msgfmt import parse_po

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "i18n.md"
CATALOGUE = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
# Left out of the English before looking for a word: placeholders, HTML tags, quoted code.
_NOT_WORDS = re.compile(r"%\([^)]*\)[sd]|%[sd]|<[^>]*>|\{[^}]*\}|'[^']*'|“[^”]*”|`[^`]*`")


@dataclass(frozen=True)
class Term:
    english: str
    terms: tuple[str, ...]  # the Chinese term, or one per " / "-separated English state
    entries: tuple[str, ...]
    words: tuple[str, ...]
    retired: tuple[str, ...]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table() -> list[Term]:
    text = DOC.read_text(encoding="utf-8").split("## Terminology", 1)[1]
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    header, body = _cells(rows[0]), rows[2:]
    assert header == ["kind", "English", "中文", "entries", "every entry with", "not"], header
    terms = []
    for line in body:
        _kind, english, chinese, entries, words, retired = _cells(line)
        terms.append(Term(
            english, tuple(t.strip() for t in chinese.split(" / ")), tuple(re.findall(r"`([^`]+)`", entries)),
            tuple(w.strip() for w in words.split(",") if w.strip()),
            tuple(w.strip() for w in retired.split(",") if w.strip()),
        ))
    return terms


def catalogue() -> dict[str, list[str]]:
    """`{context}msgid` (or msgid) -> its translations."""
    out = {}
    for entry in parse_po(CATALOGUE.read_text(encoding="utf-8")):
        if entry["msgid"]:
            key = ("{" + entry["msgctxt"] + "}" if "msgctxt" in entry else "") + entry["msgid"]
            out[key] = [v for k, v in entry.items() if k.startswith("msgstr")]
    return out


TERMS = table()
CATALOGUE_ENTRIES = catalogue()


def test_the_table_is_read_whole():
    assert len(TERMS) > 60
    assert any(t.terms == ("标注医师",) for t in TERMS) and any("特权信息" in t.retired for t in TERMS)


@pytest.mark.parametrize("term", TERMS, ids=lambda t: t.english)
def test_it_translates_the_listed_entries_with_the_term(term: Term):
    wrong = {entry: CATALOGUE_ENTRIES.get(entry) for entry in term.entries
             if CATALOGUE_ENTRIES.get(entry) is None or not set(CATALOGUE_ENTRIES[entry]) <= set(term.terms)}
    assert wrong == {}, f"expected one of {term.terms}"


@pytest.mark.parametrize("term", [t for t in TERMS if t.words], ids=lambda t: t.english)
def test_every_entry_naming_the_thing_uses_the_term(term: Term):
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in term.words) + r")\b", re.IGNORECASE)
    wrong = {
        msgid: translations for msgid, translations in CATALOGUE_ENTRIES.items()
        if pattern.search(_NOT_WORDS.sub(" ", msgid.split("}", 1)[-1]))
        and not all(any(t in text for t in term.terms) for text in translations)
    }
    assert wrong == {}, f"these entries name {term.english!r} without {' / '.join(term.terms)}"


def test_no_entry_uses_a_retired_word():
    retired = {word: t.english for t in TERMS for word in t.retired}
    found = {msgid: [w for w in retired if any(w in text for text in texts)]
             for msgid, texts in CATALOGUE_ENTRIES.items()}
    assert {msgid: words for msgid, words in found.items() if words} == {}


def _catalogue_texts() -> dict[str, str]:
    """The shipped scales' and tasks' Chinese texts (annotation/catalogue/zh.py), by where they are."""
    from annotation.catalogue import zh

    texts = {}
    for table_name in ("SCALES", "CATEGORIES", "TASKS"):
        for key, fields in getattr(zh, table_name).items():
            for field_name, text in fields.items():
                texts[f"{table_name}[{key!r}].{field_name}"] = text
    return texts


def test_the_shipped_scales_and_tasks_use_no_retired_word():
    """The 0-2 scales read as a Chinese quality checklist (完全合格 / 基本合格 / 不合格), not 完美 / 良好 / 差."""
    retired = {word for t in TERMS for word in t.retired if word != "Judge"}
    found = {where: [w for w in retired if w in text] for where, text in _catalogue_texts().items()}
    assert {where: words for where, words in found.items() if words} == {}
    from annotation.catalogue import zh

    assert [zh.CATEGORIES[("quality-0-2", v)]["label"] for v in ("2", "1", "0")] == ["完全合格", "基本合格", "不合格"]
