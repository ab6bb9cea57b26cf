"""Server-side charts for agreement reports: matplotlib (Agg) to PNG, no JavaScript, no CDN.

Figures are built with `matplotlib.figure.Figure` directly (no pyplot global state), so rendering
is safe in threaded servers. `available_charts(report)` lists what a report can draw without
drawing it; the page puts each chart's URL in an <img> (which cannot run scripts, so nothing needs
`|safe`) and `render_chart(report, key)` draws one PNG when the browser asks for it. The page
itself therefore never waits for matplotlib.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from agreement.reports import (  # noqa: E402
    REPORT_CACHE_SECONDS,
    Report,
    cache_key,
    labels_fingerprint,
    report_for_fingerprint,
)
from agreement.selection import Selection  # noqa: E402

MAX_CONFUSION = 6
MAX_SCATTER = 4
MAX_STRATA = 25


@dataclass(frozen=True)
class Chart:
    key: str
    title: str
    png: bytes
    alt: str


@dataclass(frozen=True)
class ChartSpec:
    key: str
    title: str
    alt: str


def _png(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    return buffer.getvalue()


def _num(x: object) -> float:
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")
    return value


def forest_plot(frame: pd.DataFrame) -> Chart | None:
    """AC1 with its confidence interval per task, Fleiss' kappa as a hollow marker beside it."""
    if frame is None or frame.empty:
        return None
    if "stratum" in frame:
        frame = frame[frame["stratum"] == "All"]
    frame = frame[frame["ac1"].notna()]
    if frame.empty:
        return None
    labels = frame["task"].astype(str).tolist()
    ac1 = frame["ac1"].map(_num).to_numpy()
    low = frame["ac1_ci_low"].map(_num).to_numpy()
    high = frame["ac1_ci_high"].map(_num).to_numpy()
    kappa = frame["fleiss_kappa"].map(_num).to_numpy()
    y = np.arange(len(labels))[::-1]
    fig = Figure(figsize=(6.5, 0.5 * len(labels) + 1.2))
    ax = fig.add_subplot()
    err = np.vstack([np.nan_to_num(ac1 - low), np.nan_to_num(high - ac1)])
    ax.errorbar(ac1, y, xerr=err, fmt="o", color="#1f5f8b", capsize=4, label="Gwet's AC1 (95% CI)")
    ax.scatter(kappa, y - 0.18, marker="D", facecolors="none", edgecolors="#b5541c", label="Fleiss' kappa")
    ax.axvline(0.8, color="#999", linestyle=":", linewidth=1)
    ax.set_yticks(y, labels)
    ax.set_xlim(min(-0.1, np.nanmin(np.concatenate([low, kappa])) - 0.05), 1.02)
    ax.set_xlabel("coefficient")
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    fig.tight_layout()
    return Chart("forest", "AC1 with 95% CI per task", _png(fig),
                 "Forest plot: " + "; ".join(f"{t} AC1 {v:.3f}" for t, v in zip(labels, ac1, strict=True)))


def confusion_charts(confusion: dict[str, list[tuple[str, int, int, int, int]]]) -> list[Chart]:
    """One row of 2x2 confusion matrices per grader: grader (columns) against each physician (rows)."""
    charts = []
    for grader, per_rater in confusion.items():
        shown = per_rater[:MAX_CONFUSION]
        if not shown:
            continue
        fig = Figure(figsize=(2.3 * len(shown), 2.5))
        for k, (rater, tp, fp, fn, tn) in enumerate(shown):
            ax = fig.add_subplot(1, len(shown), k + 1)
            cells = np.array([[tp, fn], [fp, tn]], dtype=float)
            ax.imshow(cells, cmap="Blues")
            for (i, j), v in np.ndenumerate(cells):
                ax.text(j, i, f"{int(v)}", ha="center", va="center",
                        color="white" if v > cells.max() / 2 else "black", fontsize=9)
            ax.set_xticks([0, 1], ["met", "not met"], fontsize=8)
            ax.set_yticks([0, 1], ["met", "not met"], fontsize=8)
            ax.set_xlabel("grader", fontsize=8)
            ax.set_ylabel(rater, fontsize=8)
        fig.tight_layout()
        more = f" (first {MAX_CONFUSION} of {len(per_rater)} physicians)" if len(per_rater) > MAX_CONFUSION else ""
        charts.append(Chart(f"confusion-{len(charts)}", f"Confusion matrices: {grader}{more}", _png(fig),
                            f"Confusion matrices of {grader} against each physician"))
    return charts


def scatter_charts(scatter: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[Chart]:
    """Grader score against the physicians' consensus score per response, with the least-squares line."""
    charts = []
    for grader, (x, y) in list(scatter.items())[:MAX_SCATTER]:
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        ok = ~np.isnan(x) & ~np.isnan(y)
        if ok.sum() < 2:
            continue
        fig = Figure(figsize=(4.2, 3.6))
        ax = fig.add_subplot()
        ax.scatter(x[ok], y[ok], s=8, alpha=0.35, color="#1f5f8b", rasterized=True)
        if np.ptp(x[ok]) > 0:
            slope, intercept = np.polyfit(x[ok], y[ok], 1)
            line = np.array([0.0, 1.0])
            ax.plot(line, slope * line + intercept, color="#b5541c", label=f"y = {slope:.2f}x + {intercept:.2f}")
            ax.legend(fontsize=8, frameon=False, loc="upper left")
        ax.plot([0, 1], [0, 1], color="#bbb", linestyle=":", linewidth=1)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("physicians' consensus score")
        ax.set_ylabel("grader score")
        ax.set_title(grader, fontsize=9)
        fig.tight_layout()
        charts.append(Chart(f"scatter-{len(charts)}", f"Grader vs consensus: {grader}", _png(fig),
                            f"Scatter of {grader} score against the consensus score, {int(ok.sum())} responses"))
    return charts


def stratum_bars(frame: pd.DataFrame, *, value: str, group: str, title: str, key: str) -> Chart | None:
    """Grouped bars of one value per stratum (largest strata first, at most MAX_STRATA)."""
    if frame is None or frame.empty or "stratum" not in frame or value not in frame:
        return None
    data = frame[frame["stratum"] != "All"][["stratum", group, value]].copy()
    data[value] = data[value].map(_num)
    data = data.dropna(subset=[value])
    if data.empty:
        return None
    wide = data.pivot_table(index="stratum", columns=group, values=value, aggfunc="first")
    wide = wide.iloc[:MAX_STRATA]
    fig = Figure(figsize=(max(5.0, 0.45 * len(wide) * max(1, len(wide.columns)) + 2), 3.6))
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(wide.columns))
    x = np.arange(len(wide))
    for k, column in enumerate(wide.columns):
        ax.bar(x + k * width, wide[column].to_numpy(), width, label=str(column))
    ax.set_xticks(x + width * (len(wide.columns) - 1) / 2, [str(s) for s in wide.index], rotation=35, ha="right",
                  fontsize=8)
    ax.set_ylabel(value)
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    return Chart(key, title, _png(fig), f"{title}: bar chart over {len(wide)} strata")


def _strata_specs(report: Report) -> list[tuple[str, str, str, str]]:
    """(key, table key, value column, group column) of the per-stratum bar charts."""
    strata = report.chart_data.get("strata", {})
    out = []
    if strata.get("data_quality") is not None:
        out.append(("strata-ac1", "data_quality", "ac1", "task"))
    if strata.get("grader_reliability") is not None:
        out.append(("strata-mf1", "grader_reliability", "macro_f1", "evaluator"))
    return out


def available_charts(report: Report) -> list[ChartSpec]:
    """The charts a report can draw, in page order (cheap: nothing is drawn)."""
    specs: list[ChartSpec] = []
    forest = report.chart_data.get("forest")
    if forest is not None and len(forest) and forest["ac1"].notna().any():
        specs.append(ChartSpec("forest", "AC1 with 95% CI per task", "Forest plot of AC1 per task"))
    scatter = report.chart_data.get("scatter", {})
    for k, grader in enumerate(list(scatter)[:MAX_SCATTER]):
        specs.append(ChartSpec(f"scatter-{k}", f"Grader vs consensus: {grader}",
                               f"Scatter of {grader} score against the physicians' consensus score"))
    for k, grader in enumerate(report.chart_data.get("confusion", {})):
        specs.append(ChartSpec(f"confusion-{k}", f"Confusion matrices: {grader}",
                               f"Confusion matrices of {grader} against each physician"))
    titles = {"strata-ac1": "AC1 per stratum", "strata-mf1": "Macro-F1 per stratum"}
    for key, _table, _value, _group in _strata_specs(report):
        specs.append(ChartSpec(key, titles[key], f"{titles[key]}: bar chart"))
    return specs


def render_chart(report: Report, key: str) -> Chart | None:
    """Draw one chart of `available_charts(report)`; None for an unknown key."""
    kind, _, index = key.partition("-")
    chart: Chart | None = None
    if key == "forest":
        chart = forest_plot(report.chart_data.get("forest"))
    elif kind == "scatter" and index.isdigit():
        items = list(report.chart_data.get("scatter", {}).items())[:MAX_SCATTER]
        if int(index) < len(items):
            charts = scatter_charts(dict([items[int(index)]]))
            chart = charts[0] if charts else None
    elif kind == "confusion" and index.isdigit():
        items = list(report.chart_data.get("confusion", {}).items())
        if int(index) < len(items):
            charts = confusion_charts(dict([items[int(index)]]))
            chart = charts[0] if charts else None
    else:
        strata = report.chart_data.get("strata", {})
        titles = {"strata-ac1": "AC1 per stratum", "strata-mf1": "Macro-F1 per stratum"}
        for spec_key, table, value, group in _strata_specs(report):
            if spec_key == key:
                chart = stratum_bars(strata.get(table), value=value, group=group, title=titles[key], key=key)
    if chart is None:
        return None
    return Chart(key, chart.title, chart.png, chart.alt)


def cached_chart(selection: Selection, key: str) -> Chart | None:
    """One rendered chart of a selection's report, or None; cached like the report it is drawn from."""
    from django.core.cache import cache

    fingerprint = labels_fingerprint()
    chart_key = cache_key(f"chart:{key}", selection, fingerprint)
    chart = cache.get(chart_key)
    if chart is None:
        chart = render_chart(report_for_fingerprint(selection, fingerprint), key)
        if chart is not None:
            cache.set(chart_key, chart, REPORT_CACHE_SECONDS)
    return chart
