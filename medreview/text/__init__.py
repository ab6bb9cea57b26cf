"""Small text helpers shared by every app. No Django import: the import parsers use them too."""

import re


def split_values(value: str | None, separators: str = ",", *, whitespace: bool = False) -> tuple[str, ...]:
    """The non-blank, stripped parts of a typed list ("a, b; c"): split on any character of
    `separators` and, with `whitespace`, on any whitespace too."""
    pattern = "[" + re.escape(separators) + (r"\s" if whitespace else "") + "]"
    return tuple(part.strip() for part in re.split(pattern, value or "") if part.strip())
