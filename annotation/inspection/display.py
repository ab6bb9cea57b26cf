"""Labels as an inspector reads them: a scale category by its name in the reader's language, and a
pairwise label in canonical terms, by model ("Prefers model-x"), never by the letter a rater
clicked (which depends on the order that rater saw).

Pairwise ratings are stored canonically (A = `item.response`, B = `item.response_b`;
`annotation.labels`); each rater's `Assignment.pair_order` says which response they saw first.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from annotation.fields import Field
from annotation.models import Assignment, Item, ItemKind, TaskTarget


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
