"""Plain data a curation works on, and the byte-exact serialisers every writer shares.

No Django import here on purpose (like `cases.importers.base`): a curation is computed from
dataclasses, so it is tested without a database and gives the same bytes on every run.

A case comes in as the importers' own `ParsedCase` (its `raw` record is the source of truth for the
benchmark's shape); what physicians decided comes in as a `CaseReview`: one `FieldOutcome` per
reviewed field, keyed by what the field is about (the narrative, the advice, criterion *n*, MCQ *n*)
rather than by task slug, so this layer knows benchmark shapes and `annotation` knows tasks.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cases.importers.base import ParsedCase

# The ladder `annotation` decides final labels with; repeated here as plain names for the manifest.
RULE_INSPECTOR = "inspector"
RULE_UNANIMOUS = "unanimous"
RULE_UNRESOLVED = "unresolved"


@dataclass(frozen=True)
class FieldOutcome:
    """The final label of one reviewed field. `label` is None when the field is unresolved."""

    label: str | None
    rule: str = RULE_UNANIMOUS  # inspector | unanimous | unresolved
    source: str = ""  # adjudicated | accepted | consensus | first-round | ""
    history: str = ""  # link to the item's review history

    @property
    def resolved(self) -> bool:
        return self.label is not None


@dataclass(frozen=True)
class CaseReview:
    """Every final label physicians gave one case, merged over the chosen studies.

    `criteria` and `mcqs` are keyed by position (1-based, the order in the source record, which is
    `RubricCriterion.order` / `MCQ.order`); an MCQ has one outcome per check (e.g. the LiveClin
    factual and solvability tasks, by task slug)."""

    narrative: FieldOutcome | None = None
    advice: FieldOutcome | None = None
    criteria: Mapping[int, FieldOutcome] = field(default_factory=dict)
    mcqs: Mapping[int, Mapping[str, FieldOutcome]] = field(default_factory=dict)
    history: tuple[str, ...] = ()
    # How the labels came about: the review events of the case's items (returns, revisions, the
    # decision and its reason), oldest first, actors by pseudonym.
    events: tuple[Mapping[str, Any], ...] = ()
    set_rejection: str = ""  # LiveClin: an inspector rejected the whole question set, with this reason

    def outcomes(self) -> list[tuple[str, FieldOutcome]]:
        """(field name, outcome) for every reviewed field, in a fixed order."""
        named: list[tuple[str, FieldOutcome]] = []
        if self.narrative is not None:
            named.append(("narrative", self.narrative))
        if self.advice is not None:
            named.append(("advice", self.advice))
        named += [(f"criterion {n}", self.criteria[n]) for n in sorted(self.criteria)]
        for n in sorted(self.mcqs):
            named += [(f"MCQ {n} {check}", self.mcqs[n][check]) for check in sorted(self.mcqs[n])]
        return named


@dataclass(frozen=True)
class CurationRules:
    """What a curation does with the final labels; written into the manifest as given."""

    keep_rejected_criteria: bool = False  # keep them marked "physician_validity": "disagree"
    review_block: bool = False  # add a per-case "physician_review" block (LiveClin always has one)
    resolved_only: bool = False  # refuse when a chosen study has unresolved fields
    reject_labels: tuple[str, ...] = ("disagree",)  # a criterion with this final validity is rejected
    flag_labels: tuple[str, ...] = ("0",)  # a narrative / advice with this final rating is flagged
    pass_labels: tuple[str, ...] = ("yes",)  # every MCQ check must end with one of these

    def as_dict(self) -> dict[str, Any]:
        return {
            "criteria_rejected": (
                "kept with \"physician_validity\": \"disagree\"" if self.keep_rejected_criteria else "dropped"
            ),
            "criterion_rejected_when_final_label_in": list(self.reject_labels),
            "case_flagged_when_narrative_or_advice_final_label_in": list(self.flag_labels),
            "question_set_kept_when_every_mcq_check_in": list(self.pass_labels),
            "review_block": self.review_block,
            "resolved_only": self.resolved_only,
            "final_label": "inspector's label, else the raters' unanimous first-round label, else unresolved",
        }


@dataclass(frozen=True)
class Note:
    """One dropped, flagged or marked thing, for the manifest (with where to read its history)."""

    case: str
    what: str  # "case", "question set", "criterion 3"
    action: str  # dropped | flagged | marked
    reason: str  # a code from REASONS
    history: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"case": self.case, "what": self.what, "action": self.action, "reason": self.reason,
                "history": list(self.history)}


REASONS = {
    "criterion-rejected": "the criterion's final validity label rejects it",
    "criterion-unresolved": "the criterion's validity is unresolved; kept as published",
    "narrative-rated-0": "the narrative and query were rated 0 (Poor)",
    "advice-rated-0": "the reference advice was rated 0 (Poor)",
    "question-set-rejected": "an MCQ check of the set ended 'no'",
    "question-set-rejected-by-inspector": "an inspector rejected the whole set (the reason is in its review block)",
    "question-set-unresolved": "an MCQ check of the set is unresolved",
    "question-set-not-reviewed": "not every MCQ of the set has a final label",
}


@dataclass(frozen=True)
class CaseDecision:
    """What a curation does with one case."""

    case: ParsedCase
    review: CaseReview | None
    keep: bool = True
    kept_criteria: tuple[int, ...] = ()  # positions, in source order
    marked_criteria: tuple[int, ...] = ()  # kept, marked as rejected
    flags: tuple[str, ...] = ()  # reason codes
    status: str = ""  # LiveClin: validated | rejected | unresolved | not reviewed
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True)
class CurationOutput:
    """A curation's files (name -> bytes) and what it did, before the manifest is added."""

    format: str
    name: str
    files: dict[str, bytes]
    decisions: tuple[CaseDecision, ...]
    counts: dict[str, Any]
    reasons: dict[str, dict[str, Any]]
    notes: tuple[Note, ...]


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def dump_json(value: Any) -> bytes:
    """A JSON document: sorted keys, two-space indent, UTF-8 text as is, one final newline."""
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True, separators=(",", ": "))
    return (text + "\n").encode("utf-8")


def dump_jsonl(values: Sequence[Any]) -> bytes:
    """One compact JSON object a line, sorted keys, `\\n` line ends (also after the last line)."""
    lines = [json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(",", ":")) for v in values]
    return "".join(line + "\n" for line in lines).encode("utf-8")


def outcome_dict(outcome: FieldOutcome) -> dict[str, Any]:
    return {"label": outcome.label, "rule": outcome.rule, "source": outcome.source}
