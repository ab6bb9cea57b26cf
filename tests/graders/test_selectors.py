"""Position bias of pairwise judges, as the agreement reports read it."""

from cases.models import GraderRun, PairwiseJudgement
from graders.selectors import pairwise_position_bias
from tests.factories import make_case, make_response


def test_it_counts_pairs_whose_verdict_flips_with_the_order(db):
    revision = make_case()
    r1, r2, r3 = (make_response(revision, model_name=m) for m in ("m1", "m2", "m3"))
    run = GraderRun.objects.create(name="pairwise", kind="pairwise-judge", grader_model="g")
    rows = [
        (r1, r2, "ab", "A"), (r1, r2, "ba", "A"),      # consistent
        (r1, r3, "ab", "A"), (r1, r3, "ba", "B"),      # flips: the first shown always wins
        (r2, r3, "ab", "tie"), (r2, r3, "ba", "invalid"),  # no valid verdict in both orders
    ]
    PairwiseJudgement.objects.bulk_create(
        PairwiseJudgement(run=run, response_a=a, response_b=b, order=o, verdict=v) for a, b, o, v in rows
    )
    bias = pairwise_position_bias(run)
    assert bias["pairs"] == 3
    assert bias["pairs_both_orders"] == 2
    assert bias["flips"] == 1
    assert bias["flip_share"] == 0.5
    assert bias["invalid"] == 1
    # decided judgements: ab/A (first), ba/A (second), ab/A (first), ba/B (first) -> 3 of 4
    assert bias["first_shown_win_share"] == 0.75


def test_it_reports_no_share_without_pairs(db):
    run = GraderRun.objects.create(name="pairwise", kind="pairwise-judge", grader_model="g")
    assert pairwise_position_bias(run)["flip_share"] is None
