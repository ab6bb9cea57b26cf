"""Which node of a taxonomy level an AI label names.

LiveClin's classifier wrote its labels as the prompt's options read (App. E, Fig. 9-10):
"Chapter 2: Neoplasms", "Malignant neoplasms of bone and articular cartilage (C40-C41)",
"C41 Malignant neoplasm of bone and articular cartilage of other and unspecified sites". A label is
resolved, in this order, by: its explicit code; the whole text as a code or range; "Chapter N";
a range in parentheses at the end; a leading code ("G01* ...", "C41.0 ..." -> C41 when the level
has no C41.0); a node's English or Chinese name or alias. No Django import.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from cases.taxonomies import icd10

_CHAPTER = re.compile(r"^(?:chapter|ch\.?|§)\s*([0-9]+|[IVXL]+)\b", re.IGNORECASE)
_TRAILING_RANGE = re.compile(r"\(([^()]+)\)\s*$")
_LEADING_CODE = re.compile(r"^([A-Z][0-9]{2}(?:\.[0-9A-Z]{1,4})?)[*†+]?(?:\s|$|:)")
_SPACES = re.compile(r"\s+")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50}


def _roman(text: str) -> str:
    values = [_ROMAN[c] for c in text.upper()]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return str(total)


def _key(text: str) -> str:
    return _SPACES.sub(" ", text).strip().casefold()


@dataclass(frozen=True)
class IndexedNode:
    id: int
    level: int
    code: str
    names: tuple[str, ...]  # name, name_zh and aliases


@dataclass
class NodeIndex:
    """Lookup tables of one taxonomy, built once per import."""

    by_code: dict[tuple[int, str], int] = field(default_factory=dict)
    by_name: dict[tuple[int, str], int] = field(default_factory=dict)

    @classmethod
    def build(cls, nodes: Iterable[IndexedNode]) -> NodeIndex:
        index = cls()
        for node in nodes:
            index.by_code[(node.level, node.code.upper())] = node.id
            for name in node.names:
                if name.strip():
                    index.by_name.setdefault((node.level, _key(name)), node.id)
        return index

    def _code(self, level: int, text: str) -> int | None:
        text = text.strip().upper()
        found = self.by_code.get((level, text))
        if found is None:
            try:
                found = self.by_code.get((level, icd10.normalise_range(text)))
            except ValueError:
                return None
        return found

    def _leading_code(self, level: int, text: str) -> int | None:
        match = _LEADING_CODE.match(text.strip())
        if not match:
            return None
        code = match.group(1)
        return self._code(level, code) or (self._code(level, code.split(".")[0]) if "." in code else None)

    def resolve(self, level: int, value: str, code: str = "") -> int | None:
        """The node id the label names on `level`, or None."""
        if code.strip():
            return self._code(level, code)
        text = value.strip()
        found = self._code(level, text)
        chapter = _CHAPTER.match(text)
        if found is None and chapter:
            number = chapter.group(1)
            found = self._code(level, number if number.isdigit() else _roman(number))
        trailing = _TRAILING_RANGE.search(text)
        if found is None and trailing:
            found = self._code(level, trailing.group(1))
        if found is None:
            found = self._leading_code(level, text)
        if found is None:
            found = self.by_name.get((level, _key(text)))
        return found
