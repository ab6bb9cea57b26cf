"""Position bias of pairwise judges: the pure statistic and the whole-run read the reports use.

(Moved from tests/graders/test_selectors.py with `graders.selectors.pairwise_position_bias`, which had
no user but the agreement reports.)
"""

from agreement import metrics
from agreement.selectors import pairwise_run_frame
from graders.models import GraderRun, PairwiseJudgement
from tests.factories import make_case, make_response


def _bias(run: GraderRun) -> metrics.PairwisePositionBias:
    frame = pairwise_run_frame([run.pk])
    return metrics.pairwise_position_bias(frame["a"], frame["b"], frame["order"], frame["verdict"])


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
    bias = _bias(run)
    assert bias.pairs == 3
    assert bias.pairs_both_orders == 2
    assert bias.flips == 1
    assert bias.flip_share == 0.5
    assert bias.invalid == 1
    # decided judgements: ab/A (first), ba/A (second), ab/A (first), ba/B (first) -> 3 of 4
    assert bias.first_shown_win_share == 0.75


def test_it_reports_no_share_without_pairs(db):
    run = GraderRun.objects.create(name="pairwise", kind="pairwise-judge", grader_model="g")
    assert _bias(run).flip_share is None


def test_it_reads_whole_runs_only_for_the_runs_asked(db):
    revision = make_case()
    r1, r2 = make_response(revision, model_name="m1"), make_response(revision, model_name="m2")
    mine = GraderRun.objects.create(name="mine", kind="pairwise-judge", grader_model="g")
    other = GraderRun.objects.create(name="other", kind="pairwise-judge", grader_model="g")
    PairwiseJudgement.objects.create(run=mine, response_a=r1, response_b=r2, order="ab", verdict="A")
    PairwiseJudgement.objects.create(run=other, response_a=r1, response_b=r2, order="ab", verdict="B")
    frame = pairwise_run_frame([mine.pk])
    assert frame["run"].tolist() == [mine.pk]
    assert frame["verdict"].tolist() == ["A"]


def test_the_latest_of_two_judgements_in_one_order_counts():
    bias = metrics.pairwise_position_bias([1, 1, 1], [2, 2, 2], ["ab", "ab", "ba"], ["B", "A", "A"])
    assert bias.pairs == 1
    assert bias.pairs_both_orders == 1
    assert bias.flips == 0
    assert bias.judgements == 3
    assert bias.first_shown_wins == 1  # ab/A only: ab/B and ba/A are won by the second shown
    assert bias.failed == 0


def test_it_counts_failed_judgements_and_has_no_share_without_decided_ones():
    bias = metrics.pairwise_position_bias([1, 1], [2, 2], ["ab", "ba"], ["failed", "tie"])
    assert bias.failed == 1
    assert bias.judgements == 1
    assert bias.first_shown_win_share is None
    assert bias.pairs_both_orders == 0
