"""LiveClin's quality check decided from plain data: a question set's outcome, the funnel, the Judge
against the physicians. No database here (the reads are in `loading`), so every rule is tested on
small hand-made inputs with exact numbers.

Sec. 3.4 "principle of conservatism": any question with a potential flaw is rejected; Appendix G:
"any question identified with a potential flaw by either the AI or the human experts is rigorously
scrutinized and ultimately rejected if the issue cannot be resolved". So a set is

- **rejected** when an inspector rejected the whole set (wrong scenario, duplicate case: its reason),
  or when a physician final label of any MCQ check is "no" (the reason is that label's
  reason), or when a check the Judge flagged (a "no" or an invalid verdict) was not resolved by an
  inspector (a final label "yes" set or accepted by a senior physician who saw the item: a flag
  cleared only by the raters' unreviewed consensus does not count), or when it failed the
  pre-screen and no physician reviewed it (the paper's pipeline stops such sets before physicians);
- **validated** when physicians reviewed it to the end (every check of every MCQ has a final label)
  and nothing above applies;
- otherwise **pending** (not reviewed yet, or in review), with what is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agreement import metrics

FACTUAL = "factual"
SOLVABILITY = "solvability"
CHECKS = (FACTUAL, SOLVABILITY)
CHECK_NAMES = {FACTUAL: "factual validation", SOLVABILITY: "logical solvability"}
# The final-label sources a senior physician stands behind (annotation.FinalLabel.Source).
INSPECTED_SOURCES = ("accepted", "adjudicated")

VALIDATED = "validated"
REJECTED = "rejected"
PENDING = "pending"


@dataclass(frozen=True)
class FinalCheck:
    """The label that stands for one MCQ check after review (annotation.FinalLabel)."""

    label: str  # "yes" | "no"
    source: str = "consensus"  # consensus | accepted | adjudicated
    reason: str = ""


@dataclass(frozen=True)
class McqReview:
    """Everything known about one MCQ: the Judge's verdicts (None = invalid output; a check absent
    from `judge` was not screened), the physicians' first-round labels by rater, the final label."""

    position: int
    judge: Mapping[str, bool | None] = field(default_factory=dict)
    judge_explanations: Mapping[str, str] = field(default_factory=dict)
    first_round: Mapping[str, Mapping[Any, str]] = field(default_factory=dict)  # check -> {rater: label}
    final: Mapping[str, FinalCheck] = field(default_factory=dict)


@dataclass(frozen=True)
class SetReview:
    """One question set: its MCQs, whether the Judge screened it and how far physician review got.
    `review_status` is the review item's status (open, inspection, returned, resolved) or "" when
    no study holds the set."""

    key: str  # the record id (pmc / pmid / doi)
    question_set_id: int
    mcqs: Sequence[McqReview]
    screened: bool = False
    review_status: str = ""
    set_rejection: str = ""  # an inspector rejected the whole set (wrong scenario, duplicate case): why
    events: Sequence[Mapping[str, Any]] = ()  # the review events of the set's items, oldest first

    @property
    def passed_prescreen(self) -> bool | None:
        """True when the Judge said yes to every check of every MCQ; None when not screened."""
        if not self.screened:
            return None
        return all(m.judge.get(c) is True for m in self.mcqs for c in CHECKS)

    def judge_flags(self) -> list[tuple[int, str]]:
        """(MCQ position, check) the Judge did not pass (a "no" or an invalid output)."""
        if not self.screened:
            return []
        return [(m.position, c) for m in self.mcqs for c in CHECKS if m.judge.get(c) is not True]


@dataclass(frozen=True)
class Reason:
    """Why a set has its outcome, as data: `str()` is the English the API, the CLI and the export carry;
    pages put each part into the reader's language (`liveclin.quality.words`)."""

    kind: str  # set_rejected | physician_flaw | judge_unresolved | failed_prescreen | not_reviewed | in_review
    position: int = 0
    check: str = ""
    source: str = ""  # physician_flaw: the final label's source
    detail: str = ""  # what a person wrote (set_rejected, physician_flaw), or the review status (in_review)
    missing: tuple[tuple[int, str], ...] = ()  # in_review: (MCQ position, check) without a final label

    def __str__(self) -> str:
        where = _where(self.position, self.check) if self.check else ""
        if self.kind == "set_rejected":
            return f"rejected as a whole by the inspector: {self.detail}"
        if self.kind == "physician_flaw":
            why = f": {self.detail}" if self.detail else ""
            return f"{where}: a physician found a flaw ({self.source}){why}"
        if self.kind == "judge_unresolved":
            return f"{where}: flagged by the Judge, not resolved by an inspector"
        if self.kind == "failed_prescreen":
            return "failed the Judge pre-screen; not reviewed by physicians"
        if self.kind == "not_reviewed":
            return "not reviewed by physicians"
        if self.missing:
            missing = ", ".join(_where(p, c) for p, c in self.missing)
            return f"in review ({self.detail}); no final label yet: {missing}"
        return f"in review ({self.detail})"


@dataclass(frozen=True)
class Outcome:
    status: str  # validated | rejected | pending
    reasons: tuple[str, ...] = ()
    parts: tuple[Reason, ...] = field(default=(), compare=False)  # the reasons as data, same order

    @classmethod
    def because(cls, status: str, parts: Sequence[Reason]) -> Outcome:
        return cls(status, tuple(str(p) for p in parts), tuple(parts))

    def as_dict(self) -> dict[str, Any]:
        return {"status": self.status, "reasons": list(self.reasons)}


def _where(position: int, check: str) -> str:
    return f"MCQ {position} {CHECK_NAMES[check]}"


def _physician_flaws(review: SetReview) -> list[Reason]:
    flaws = []
    for m in review.mcqs:
        for check in CHECKS:
            final = m.final.get(check)
            if final is not None and final.label == "no":
                flaws.append(Reason("physician_flaw", m.position, check, source=final.source, detail=final.reason))
    return flaws


def _unresolved_judge_flags(review: SetReview) -> list[Reason]:
    by_position = {m.position: m for m in review.mcqs}
    unresolved = []
    for position, check in review.judge_flags():
        final = by_position[position].final.get(check)
        if final is not None and final.label == "yes" and final.source in INSPECTED_SOURCES:
            continue
        if final is not None and final.label == "no":
            continue  # already a physician flaw
        unresolved.append(Reason("judge_unresolved", position, check))
    return unresolved


def _missing(review: SetReview) -> list[tuple[int, str]]:
    return [(m.position, c) for m in review.mcqs for c in CHECKS if c not in m.final]


def physician_verdict(review: SetReview) -> bool | None:
    """Table 1's "physician-validated": True when physicians passed every check of every MCQ (the
    Judge's flags do not count here), False when they found a flaw or rejected the set, None while
    undecided."""
    if review.set_rejection or _physician_flaws(review):
        return False
    if review.review_status != "resolved" or _missing(review):
        return None
    return True


def outcome(review: SetReview) -> Outcome:
    """The set's outcome under the principle of conservatism (module docstring)."""
    if review.set_rejection:
        return Outcome.because(REJECTED, [Reason("set_rejected", detail=review.set_rejection)])
    flaws = _physician_flaws(review)
    if flaws:
        return Outcome.because(REJECTED, flaws)
    if not review.review_status:
        if review.passed_prescreen is False:
            return Outcome.because(REJECTED, [Reason("failed_prescreen")])
        return Outcome.because(PENDING, [Reason("not_reviewed")])
    missing = _missing(review)
    if review.review_status != "resolved" or missing:
        return Outcome.because(PENDING, [Reason("in_review", detail=review.review_status, missing=tuple(missing))])
    unresolved = _unresolved_judge_flags(review)
    if unresolved:
        return Outcome.because(REJECTED, unresolved)
    return Outcome(VALIDATED)


@dataclass(frozen=True)
class Funnel:
    """Generated -> passed pre-screen -> validated (LiveClin: 2,092 -> 1,869 -> 1,822)."""

    generated: int
    screened: int
    passed_prescreen: int
    reviewed: int
    validated: int
    rejected: int
    pending: int

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


def funnel(reviews: Sequence[SetReview], outcomes: Sequence[Outcome]) -> Funnel:
    return Funnel(
        generated=len(reviews),
        screened=sum(r.screened for r in reviews),
        passed_prescreen=sum(r.passed_prescreen is True for r in reviews),
        reviewed=sum(bool(r.review_status) for r in reviews),
        validated=sum(o.status == VALIDATED for o in outcomes),
        rejected=sum(o.status == REJECTED for o in outcomes),
        pending=sum(o.status == PENDING for o in outcomes),
    )


@dataclass(frozen=True)
class PassRate:
    decided: int  # sets with an outcome (validated or rejected)
    validated: int

    @property
    def rate(self) -> float | None:
        return self.validated / self.decided if self.decided else None

    def as_dict(self) -> dict[str, Any]:
        return {"decided": self.decided, "validated": self.validated, "rate": self.rate}


def pass_rates(reviews: Sequence[SetReview], outcomes: Sequence[Outcome]) -> dict[str, PassRate]:
    """LiveClin Table 1: the physician-validated pass rate of every decided set ("all"; sets the
    pre-screen rejected count as not passed) and of the Judge-approved subset (footnote: 98.4%)."""
    decided = [(r, o) for r, o in zip(reviews, outcomes, strict=True) if o.status != PENDING]
    approved = [(r, o) for r, o in decided if r.passed_prescreen is True]
    return {
        "all": PassRate(len(decided), sum(o.status == VALIDATED for _, o in decided)),
        "judge_approved": PassRate(len(approved), sum(o.status == VALIDATED for _, o in approved)),
    }


@dataclass(frozen=True)
class JudgeAgreement:
    """The Judge against the physicians on one check, over MCQs with a Judge verdict and a final label.

    Reference: the physicians' final label. `ac1` is Gwet's AC1 of the two (an invalid Judge output
    is a missing rating there); `macro_f1` counts an invalid output as wrong (ClinConsensus I.3);
    `macro_f1_first_round` is the mean Macro-F1 of the Judge against each physician's first-round
    labels (LiveMedBench eq. 9)."""

    check: str
    n: int
    invalid: int
    percent_agreement: float | None
    ac1: metrics.AgreementResult | None
    macro_f1: metrics.MacroF1Result | None
    macro_f1_first_round: float | None

    def as_dict(self) -> dict[str, Any]:
        return {
            "check": self.check, "n": self.n, "invalid": self.invalid,
            "percent_agreement": self.percent_agreement,
            "ac1": None if self.ac1 is None else self.ac1.value,
            "ac1_ci": None if self.ac1 is None or self.ac1.ci is None else list(self.ac1.ci),
            "macro_f1": None if self.macro_f1 is None else self.macro_f1.value,
            "macro_f1_first_round": self.macro_f1_first_round,
        }


def _judge_label(value: bool | None) -> str | None:
    return None if value is None else ("yes" if value else "no")


def _pairs(reviews: Iterable[SetReview], check: str) -> list[tuple[bool | None, str, dict[Any, str]]]:
    """(Judge verdict, final label, first-round labels by rater) of every MCQ with both on `check`."""
    return [
        (m.judge[check], m.final[check].label, dict(m.first_round.get(check, {})))
        for r in reviews if r.screened
        for m in r.mcqs if check in m.judge and check in m.final
    ]


def _first_round_macro_f1(pairs: list[tuple[bool | None, str, dict[Any, str]]], predicted: list[str]) -> float | None:
    raters = sorted({rater for _, _, labels in pairs for rater in labels}, key=str)
    if not raters:
        return None
    columns = [[labels.get(rater) for rater in raters] for _, _, labels in pairs]
    return metrics.macro_f1_vs_raters(predicted, columns).value


def judge_agreement(reviews: Iterable[SetReview], check: str) -> JudgeAgreement:
    pairs = _pairs(reviews, check)
    if not pairs:
        return JudgeAgreement(check, 0, 0, None, None, None, None)
    judge = [_judge_label(j) for j, _, _ in pairs]
    final = [f for _, f, _ in pairs]
    valid = [[j, f] for j, f in zip(judge, final, strict=True) if j is not None]
    predicted = ["invalid" if j is None else j for j in judge]
    return JudgeAgreement(
        check=check,
        n=len(pairs),
        invalid=sum(j is None for j in judge),
        percent_agreement=sum(j == f for j, f in zip(judge, final, strict=True)) / len(pairs),
        ac1=metrics.gwet_ac1(valid, ["yes", "no"]) if valid else None,
        macro_f1=metrics.macro_f1(final, predicted),
        macro_f1_first_round=_first_round_macro_f1(pairs, predicted),
    )


def set_row(review: SetReview, result: Outcome) -> dict[str, Any]:
    """One line of the release's question-set list: pre-screen, physician verdicts, outcome."""
    return {
        "key": review.key,
        "question_set": review.question_set_id,
        "prescreen": {None: "not screened", True: "passed", False: "flagged"}[review.passed_prescreen],
        "review_status": review.review_status or "not reviewed",
        "outcome": result.status,
        "reasons": list(result.reasons),
        "mcqs": [
            {
                "position": m.position,
                "judge": {c: _judge_label(m.judge[c]) if m.judge[c] is not None else "invalid"
                          for c in CHECKS if c in m.judge},
                "judge_explanations": {c: m.judge_explanations.get(c, "") for c in CHECKS if c in m.judge},
                "first_round": {c: sorted(m.first_round[c].values()) for c in CHECKS if m.first_round.get(c)},
                "final": {c: {"label": m.final[c].label, "source": m.final[c].source, "reason": m.final[c].reason}
                          for c in CHECKS if c in m.final},
            }
            for m in review.mcqs
        ],
    }


def quality_report(reviews: Sequence[SetReview]) -> dict[str, Any]:
    """Everything the release page, its API and the CLI show, JSON-ready."""
    outcomes = [outcome(r) for r in reviews]
    return {
        "funnel": funnel(reviews, outcomes).as_dict(),
        "pass_rates": {k: v.as_dict() for k, v in pass_rates(reviews, outcomes).items()},
        "judge_vs_physicians": [judge_agreement(reviews, c).as_dict() for c in CHECKS],
        "sets": [set_row(r, o) for r, o in zip(reviews, outcomes, strict=True)],
    }
