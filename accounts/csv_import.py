"""Accounts from a CSV file: parsed and validated whole before anything is written.

One row per account; columns (header required, order free):

    username,email,role,rank,specialties,languages,first_name,last_name

`username` and `role` are required; `specialties` and `languages` are `;`-separated. Every problem
is reported with its line and column, and one bad row refuses the whole file (the service writes
nothing unless `errors` is empty).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.utils.translation import gettext as _

from accounts.models import Rank, Role
from medreview.text import split_values
from medreview.text.csv_input import UnsafeCSV, read_csv

COLUMNS = ("username", "email", "role", "rank", "specialties", "languages", "first_name", "last_name")
REQUIRED = ("username", "role")
MAX_ROWS = 5000
# BCP 47 primary tags as the profile stores them (en, zh, pt-BR).
_LANGUAGE = re.compile(r"[a-z]{2,3}(-[A-Za-z0-9]{2,8})*")
_LIMITS = {"username": 150, "email": 254, "first_name": 150, "last_name": 150}


@dataclass(frozen=True)
class AccountRow:
    line: int
    username: str
    role: str
    email: str = ""
    rank: str = ""
    specialties: tuple[str, ...] = ()
    languages: tuple[str, ...] = ()
    first_name: str = ""
    last_name: str = ""


@dataclass(frozen=True)
class RowError:
    line: int | None
    column: str | None
    message: str

    def __str__(self) -> str:
        where = [_("line %(line)s") % {"line": self.line} if self.line is not None else _("file")]
        if self.column:
            where.append(_("column %(column)s") % {"column": self.column})
        return f"{', '.join(where)}: {self.message}"

    def as_dict(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "message": self.message}


@dataclass
class ParsedAccounts:
    rows: list[AccountRow] = field(default_factory=list)
    errors: list[RowError] = field(default_factory=list)


def _decode(data: bytes, result: ParsedAccounts) -> str | None:
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        result.errors.append(RowError(None, None, _("not UTF-8 (byte offset %(offset)s); save the file as UTF-8")
                                      % {"offset": exc.start}))
        return None
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        result.errors.append(RowError(line, None, "contains a NUL character"))
        return None
    return text


def _check_header(header: list[str], result: ParsedAccounts) -> bool:
    missing = [c for c in REQUIRED if c not in header]
    unknown = [c for c in header if c not in COLUMNS]
    if missing:
        result.errors.append(RowError(1, ", ".join(missing), _("missing required column")))
    if unknown:
        result.errors.append(RowError(1, ", ".join(unknown), _("unknown column; expected %(columns)s")
                                      % {"columns": ", ".join(COLUMNS)}))
    return not result.errors


def _row(line: int, row: dict[str, str], errors: list[RowError]) -> AccountRow:
    def bad(column: str, message: str) -> None:
        errors.append(RowError(line, column, message))

    values = {k: (row.get(k) or "").strip() for k in COLUMNS}
    for column, limit in _LIMITS.items():
        if len(values[column]) > limit:
            bad(column, _("%(n)s characters; at most %(limit)s") % {"n": len(values[column]), "limit": limit})
    if not values["username"]:
        bad("username", _("must not be empty"))
    else:
        try:
            UnicodeUsernameValidator()(values["username"])
        except ValidationError:
            bad("username", _("letters, digits and @/./+/-/_ only"))
    if values["role"] not in Role.values:
        bad("role", _("unknown role %(value)s; expected one of %(choices)s")
            % {"value": repr(values["role"]), "choices": ", ".join(Role.values)})
    if values["rank"] and values["rank"] not in Rank.values:
        bad("rank", _("unknown rank %(value)s; expected one of %(choices)s or empty")
            % {"value": repr(values["rank"]), "choices": ", ".join(Rank.values)})
    if values["email"]:
        try:
            validate_email(values["email"])
        except ValidationError:
            bad("email", _("not an e-mail address: %(value)s") % {"value": repr(values["email"])})
    languages = split_values(values["languages"], ";")
    for code in languages:
        if not _LANGUAGE.fullmatch(code):
            bad("languages", _("not a language code like en or zh: %(value)s") % {"value": repr(code)})
    return AccountRow(
        line=line, username=values["username"], role=values["role"], email=values["email"],
        rank=values["rank"], specialties=split_values(values["specialties"], ";"), languages=languages,
        first_name=values["first_name"], last_name=values["last_name"],
    )


def parse_accounts_csv(data: bytes) -> ParsedAccounts:
    """Every row and every problem; never raises for bad input."""
    result = ParsedAccounts()
    text = _decode(data, result)
    if text is None:
        return result
    try:
        table = read_csv(text)
    except UnsafeCSV as exc:
        # A column named twice is refused here too, with the column's name.
        result.errors.append(RowError(exc.line, exc.column, exc.message))
        return result
    if not _check_header(list(table.header), result):
        return result
    seen: dict[str, int] = {}
    for row in table.rows:
        if row.extra:
            result.errors.append(RowError(row.line, None, _("more cells than the header has columns")))
        account = _row(row.line, row.cells, result.errors)
        key = account.username.lower()
        if key and key in seen:
            result.errors.append(RowError(row.line, "username", _("%(username)s also on line %(line)s")
                                          % {"username": repr(account.username), "line": seen[key]}))
        seen.setdefault(key, row.line)
        result.rows.append(account)
        if len(result.rows) > MAX_ROWS:
            result.errors.append(RowError(row.line, None, _("more than %(n)s accounts; split the file") % {"n": MAX_ROWS}))
            break
    if not result.rows and not result.errors:
        result.errors.append(RowError(None, None, "no accounts in the file"))
    return result
