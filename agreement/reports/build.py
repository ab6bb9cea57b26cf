"""The report: every table family for a selection."""

from __future__ import annotations

import datetime as dt
from typing import Any

from agreement.reports.base import LabelData, Report, Table
from agreement.reports.coverage import coverage_calibration_tables, coverage_tables, coverage_tau
from agreement.reports.data_quality import data_quality_tables
from agreement.reports.expert_groups import designed_groups, expert_group_tables
from agreement.reports.grader_reliability import grader_reliability_tables
from agreement.reports.loading import load_labels
from agreement.reports.medic import medic_tables
from agreement.reports.position_bias import position_bias_table
from agreement.reports.strata import _stratified
from agreement.selectors import (
    Selection,
    task_targets,
)

#: Table families that belong to one kind of task (`TaskType.target`): a study's report shows a
#: family only when one of the study's tasks is of that kind, so a Likert study never shows the
#: pairwise judges' tables that happen to cover its responses, and the other way round.
RUBRIC_DECISIONS, LIKERT_AXES, PAIRWISE = "response_criterion", "response_axis", "pairwise"


def build_report(selection: Selection, *, data: LabelData | None = None) -> Report:
    data = data if data is not None else load_labels(selection)
    chart_data: dict[str, Any] = {}
    stratum = selection.stratify_by

    def reliability(d: LabelData) -> list[Table]:
        return grader_reliability_tables(d, chart_data if d is data else None)

    targets = task_targets(selection)

    def kind(target: str) -> bool:
        return targets is None or target in targets

    designed = designed_groups(selection) if kind(RUBRIC_DECISIONS) else None

    def groups(d: LabelData) -> list[Table]:
        return expert_group_tables(d, selection, designed)

    tau = coverage_tau(data, selection) if kind(RUBRIC_DECISIONS) else None

    def coverage(d: LabelData) -> list[Table]:
        return coverage_tables(d, selection, tau)

    tables: list[Table] = []
    builders = [data_quality_tables, *([reliability, groups, coverage] if kind(RUBRIC_DECISIONS) else [])]
    for builder in builders:
        if stratum:
            tables.extend(_stratified(builder, data, stratum))
        else:
            tables.extend(builder(data))
    if stratum == "model":
        # A ranking of models within one model is meaningless.
        tables = [t for t in tables if t.key not in (
            "model_scores", "ranking_stability", "threshold_sensitivity", "ranking_stability_cacs")]
    if kind(PAIRWISE):
        tables.extend(position_bias_table(data))
    tables.extend(medic_tables(data, data.human_pairwise, likert=kind(LIKERT_AXES), pairwise=kind(PAIRWISE)))
    if stratum:
        # Calibration describes the physician-written responses, not a stratum: one table, unstacked.
        tables = [t for t in tables if t.key not in ("tau_calibration", "tau_distribution")]
        tables.extend(coverage_calibration_tables(tau, selection.tau_model))
    if stratum:
        chart_data["strata"] = {
            t.key: t.frame for t in tables if t.key in ("data_quality", "grader_reliability")
        }
    counts = {
        "ratings_round_1": int(len(data.ratings)),
        "ratings_later_rounds_not_used": int(data.later_rounds),
        "raters": int(data.ratings["rater"].nunique()) if len(data.ratings) else 0,
        "grader_decisions": int(len(data.decisions)),
        "judge_scores": int(len(data.judges)),
        "pairwise_judgements": int(len(data.pairwise)),
        "ratings_imported": int(data.imported_ratings),
    }
    dq = next((t for t in tables if t.key == "data_quality"), None)
    if dq is not None:
        chart_data["forest"] = dq.frame
    return Report(
        selection=selection, tables=tables, counts=counts, generated_at=dt.datetime.now(dt.UTC),
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
