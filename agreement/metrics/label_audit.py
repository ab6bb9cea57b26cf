"""How good the AI's labels are, and how good generation pipelines are (LiveClin App. E, J, Table 1).

- ``taxonomy_accuracy``: App. E's table. Per taxonomy level, the share of items whose AI label
  equals the expert's label on that level ("98.5% for Level-1 Chapters, 97.5% for Level-2 Disease
  Clusters, and 97.0% for Level-3 ICD-10 codes"), with a Wilson score interval. Each level is
  compared on its own: a wrong cluster under the right chapter still counts for level 1.
- ``expert_agreement_by_level``: where two experts (or more) assigned an item, their agreement per
  level with the existing coefficients (Cohen's kappa for two, Gwet's AC1 for any number).
- ``audit_accuracy``: App. J's audit. Each AI label was marked correct, or corrected by a physician;
  the share correct per label family (image / table modality, stage, ...) and pooled, Wilson CI.
- ``pipeline_comparison``: Table 1. The physician-validated pass rate of each generation pipeline
  with its Wilson CI, the pass rate on the Judge-approved subset, and each pair of pipelines
  compared with McNemar's test (statsmodels) on the items both produced (exact binomial when the
  discordant pairs are few).

Wilson intervals are statsmodels' ``proportion_confint(method="wilson")`` (via
``judges.wilson_interval``); nothing undefined is returned as a number (``None`` plus ``reason``).
Pure: numpy / scipy / statsmodels, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from agreement.metrics.coefficients import cohen_kappa, gwet_ac1
from agreement.metrics.judges import wilson_interval
from agreement.metrics.results import AgreementResult

# Below this many discordant pairs McNemar's chi-square approximation is poor: the exact binomial
# test is used (the usual rule, b + c < 25).
EXACT_BELOW = 25


@dataclass(frozen=True)
class Proportion:
    """``successes`` of ``n``; ``value`` and ``ci`` are None when ``n`` is 0."""

    successes: int
    n: int
    value: float | None
    ci: tuple[float, float] | None
    reason: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"successes": self.successes, "n": self.n, "value": self.value,
                "ci": list(self.ci) if self.ci else None, "reason": self.reason}


def proportion(successes: int, n: int, *, confidence: float = 0.95) -> Proportion:
    """A share with its Wilson score interval (good near 0 and 1, where App. J's 100% sits)."""
    if n <= 0:
        return Proportion(0, 0, None, None, "no items")
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} outside 0..{n}")
    return Proportion(int(successes), int(n), successes / n, wilson_interval(successes, n, confidence=confidence))


def _missing(value: Any) -> bool:
    return value is None or value == "" or (isinstance(value, float) and math.isnan(value))


def label_accuracy(predicted: Sequence[Any], reference: Sequence[Any], *, confidence: float = 0.95) -> Proportion:
    """Share of items whose predicted label equals the reference label. Items without a reference
    are left out; an item the model left unlabelled (missing prediction) counts as wrong."""
    if len(predicted) != len(reference):
        raise ValueError(f"{len(predicted)} predictions for {len(reference)} reference labels")
    pairs = [(p, r) for p, r in zip(predicted, reference, strict=True) if not _missing(r)]
    correct = sum(1 for p, r in pairs if not _missing(p) and p == r)
    return proportion(correct, len(pairs), confidence=confidence)


def taxonomy_accuracy(
    ai: Sequence[Sequence[Any]], expert: Sequence[Sequence[Any]], *, levels: int | None = None,
    confidence: float = 0.95,
) -> dict[int, Proportion]:
    """App. E: per level (1 = top), the AI's accuracy against the expert. ``ai`` and ``expert`` hold
    one path per item, the label on each level in order (("2", "C40-C41", "C41"), ...); a path may
    be shorter where a level was not labelled."""
    if len(ai) != len(expert):
        raise ValueError(f"{len(ai)} AI paths for {len(expert)} expert paths")
    depth = levels or max((len(path) for path in (*ai, *expert)), default=0)

    def at(path: Sequence[Any], level: int) -> Any:
        return path[level - 1] if len(path) >= level else None

    return {
        level: label_accuracy([at(p, level) for p in ai], [at(p, level) for p in expert], confidence=confidence)
        for level in range(1, depth + 1)
    }


@dataclass(frozen=True)
class ExpertAgreement:
    level: int
    n_items: int
    cohen: AgreementResult | None  # exactly two experts per item only
    gwet_ac1: AgreementResult


def expert_agreement_by_level(
    ratings: Mapping[int, Sequence[Sequence[Any]]], *, confidence: float = 0.95
) -> list[ExpertAgreement]:
    """``ratings[level]``: items x experts, the label each expert gave on that level (None where an
    expert did not rate the item). Categories are the labels observed on the level."""
    results = []
    for level in sorted(ratings):
        matrix = [list(row) for row in ratings[level]]
        width = max((len(row) for row in matrix), default=0)
        cohen = cohen_kappa(matrix, confidence=confidence) if width == 2 else None
        results.append(ExpertAgreement(level, len(matrix), cohen, gwet_ac1(matrix, confidence=confidence)))
    return results


def audit_accuracy(
    families: Sequence[Hashable], correct: Sequence[bool], *, confidence: float = 0.95
) -> dict[Hashable, Proportion]:
    """App. J: the share of AI labels the physician marked correct, per label family and pooled
    (key ``"all"``). ``correct[i]`` is False when the physician corrected label i."""
    if len(families) != len(correct):
        raise ValueError(f"{len(families)} families for {len(correct)} verdicts")
    flags = np.asarray(correct, dtype=bool)
    keys = np.asarray(families, dtype=object)
    result: dict[Hashable, Proportion] = {}
    for family in sorted(set(families), key=str):
        mask = keys == family
        result[family] = proportion(int(flags[mask].sum()), int(mask.sum()), confidence=confidence)
    result["all"] = proportion(int(flags.sum()), int(flags.size), confidence=confidence)
    return result


@dataclass(frozen=True)
class McNemar:
    """Pipeline ``a`` against ``b`` on the ``n`` items both produced. ``b_only`` = items passed by
    ``a`` and failed by ``b``; ``difference`` = pass rate of a minus pass rate of b on those items.
    ``method``: "exact" (two-sided binomial test of b_only against b_only + c_only, p = 1/2) or
    "chi-square" (with continuity correction, 1 degree of freedom)."""

    a: str
    b: str
    n: int
    a_only: int
    b_only: int
    difference: float | None
    statistic: float | None
    p_value: float | None
    method: str
    reason: str | None = None


def mcnemar(passed_a: Sequence[bool], passed_b: Sequence[bool], *, a: str = "a", b: str = "b",
            exact: bool | None = None) -> McNemar:
    """McNemar's test for paired pass / fail outcomes. ``exact=None`` picks the exact binomial test
    when fewer than ``EXACT_BELOW`` pairs are discordant, the corrected chi-square otherwise."""
    x = np.asarray(passed_a, dtype=bool)
    y = np.asarray(passed_b, dtype=bool)
    if x.shape != y.shape:
        raise ValueError(f"{x.size} outcomes for {a} and {y.size} for {b}: pair them by item first")
    n = int(x.size)
    a_only, b_only = int((x & ~y).sum()), int((~x & y).sum())
    discordant = a_only + b_only
    use_exact = discordant < EXACT_BELOW if exact is None else exact
    method = "exact" if use_exact else "chi-square"
    if n == 0:
        return McNemar(a, b, 0, 0, 0, None, None, None, method, "no paired items")
    difference = (a_only - b_only) / n
    if discordant == 0:
        return McNemar(a, b, n, a_only, b_only, difference, None, 1.0, method,
                       "no discordant pairs: the pipelines passed and failed the same items")
    both, neither = int((x & y).sum()), int((~x & ~y).sum())
    # statsmodels: exact = two-sided binomial test of min(b, c); otherwise chi-square with continuity correction.
    result = sm_mcnemar([[both, a_only], [b_only, neither]], exact=use_exact, correction=True)
    return McNemar(a, b, n, a_only, b_only, difference, float(result.statistic), float(result.pvalue), method)


@dataclass(frozen=True)
class PipelineComparison:
    pass_rates: dict[str, Proportion]
    judge_approved: dict[str, Proportion]  # pipelines whose items carry a Judge verdict only
    pairs: list[McNemar]


def pipeline_comparison(
    outcomes: Mapping[str, Mapping[Hashable, bool]],
    *,
    judge_approved: Mapping[str, Mapping[Hashable, bool]] | None = None,
    confidence: float = 0.95,
) -> PipelineComparison:
    """Table 1: ``outcomes[pipeline][item]`` is True when physicians validated the item that pipeline
    generated (items are the source case reports, shared by the pipelines). ``judge_approved``
    (optional, per pipeline and item) restricts a second pass rate to the items the Judge approved.
    Pairs are compared on the items both pipelines have, in the order the pipelines are given."""
    rates = {name: proportion(sum(map(bool, items.values())), len(items), confidence=confidence)
             for name, items in outcomes.items()}
    approved: dict[str, Proportion] = {}
    for name, verdicts in (judge_approved or {}).items():
        items = outcomes.get(name, {})
        kept = [item for item, ok in verdicts.items() if ok and item in items]
        approved[name] = proportion(sum(bool(items[i]) for i in kept), len(kept), confidence=confidence)
    pairs = []
    for first, second in combinations(outcomes, 2):
        shared = [item for item in outcomes[first] if item in outcomes[second]]
        pairs.append(mcnemar([outcomes[first][i] for i in shared], [outcomes[second][i] for i in shared],
                             a=first, b=second))
    return PipelineComparison(rates, approved, pairs)
