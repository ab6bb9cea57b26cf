"""Agreement reports built from the database: LiveMedBench Tables 1-2, ClinConsensus 6.1, Table 15.

`build_report(selection)` reads the selection's labels with a fixed number of queries (see
`agreement.selectors`), turns them into integer-coded numpy arrays (pandas factorize, no Python
loop over labels) and calls the pure functions of `agreement.metrics`. Every table is a pandas
DataFrame inside a `Table`; pages, exports, the CLI and the API all render the same `Report`.

Labels used: first-round ratings only (`Rating.round == 1`, the independent labels given before
any inspection). Later rounds and final labels never enter a statistic; the report counts them.
Raters appear only under `Profile.pseudonym`.

Modules: ``base`` (conventions, `Table`, `LabelData`, `Report`), ``loading`` (the database reads),
``arrays`` (physician and grader arrays shared by several tables), ``tables/`` (one module per table
family: Table 1, Table 2, ranking, expert groups, coverage, MEDIC, position bias, translation),
``strata`` (stratification helpers), ``build`` (`build_report`), ``cache`` (cached reports; cached
charts are `agreement.charts.cached_chart`), ``presentation`` (human headers and compact cells for the
page, XLSX and PDF). Import from the package.
"""

from __future__ import annotations

from agreement.reports.arrays import (
    GraderArrays,
    HumanMatrix,
    grader_arrays,
    grader_vs_raters,
    human_matrix,
    judge_scores,
    reliability_ratings,
)
from agreement.reports.base import (
    CONSENSUS,
    CONVENTIONS,
    LABELS_USED,
    LOW_CASE_MF1,
    PAPER_LAYOUT_MAX_RATERS,
    RELIABILITY_SLUG,
    RELIABILITY_TARGET,
    SENIOR_RANKS,
    LabelData,
    Report,
    Table,
    task_codes,
)
from agreement.reports.build import build_grader_reliability, build_report, software_version
from agreement.reports.cache import (
    REPORT_CACHE_SECONDS,
    cache_key,
    cached_report,
    labels_fingerprint,
    report_for_fingerprint,
)
from agreement.reports.loading import load_labels
from agreement.reports.tables.data_quality import _coded_task_matrix, data_quality_tables
from agreement.reports.tables.expert_groups import expert_group_tables, group_labels
from agreement.reports.tables.grader_reliability import grader_reliability_tables
from agreement.reports.tables.per_rater import _per_rater_rows
from agreement.reports.tables.position_bias import position_bias_table

__all__ = [
    "CONSENSUS",
    "CONVENTIONS",
    "GraderArrays",
    "HumanMatrix",
    "LABELS_USED",
    "LOW_CASE_MF1",
    "LabelData",
    "PAPER_LAYOUT_MAX_RATERS",
    "RELIABILITY_SLUG",
    "RELIABILITY_TARGET",
    "REPORT_CACHE_SECONDS",
    "Report",
    "SENIOR_RANKS",
    "Table",
    "_coded_task_matrix",
    "_per_rater_rows",
    "build_grader_reliability",
    "build_report",
    "cache_key",
    "cached_report",
    "report_for_fingerprint",
    "data_quality_tables",
    "expert_group_tables",
    "grader_arrays",
    "grader_reliability_tables",
    "grader_vs_raters",
    "group_labels",
    "human_matrix",
    "judge_scores",
    "labels_fingerprint",
    "load_labels",
    "position_bias_table",
    "reliability_ratings",
    "software_version",
    "task_codes",
]
