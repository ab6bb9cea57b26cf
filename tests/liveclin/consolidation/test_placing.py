"""Which rule places a label, on plain data: explicit mappings win, then keywords in order, matched
as whole words in any case."""

from liveclin.consolidation.placing import KEYWORD, MAPPING, Rule, place, place_all

RULES = [Rule(KEYWORD, "follow-up", "F1", 1), Rule(KEYWORD, "CT", "CT1", 2), Rule(KEYWORD, "imaging", "D1", 3),
         Rule(KEYWORD, "initial", "P1", 4), Rule(MAPPING, "Initial diagnostic imaging", "P1", 5)]


def test_it_lets_an_explicit_mapping_win_over_keywords_whatever_the_case_and_spaces() -> None:
    assert place("  initial   Diagnostic IMAGING ", RULES).kind == MAPPING


def test_it_tries_keywords_in_order() -> None:
    assert place("Initial imaging follow-up", RULES).category == "F1"
    assert place("Repeat imaging", RULES).category == "D1"


def test_it_matches_keywords_as_whole_words_only() -> None:
    assert place("CT Angiography", RULES).category == "CT1"
    assert place("Doctor's note", RULES) is None  # "ct" inside a word
    assert place("Post-operative follow-up", RULES).category == "F1"


def test_it_leaves_a_label_no_rule_places_unplaced() -> None:
    assert place_all(["Genetic counselling", "CT"], RULES)["Genetic counselling"] is None
