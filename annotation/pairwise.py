"""Pairwise labels as shown vs as stored (no imports: services and selectors both use it).

A rater answers "A" / "B" for the response shown first / second. Ratings store them canonically
(A = `item.response`, B = `item.response_b`, like `graders.PairwiseJudgement`) and
`Assignment.pair_order` records the order the rater saw; drafts keep the labels as shown.
"""


def pair_label_to_canonical(label: str, pair_order: str) -> str:
    """A rater's "A" is the response shown first; store it in terms of item.response / response_b."""
    if pair_order == "ba" and label in ("A", "B"):
        return "B" if label == "A" else "A"
    return label


pair_label_as_shown = pair_label_to_canonical  # swapping is its own inverse
