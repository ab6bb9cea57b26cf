"""Agreement and grader-fidelity statistics for medreview.

Pure functions over numpy arrays: no Django import, no database access.
See ``docs/metrics.md`` for the formulas, conventions and the table of
degenerate results.

Conventions shared by the chance-corrected coefficients
-------------------------------------------------------
* ``ratings`` is subjects x raters: a sequence of subjects, each a sequence
  with one label per rater (``None``/``NaN``/``""`` where a rater did not
  rate that subject), a 2-D numpy array (``NaN`` = missing) or a pandas
  DataFrame.  Subjects with no rating at all are dropped (as irrCAC does).
* ``categories`` is the scale's declared list of categories; when omitted,
  the observed labels, sorted.  Chance agreement always uses the declared
  categories, so undeclared-but-possible categories matter.
* Results follow Gwet (2008/2014) and the irrCAC package: variance without
  finite-population correction, CI = value +- t(1 - a/2, n - 1) * se with the
  upper bound capped at 1 and the lower bound *not* clipped, ``p_value``
  one-sided (H0: coefficient <= 0), ``p_value_two_sided`` as irrCAC reports
  for AC1/AC2/Fleiss/Cohen.
* Nothing undefined is ever returned as a number: such a field is ``None``
  and ``reason`` explains why.

Modules: ``results`` (result types, inference), ``encoding`` (labels to codes, count and weight
matrices), ``coefficients`` (AC1/AC2, Fleiss, Cohen/Conger, Brennan-Prediger, percent agreement),
``krippendorff``, ``binary`` (Macro-F1), ``correlation``, ``rubrics/`` (``rubric``: rubric accuracy,
case score, CACS; ``coverage``: ClinConsensus coverage and tau; ``ranking``: ranking stability between
graders), ``bootstrap``, ``per_rater`` (each rater against the others, AC1 from its sums),
``pairwise`` (position bias of pairwise judges),
``label_audit`` (AI labels against experts per taxonomy level, audit accuracy per label family,
pipeline pass rates with McNemar; LiveClin App. E, J, Table 1). Import from the package:
``from agreement.metrics import gwet_ac1``.
"""

from __future__ import annotations

from agreement.metrics.binary import encode_binary, macro_f1, macro_f1_from_counts, macro_f1_vs_raters
from agreement.metrics.bootstrap import bootstrap_macro_f1, bootstrap_macro_f1_difference
from agreement.metrics.coefficients import (
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    percent_agreement,
)
from agreement.metrics.correlation import kendall, pearson, spearman
from agreement.metrics.encoding import count_matrix, encode_ratings, weight_matrix
from agreement.metrics.krippendorff import krippendorff_alpha
from agreement.metrics.label_audit import (
    McNemar,
    PipelineComparison,
    Proportion,
    audit_accuracy,
    expert_agreement_by_level,
    label_accuracy,
    mcnemar,
    pipeline_comparison,
    proportion,
    taxonomy_accuracy,
)
from agreement.metrics.pairwise import PairwisePositionBias, pairwise_position_bias
from agreement.metrics.per_rater import PerRaterResult, ac1_from_sums, ac1_terms, per_rater_agreement
from agreement.metrics.results import (
    AgreementResult,
    AlphaResult,
    BootstrapResult,
    CacsResult,
    CorrelationResult,
    MacroF1Result,
    MacroF1VsRatersResult,
    MetricResult,
)
from agreement.metrics.rubrics.ranking import ranking_stability
from agreement.metrics.rubrics.rubric import cacs, case_score, case_scores, rubric_accuracy

__all__ = [
    "AgreementResult",
    "AlphaResult",
    "BootstrapResult",
    "CacsResult",
    "CorrelationResult",
    "MacroF1Result",
    "MacroF1VsRatersResult",
    "McNemar",
    "MetricResult",
    "PerRaterResult",
    "PairwisePositionBias",
    "PipelineComparison",
    "Proportion",
    "ac1_from_sums",
    "ac1_terms",
    "audit_accuracy",
    "bootstrap_macro_f1",
    "bootstrap_macro_f1_difference",
    "brennan_prediger",
    "cacs",
    "case_score",
    "case_scores",
    "cohen_kappa",
    "conger_kappa",
    "count_matrix",
    "encode_binary",
    "encode_ratings",
    "expert_agreement_by_level",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "kendall",
    "krippendorff_alpha",
    "label_accuracy",
    "macro_f1",
    "macro_f1_from_counts",
    "macro_f1_vs_raters",
    "mcnemar",
    "pearson",
    "per_rater_agreement",
    "percent_agreement",
    "pipeline_comparison",
    "proportion",
    "ranking_stability",
    "pairwise_position_bias",
    "rubric_accuracy",
    "spearman",
    "taxonomy_accuracy",
    "weight_matrix",
]
