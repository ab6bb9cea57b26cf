"""The report: every table family for a selection."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.utils import translation

from agreement.reports.base import LabelData, Report, Table, task_codes
from agreement.reports.loading import load_labels
from agreement.reports.strata import _stratified, stratum_masks
from agreement.reports.tables.coverage import coverage_calibration_tables, coverage_tables, coverage_tau
from agreement.reports.tables.data_quality import data_quality_tables
from agreement.reports.tables.expert_groups import designed_groups, expert_group_tables
from agreement.reports.tables.grader_reliability import grader_reliability_tables
from agreement.reports.tables.medic import medic_tables
from agreement.reports.tables.position_bias import position_bias_table
from agreement.selectors import (
    Selection,
    task_targets,
)

#: Table families that belong to one kind of task (`TaskType.target`): a study's report shows a
#: family only when one of the study's tasks is of that kind, so a Likert study never shows the
#: pairwise judges' tables that happen to cover its responses, and the other way round.
RUBRIC_DECISIONS, LIKERT_AXES, PAIRWISE = "response_criterion", "response_axis", "pairwise"


#: Rankings of models: meaningless within one model.
MODEL_RANKINGS = ("model_scores", "ranking_stability", "threshold_sensitivity", "ranking_stability_cacs")
CALIBRATION_TABLES = ("tau_calibration", "tau_distribution")


def _rubric_builders(
    data: LabelData, selection: Selection, chart_data: dict[str, Any], tau: Any,
) -> list[Callable[[LabelData], list[Table]]]:
    """The table builders of met / not met tasks: grader reliability, expert groups, coverage."""
    designed = designed_groups(selection)

    def reliability(d: LabelData) -> list[Table]:
        return grader_reliability_tables(d, chart_data if d is data else None)

    def groups(d: LabelData) -> list[Table]:
        return expert_group_tables(d, selection, designed)

    def coverage(d: LabelData) -> list[Table]:
        return coverage_tables(d, selection, tau)

    return [reliability, groups, coverage]


T = TypeVar("T")
R = TypeVar("R")


def _in_language(language: str | None, fn: Callable[[T], R]) -> Callable[[T], R]:
    """`fn` run in `language`: a new thread starts with no active language, and the tables' titles
    and notes must be in the reader's."""

    def call(arg: T) -> R:
        with translation.override(language):
            return fn(arg)

    return call


def _counts(data: LabelData) -> dict[str, int]:
    return {
        "ratings_round_1": int(len(data.ratings)),
        "ratings_later_rounds_not_used": int(data.later_rounds),
        "raters": int(data.ratings["rater"].nunique()) if len(data.ratings) else 0,
        "grader_decisions": int(len(data.decisions)),
        "judge_scores": int(len(data.judges)),
        "pairwise_judgements": int(len(data.pairwise)),
        "ratings_imported": int(data.imported_ratings),
    }


def build_report(selection: Selection, *, data: LabelData | None = None) -> Report:
    data = data if data is not None else load_labels(selection)
    chart_data: dict[str, Any] = {}
    stratum = selection.stratify_by
    targets = task_targets(selection)

    def kind(target: str) -> bool:
        return targets is None or target in targets

    masks = stratum_masks(data, stratum) if stratum else None

    def run(builder: Callable[[LabelData], list[Table]]) -> list[Table]:
        return _stratified(builder, data, stratum, masks) if stratum else builder(data)

    if len(data.ratings):
        task_codes(data)  # shared by both threads below: computed once, before either starts
    # The physicians' data-quality tables need nothing the other tables compute and read nothing from
    # the database: a second thread builds them meanwhile. numpy and pandas release the GIL in their
    # array work, so on two cores the 10x ClinConsensus report computes in 1.0 s instead of 1.55 s.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-tables") as pool:
        data_quality = pool.submit(_in_language(translation.get_language(), run), data_quality_tables)
        tau = coverage_tau(data, selection) if kind(RUBRIC_DECISIONS) else None
        rubric = [table for builder in (_rubric_builders(data, selection, chart_data, tau)
                                        if kind(RUBRIC_DECISIONS) else []) for table in run(builder)]
        tables: list[Table] = [*data_quality.result(), *rubric]
    if stratum == "model":
        tables = [t for t in tables if t.key not in MODEL_RANKINGS]
    if kind(PAIRWISE):
        tables.extend(position_bias_table(data))
    tables.extend(medic_tables(data, data.human_pairwise, likert=kind(LIKERT_AXES), pairwise=kind(PAIRWISE)))
    if stratum:
        # Calibration describes the physician-written responses, not a stratum: one table, unstacked.
        tables = [t for t in tables if t.key not in CALIBRATION_TABLES]
        tables.extend(coverage_calibration_tables(tau, selection.tau_model))
        chart_data["strata"] = {t.key: t.frame for t in tables if t.key in ("data_quality", "grader_reliability")}
    dq = next((t for t in tables if t.key == "data_quality"), None)
    if dq is not None:
        chart_data["forest"] = dq.frame
    return Report(
        selection=selection, tables=tables, counts=_counts(data), generated_at=dt.datetime.now(dt.UTC),
        chart_data=chart_data,
    )


def build_grader_reliability(selection: Selection) -> list[Table]:
    """Only the grader-reliability tables (what the benchmark times end to end)."""
    return grader_reliability_tables(load_labels(selection))


def software_version() -> str:
    """medreview's version: `medreview.__version__` if set, else pyproject.toml's [project] version."""
    import tomllib
    from pathlib import Path

    import medreview

    version = getattr(medreview, "__version__", None)
    if version:
        return str(version)
    pyproject = Path(medreview.__file__).resolve().parent.parent / "pyproject.toml"
    try:
        return str(tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "unknown"
