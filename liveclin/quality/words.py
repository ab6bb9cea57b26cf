"""The quality-check page in the reader's language: outcomes, pre-screen results, review states,
checks, verdicts and the reasons of an outcome (`rules.Reason`), each a whole catalogue entry; what a
person wrote (an inspector's or a physician's reason) stays apart, tagged with its own language.

The API, the CLI and the validated export keep the codes and the English reasons of `rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.models import FinalLabel, Item
from liveclin.quality.rules import FACTUAL, Outcome, Reason, SetReview
from medreview.text import script_language

OUTCOMES = {"validated": gettext_noop("Validated"), "rejected": gettext_noop("Rejected"),
            "pending": gettext_noop("Pending")}
PRESCREEN = {None: gettext_noop("not screened"), True: gettext_noop("passed"), False: gettext_noop("flagged")}
VERDICTS = {"yes": gettext_noop("yes"), "no": gettext_noop("no"), "invalid": gettext_noop("invalid output")}


def check_name(check: str) -> str:
    return _("factual check") if check == FACTUAL else _("solvability check")


def _where(position: int, check: str) -> str:
    return _("Q%(n)s %(check)s") % {"n": position, "check": check_name(check)}


def _source(code: str) -> str:
    try:
        return str(FinalLabel.Source(code).label)
    except ValueError:
        return code


def _status(code: str) -> str:
    try:
        return str(Item.Status(code).label)
    except ValueError:
        return code


@dataclass(frozen=True)
class ShownReason:
    text: str
    detail: str = ""  # what a person wrote, in `detail_lang`
    detail_lang: str = ""


def shown_reason(reason: Reason) -> ShownReason:
    detail = ShownReason("", reason.detail, script_language(reason.detail))
    if reason.kind == "set_rejected":
        return ShownReason(_("rejected as a whole by the inspector"), detail.detail, detail.detail_lang)
    if reason.kind == "physician_flaw":
        text = _("%(where)s: a physician found a flaw (%(source)s)") % {
            "where": _where(reason.position, reason.check), "source": _source(reason.source)}
        return ShownReason(text, detail.detail, detail.detail_lang)
    if reason.kind == "judge_unresolved":
        return ShownReason(_("%(where)s: flagged by the Judge, not resolved by an inspector") % {
            "where": _where(reason.position, reason.check)})
    if reason.kind == "failed_prescreen":
        return ShownReason(_("failed the Judge pre-screen; not reviewed by physicians"))
    if reason.kind == "not_reviewed":
        return ShownReason(_("not reviewed by physicians"))
    if reason.missing:
        missing = _(", ").join(_where(p, c) for p, c in reason.missing)
        return ShownReason(_("in review (%(status)s); no final label yet: %(missing)s") % {
            "status": _status(reason.detail), "missing": missing})
    return ShownReason(_("in review (%(status)s)") % {"status": _status(reason.detail)})


def shown_row(row: dict[str, Any], review: SetReview, result: Outcome) -> dict[str, Any]:
    """`row`: `rules.set_row` of the set; the same with every word in the reader's language."""
    return {
        **row,
        "outcome_name": _(OUTCOMES.get(result.status, result.status)),
        "prescreen_name": _(PRESCREEN[review.passed_prescreen]),
        "review_name": _status(review.review_status) if review.review_status else _("not reviewed"),
        "shown_reasons": [shown_reason(p) for p in result.parts],
        "shown_mcqs": [{
            "position": m["position"],
            "judge": [(check_name(c), _(VERDICTS.get(v, v))) for c, v in m["judge"].items()],
            "final": [(check_name(c), _(VERDICTS.get(f["label"], f["label"]))) for c, f in m["final"].items()],
        } for m in row["mcqs"]],
    }
