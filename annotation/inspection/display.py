"""Labels as an inspector reads them: a scale category by its name in the reader's language, and a
pairwise label in canonical terms, by model ("Prefers model-x"), never by the letter a rater
clicked (which depends on the order that rater saw).

Pairwise ratings are stored canonically (A = `item.response`, B = `item.response_b`;
`annotation.labels`); each rater's `Assignment.pair_order` says which response they saw first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from annotation.fields import Field
from annotation.inspection.triage import REASONS
from annotation.models import Assignment, Item, ItemKind, TaskTarget
from medreview.text import script_language


@dataclass(frozen=True)
class PairModels:
    """The two models of a pair item, canonical order: A = item.response, B = item.response_b."""

    a: str
    b: str

    def name(self, label: str) -> str:
        return {"A": self.a, "B": self.b}.get(label, "")

    def first_shown(self, pair_order: str) -> str:
        """The model a rater with this `pair_order` saw first."""
        return self.b if pair_order == "ba" else self.a

    def as_dict(self) -> dict[str, str]:
        return {"A": self.a, "B": self.b}


def pair_models(item: Item) -> PairModels | None:
    """Needs `response` and `response_b` loaded (`access_item_for_inspection` selects them)."""
    if item.kind != ItemKind.PAIR or not item.response_id or not item.response_b_id:
        return None
    return PairModels(a=item.response.model_name, b=item.response_b.model_name)


def label_text(field: Field, value: str | None, pair: PairModels | None = None) -> str:
    """A stored label as the inspector reads it ("" when there is none)."""
    if not value:
        return ""
    if field.task.target == TaskTarget.PAIRWISE and pair is not None and value in ("A", "B"):
        return _("Prefers %(model)s") % {"model": pair.name(value)}
    category = field.category(value)
    return category.shown_label if category is not None else value


def rater_choice_text(field: Field, value: str | None, pair: PairModels | None) -> str:
    """One rater's label in a sentence-free cell: "prefers model-x" for pairs, else the category."""
    if field.task.target == TaskTarget.PAIRWISE and pair is not None and value in ("A", "B"):
        return _("prefers %(model)s") % {"model": pair.name(value)}
    return label_text(field, value, pair)


def order_seen_text(assignment: Assignment, pair: PairModels) -> str:
    """"saw model-x first": the order this rater was shown (recorded on their assignment)."""
    return _("saw %(model)s first") % {"model": pair.first_shown(assignment.pair_order)}


# Reasons the code records (in English, in the audit chain, whose hashes cover them), shown in the
# reader's language; any other reason is what a person typed and keeps its own language.
SYSTEM_REASONS = {
    "Revision submitted": gettext_noop("Revision submitted"),
    "Raters agreed": gettext_noop("Raters agreed"),
    "Raters agreed; not selected for inspection": gettext_noop("Raters agreed; not selected for inspection"),
    "Lease lapsed before submission": gettext_noop("Lease lapsed before submission"),
    "Stopped for the day": gettext_noop("Stopped for the day"),
    "imported from a file of labels collected outside medreview": gettext_noop(
        "imported from a file of labels collected outside medreview"),
}


@dataclass(frozen=True)
class ShownReason:
    """A recorded reason as a page shows it: `reasons` (why an item was sent to inspection, each in
    the reader's language), else `text` with `lang` ("" when it is in the reader's language)."""

    reasons: tuple[str, ...] = ()
    text: str = ""
    lang: str = ""


def shown_reason(reason: str, why: object = None) -> ShownReason:
    """`why`: the SENT_TO_INSPECTION event's recorded reasons (`data["why"]`), a code or a list."""
    codes = [why] if isinstance(why, str) else [str(w) for w in why] if isinstance(why, list) else []
    if codes and all(code in REASONS for code in codes):
        return ShownReason(reasons=tuple(str(REASONS[code]) for code in codes))
    if reason in SYSTEM_REASONS:
        return ShownReason(text=_(SYSTEM_REASONS[reason]))
    return ShownReason(text=reason, lang=script_language(reason))


# The final-label ladder's rules and sources (`annotation.outcomes.final_labels`), as a page names them.
RULE_NAMES = {
    "inspector": gettext_noop("the inspector's label"),
    "unanimous": gettext_noop("the raters' unanimous label"),
    "unresolved": gettext_noop("unresolved"),
}
SOURCE_NAMES = {
    "first-round": gettext_noop("read from the first round"),
    "consensus": gettext_noop("Raters agreed (not inspected)"),
    "accepted": gettext_noop("Accepted by an inspector"),
    "adjudicated": gettext_noop("Set by an inspector"),
}


@dataclass(frozen=True)
class HistoryRating:
    round: int
    rater: str
    label: str
    comment: str


@dataclass(frozen=True)
class HistoryRow:
    """One field's outcome on the history page, every word in the reader's language."""

    anchor: str
    task: str
    field: str  # the field's own text (a criterion, a question) or its name; "" for one-field tasks
    field_lang: str  # the language of `field` when it is case text, else ""
    position: int | None
    final: str  # "" when unresolved
    rule: str
    source: str
    reason: ShownReason
    ratings: list[HistoryRating]


def history_rows(item: Item, fields: list[Field], outcomes: list) -> list[HistoryRow]:
    """`outcomes`: `annotation.outcomes.selectors.field_outcomes` of the item; `fields`: its fields."""
    by_key = {(f.task.slug, f.key): f for f in fields}
    pair = pair_models(item)
    rows = []
    for o in outcomes:
        f = by_key.get((o.task, o.field_key))

        def shown(value: str | None, f: Field | None = f) -> str:
            return label_text(f, value, pair) if f is not None else (value or "")

        case_text = f is not None and (f.criterion is not None or f.mcq is not None)
        rows.append(HistoryRow(
            anchor=f"field-{o.task}-{o.position or 0}",
            task=f.task.shown_name if f is not None else o.task,
            field=f.label if f is not None and f.key else "",
            field_lang=(item.revision.language or script_language(f.label)) if case_text else "",
            position=o.position,
            final=shown(o.decision.label) if o.decision.label is not None else "",
            rule=_(RULE_NAMES[o.decision.rule]) if o.decision.rule in RULE_NAMES else o.decision.rule,
            source=_(SOURCE_NAMES[o.decision.source]) if o.decision.source in SOURCE_NAMES else o.decision.source,
            reason=shown_reason(o.reason),
            ratings=[HistoryRating(round=r.round, rater=r.rater_name, label=shown(r.label), comment=r.comment)
                     for r in o.ratings],
        ))
    return rows
