"""Small text helpers shared by every app. No Django import: the import parsers use them too."""

import re


def split_values(value: str | None, separators: str = ",", *, whitespace: bool = False) -> tuple[str, ...]:
    """The non-blank, stripped parts of a typed list ("a, b; c"): split on any character of
    `separators` and, with `whitespace`, on any whitespace too."""
    pattern = "[" + re.escape(separators) + (r"\s" if whitespace else "") + "]"
    return tuple(part.strip() for part in re.split(pattern, value or "") if part.strip())


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LATIN_WORD = re.compile(r"[A-Za-z]+")
# Chinese clinical text keeps drug names, units and lab abbreviations in Latin letters; from this
# share of Han characters among Han characters and Latin words on, a text is Chinese.
MIN_HAN_SHARE = 0.3


def han_share(text: str) -> float | None:
    """Han characters / (Han characters + Latin words); None for a text with neither."""
    han, latin = len(_HAN.findall(text)), len(_LATIN_WORD.findall(text))
    return han / (han + latin) if han + latin else None


def script_language(text: str) -> str:
    """The language a text without a recorded one is written in, as far as its script tells:
    "zh" for Chinese, "en" for Latin letters (names, identifiers), "" for digits and signs."""
    share = han_share(text or "")
    if share is None:
        return ""
    return "zh" if share >= MIN_HAN_SHARE else "en"
