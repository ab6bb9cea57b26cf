"""One escaping path for every tabular export (CSV, XLSX): cells a spreadsheet would run as formulas.

Names and labels come from imported files (specialties, themes, model names, comments), so a value
such as `=HYPERLINK("http://evil", "x")`, `=cmd|' /C calc'!A0` or `@SUM(A1)` must reach the sheet as
text. The OWASP rule: a cell starting with = + - @ tab or carriage return gets a leading apostrophe,
which spreadsheet software shows as text and does not display. Numbers, including negative ones,
are left alone so they stay numbers.
"""

from __future__ import annotations

from typing import Any

_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def looks_like_formula(value: str) -> bool:
    """True for text a spreadsheet would evaluate; "-1.5" and "+3" are numbers, not formulas."""
    if not value.startswith(_FORMULA_STARTS):
        return False
    if value[0] in "+-":
        try:
            float(value)
        except ValueError:
            return True
        return False
    return True


def spreadsheet_safe(value: Any) -> Any:
    """The cell to write for `value`: formula-like text gets a leading apostrophe; anything else is
    returned unchanged."""
    if isinstance(value, str) and looks_like_formula(value):
        return "'" + value
    return value
