"""A curation's manifest as its page shows it, in the reader's language.

The manifest is a file of the release (English codes and meanings, `cases.exporters.base.REASONS`);
the page names each action, thing and reason in the reader's language and keeps the manifest's keys
as code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

ACTIONS = {
    "dropped": gettext_noop("dropped"),
    "flagged": gettext_noop("flagged"),
    "marked": gettext_noop("marked"),
    "kept": gettext_noop("kept"),
}
# The same texts as cases.exporters.base.REASONS (which the manifest carries in English).
MEANINGS = {
    "criterion-rejected": gettext_noop("the criterion's final validity label rejects it"),
    "criterion-unresolved": gettext_noop("the criterion's validity is unresolved; kept as published"),
    "narrative-rated-0": gettext_noop("the narrative and query were rated 0 (Poor)"),
    "advice-rated-0": gettext_noop("the reference advice was rated 0 (Poor)"),
    "question-set-rejected": gettext_noop("an MCQ check of the set ended 'no'"),
    "question-set-rejected-by-inspector": gettext_noop(
        "an inspector rejected the whole set (the reason is in its review block)"),
    "question-set-unresolved": gettext_noop("an MCQ check of the set is unresolved"),
    "question-set-not-reviewed": gettext_noop("not every MCQ of the set has a final label"),
}
_CRITERION = re.compile(r"criterion (\d+)")


def _what(what: str) -> str:
    if what == "case":
        return _("the case")
    if what == "question set":
        return _("the question set")
    if match := _CRITERION.fullmatch(what):
        return _("criterion %(n)s") % {"n": match.group(1)}
    return what


def _translated(table: dict[str, str], code: str, fallback: str = "") -> str:
    return _(table[code]) if code in table else (fallback or code)


@dataclass(frozen=True)
class ShownNote:
    case: str
    what: str
    action: str
    code: str
    meaning: str
    history: list[str]


@dataclass(frozen=True)
class ShownReason:
    code: str
    meaning: str
    counts: dict[str, int]


def shown_notes(manifest: dict[str, Any]) -> list[ShownNote]:
    return [ShownNote(case=str(n.get("case", "")), what=_what(str(n.get("what", ""))),
                      action=_translated(ACTIONS, str(n.get("action", ""))), code=str(n.get("reason", "")),
                      meaning=_translated(MEANINGS, str(n.get("reason", ""))), history=list(n.get("history", [])))
            for n in manifest.get("items", [])]


def shown_reasons(manifest: dict[str, Any]) -> list[ShownReason]:
    return [ShownReason(code=code, meaning=_translated(MEANINGS, code, str(r.get("meaning", ""))),
                        counts={k: int(r.get(k) or 0) for k in ("dropped", "flagged", "marked", "kept")})
            for code, r in (manifest.get("reasons") or {}).items()]
