"""LiveClin quality-check rules on hand-made data, with exact numbers worked out by hand."""

import pytest

from liveclin.quality import (
    CHECKS,
    FACTUAL,
    PENDING,
    REJECTED,
    SOLVABILITY,
    VALIDATED,
    FinalCheck,
    McqReview,
    SetReview,
    funnel,
    judge_agreement,
    outcome,
    pass_rates,
)

YES, NO = "yes", "no"


def mcq(position: int, judge: tuple | None = (True, True), final: tuple | None = None,
        first: tuple | None = None) -> McqReview:
    return McqReview(
        position=position,
        judge={} if judge is None else {FACTUAL: judge[0], SOLVABILITY: judge[1]},
        final={} if final is None else {c: f for c, f in zip((FACTUAL, SOLVABILITY), final, strict=True) if f},
        first_round={} if first is None else {
            check: dict(zip(("r1", "r2"), labels, strict=True)) for check, labels in zip(CHECKS, first, strict=True)
        },
    )


def ok(source: str = "consensus") -> FinalCheck:
    return FinalCheck(YES, source)


AGREED = ((YES, YES), (YES, YES))
SETS = [
    # A: passed the pre-screen, physicians agree: validated.
    SetReview("A", 1, [mcq(1, final=(ok(), ok()), first=AGREED), mcq(2, final=(ok(), ok()), first=AGREED)],
              screened=True, review_status="resolved"),
    # B: the Judge flagged MCQ 2's facts; an inspector looked and set "yes": resolved, validated.
    SetReview("B", 2, [mcq(1, final=(ok(), ok()), first=AGREED),
                       mcq(2, judge=(False, True), final=(ok("adjudicated"), ok()), first=AGREED)],
              screened=True, review_status="resolved"),
    # C: passed the pre-screen, an inspector rejects MCQ 2's facts.
    SetReview("C", 3, [mcq(1, final=(ok(), ok()), first=AGREED),
                       mcq(2, final=(FinalCheck(NO, "adjudicated", "dose differs from the report"), ok()),
                           first=((NO, YES), (YES, YES)))],
              screened=True, review_status="resolved"),
    # D: failed the pre-screen, never reviewed.
    SetReview("D", 4, [mcq(1, judge=(True, False)), mcq(2)], screened=True),
    # E: not screened, not reviewed.
    SetReview("E", 5, [mcq(1, judge=None)]),
    # F: passed, still in inspection.
    SetReview("F", 6, [mcq(1), mcq(2)], screened=True, review_status="inspection"),
    # G: the Judge's output for MCQ 1 facts was invalid; the raters' consensus alone does not clear it.
    SetReview("G", 7, [mcq(1, judge=(None, True), final=(ok(), ok()), first=AGREED),
                       mcq(2, final=(ok(), ok()), first=AGREED)],
              screened=True, review_status="resolved"),
]


def test_outcomes_follow_the_principle_of_conservatism() -> None:
    got = {s.key: outcome(s) for s in SETS}
    assert {k: o.status for k, o in got.items()} == {
        "A": VALIDATED, "B": VALIDATED, "C": REJECTED, "D": REJECTED, "E": PENDING, "F": PENDING, "G": REJECTED,
    }
    assert got["C"].reasons == (
        "MCQ 2 factual validation: a physician found a flaw (adjudicated): dose differs from the report",
    )
    assert got["D"].reasons == ("failed the Judge pre-screen; not reviewed by physicians",)
    assert got["G"].reasons == ("MCQ 1 factual validation: flagged by the Judge, not resolved by an inspector",)
    assert got["F"].reasons[0].startswith("in review (inspection); no final label yet: MCQ 1 factual validation")
    assert [s.passed_prescreen for s in SETS] == [True, False, True, False, None, True, False]


def test_the_funnel_and_the_pass_rates() -> None:
    outcomes = [outcome(s) for s in SETS]
    assert funnel(SETS, outcomes).as_dict() == {
        "generated": 7, "screened": 6, "passed_prescreen": 3, "reviewed": 5,
        "validated": 2, "rejected": 3, "pending": 2,
    }
    rates = pass_rates(SETS, outcomes)
    assert rates["all"].as_dict() == {"decided": 5, "validated": 2, "rate": 0.4}
    assert rates["judge_approved"].as_dict() == {"decided": 2, "validated": 1, "rate": 0.5}


def test_judge_against_physicians_on_factual_validation() -> None:
    got = judge_agreement(SETS, FACTUAL)
    # Pairs (Judge, final): A1 yy A2 yy B1 yy B2 ny C1 yy C2 yn G1 (invalid) y G2 yy.
    assert (got.n, got.invalid) == (8, 1)
    assert got.percent_agreement == pytest.approx(5 / 8)
    # AC1 over the 7 valid pairs: pa = 5/7, pi(yes) = 6/7, pe = 2 * 6/7 * 1/7 = 12/49 -> 23/37.
    assert got.ac1.value == pytest.approx(23 / 37)
    # Macro-F1 (invalid counts as wrong): TP 5, FP 1, FN 2, TN 0 -> F1(yes) 10/13, F1(no) 0.
    assert got.macro_f1.value == pytest.approx(5 / 13)
    # Against each rater's first round: rater 1 as the final (5/13), rater 2 said yes on C2 (3/7).
    assert got.macro_f1_first_round == pytest.approx((5 / 13 + 3 / 7) / 2)


def test_judge_against_physicians_when_everyone_says_yes() -> None:
    got = judge_agreement(SETS, SOLVABILITY)
    assert (got.n, got.invalid, got.percent_agreement) == (8, 0, 1.0)
    assert got.ac1.value == pytest.approx(1.0)
    assert got.macro_f1.value is None and "not met" in got.macro_f1.reason
    assert got.as_dict()["macro_f1"] is None


def test_nothing_to_compare() -> None:
    got = judge_agreement([SETS[4]], FACTUAL)
    assert got.as_dict() == {"check": FACTUAL, "n": 0, "invalid": 0, "percent_agreement": None, "ac1": None,
                             "ac1_ci": None, "macro_f1": None, "macro_f1_first_round": None}
