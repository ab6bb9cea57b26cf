"""The final-label ladder on its own: inspector, else unanimous first round, else unresolved."""

from annotation.outcomes.final_labels import FinalDecision, decide_final_label


def test_it_the_inspectors_decision_wins_over_the_first_round() -> None:
    decision = decide_final_label(stored_label="0", stored_source="adjudicated", first_round=["2", "2"],
                                  raters_per_item=2)
    assert decision == FinalDecision(label="0", rule="inspector", source="adjudicated")
    accepted = decide_final_label(stored_label="1", stored_source="accepted", first_round=["1", "2"],
                                  raters_per_item=2)
    assert accepted.rule == "inspector" and accepted.source == "accepted"


def test_it_a_consensus_row_or_a_complete_unanimous_first_round_is_unanimous() -> None:
    stored = decide_final_label(stored_label="agree", stored_source="consensus", first_round=["agree", "agree"],
                                raters_per_item=2)
    assert (stored.rule, stored.source) == ("unanimous", "consensus")
    read = decide_final_label(stored_label=None, stored_source=None, first_round=["agree", "agree"],
                              raters_per_item=2)
    assert read == FinalDecision(label="agree", rule="unanimous", source="first-round")


def test_it_disagreement_or_missing_raters_leave_the_field_unresolved() -> None:
    for first_round in (["agree", "disagree"], ["agree"], []):
        decision = decide_final_label(stored_label=None, stored_source=None, first_round=first_round,
                                      raters_per_item=2)
        assert decision == FinalDecision(label=None, rule="unresolved", source="")
        assert not decision.resolved
