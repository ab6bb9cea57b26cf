"""Server-side charts for agreement reports: matplotlib (Agg) to PNG, no JavaScript, no CDN.

Figures are built with `matplotlib.figure.Figure` directly (no pyplot global state), so rendering
is safe in threaded servers. `available_charts(report)` lists what a report can draw without
drawing it; the page puts each chart's URL in an <img> (which cannot run scripts, so nothing needs
`|safe`) and `render_chart(report, key)` draws one PNG when the browser asks for it. The page
itself therefore never waits for matplotlib. Text is never parsed as math (`text.parse_math` off).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
# Tick labels, legends and titles hold names from imported data (specialties, themes, axes, graders,
# models, pseudonyms): "$\frac{$" must be drawn as typed, never parsed as TeX math (which raised
# ValueError, a 500). Read when each Text is made, tick labels at draw time, so it is set for the
# process; medreview's own labels use no math. agreement/pdf.py sets it too.
matplotlib.rcParams["text.parse_math"] = False

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from django.utils.html import format_html  # noqa: E402
from django.utils.safestring import SafeString  # noqa: E402
from django.utils.translation import gettext as _  # noqa: E402
from django.utils.translation import gettext_noop, ngettext  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from agreement.reports import (  # noqa: E402
    REPORT_CACHE_SECONDS,
    Report,
    cache_key,
    labels_fingerprint,
    report_for_fingerprint,
)
from agreement.reports.presentation import header  # noqa: E402
from agreement.reports.words import cell_name  # noqa: E402
from agreement.selection import Selection  # noqa: E402
from graders.models import Verdict  # noqa: E402
from medreview.text import script_language  # noqa: E402

#: Chinese labels need a CJK font; matplotlib falls back glyph by glyph along this list (Debian:
#: fonts-noto-cjk). Without one, Chinese shows as boxes and everything else is unchanged.
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "WenQuanYi Zen Hei", "Source Han Sans SC")


def use_cjk_fallback() -> None:
    installed = []
    for family in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False)
        except ValueError:
            continue
        installed.append(family)
    matplotlib.rcParams["font.family"] = ["DejaVu Sans", *installed[:1]]


use_cjk_fallback()

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
    #: The title as HTML, the grader's name in it tagged with its own language (the page's caption).
    caption: SafeString | str = ""


def _named(template: str, name: str) -> tuple[str, SafeString]:
    """A translated `template` with `%(name)s`: as text, and as HTML with the name in its own language."""
    shown = cell_name(name)
    language = script_language(shown) if shown == name else ""
    tagged = format_html('<span lang="{}">{}</span>', language, shown) if language else format_html("{}", shown)
    pieces = template.split("%(name)s")
    return template % {"name": shown}, format_html("{}" * (2 * len(pieces) - 1), *[
        x for k, piece in enumerate(pieces) for x in ([piece] if k == 0 else [tagged, piece])])


#: Print quality everywhere: the page's charts are 300-dpi PNGs, and the PDF prints the same images
#: (cached once per chart and state of the labels) at the size they were drawn, so at 300 dpi.
PNG_DPI = 300


#: While set (by `chart_figures`), drawn figures are collected here instead of being rasterised.
_figure_sink: ContextVar[list[Figure] | None] = ContextVar("figure_sink", default=None)


def _png(fig: Figure) -> bytes:
    sink = _figure_sink.get()
    if sink is not None:
        sink.append(fig)
        return b""
    return png(fig)


#: zlib level of the PNGs: at 300 dpi the default (6) spends more time compressing than drawing;
#: level 1 is several times faster for files about a quarter larger.
PNG_COMPRESS_LEVEL = 1


def png(fig: Figure, dpi: int = PNG_DPI) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL})
    return buffer.getvalue()


def _figure(width: float, height: float) -> Figure:
    """A figure whose layout engine keeps labels, ticks and an outside legend from overlapping."""
    return Figure(figsize=(width, height), layout="constrained")


def svg(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg")
    return buffer.getvalue()


def _legend_below(fig: Figure, ax: object, ncol: int = 2) -> None:
    """The legend under the whole plot, below the axis label (the layout engine makes room for it)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncol=ncol, fontsize=8, frameon=False)


def _num(x: object) -> float:
    try:
        value = float(x)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return float("nan")
    return value


def _forest_rows(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """The tasks a forest plot draws (unstratified, with an AC1), or None when there are none."""
    if frame is None or frame.empty:
        return None
    if "stratum" in frame:
        frame = frame[frame["stratum"] == "All"]
    frame = frame[frame["ac1"].map(_num).notna()]
    return None if frame.empty else frame


#: Half the height of one task's row in a forest plot (data units): markers stay inside it.
ROW_HALF = 0.5
KAPPA_OFFSET = 0.2


def forest_figure(frame: pd.DataFrame | None) -> Figure | None:
    """AC1 with its confidence interval per task, Fleiss' kappa as a hollow marker just under it.

    Each task owns one row of height 1 whatever the number of tasks (fixed y limits), so with a
    single task the kappa marker sits 0.2 of a row under its AC1, not at the edge of the plot.
    """
    frame = _forest_rows(frame)
    if frame is None:
        return None
    names = frame["task_name"] if "task_name" in frame else frame["task"]
    labels = names.astype(str).tolist()
    ac1 = frame["ac1"].map(_num).to_numpy()
    low = frame["ac1_ci_low"].map(_num).to_numpy()
    high = frame["ac1_ci_high"].map(_num).to_numpy()
    kappa = frame["fleiss_kappa"].map(_num).to_numpy()
    y = np.arange(len(labels))[::-1].astype(float)
    fig = _figure(7.5, 0.55 * len(labels) + 1.9)
    ax = fig.add_subplot()
    err = np.vstack([np.nan_to_num(ac1 - low), np.nan_to_num(high - ac1)])
    ax.errorbar(ac1, y, xerr=err, fmt="o", color="#1f5f8b", capsize=4, label=_("Gwet's AC1 (95% CI)"))
    ax.scatter(kappa, y - KAPPA_OFFSET, marker="D", facecolors="none", edgecolors="#b5541c", label=_("Fleiss' κ"))
    ax.axvline(0.8, color="#999", linestyle=":", linewidth=1)
    ax.set_yticks(y, labels)
    ax.set_ylim(-ROW_HALF, len(labels) - ROW_HALF)
    finite = np.concatenate([low, kappa, ac1])
    finite = finite[np.isfinite(finite)]
    ax.set_xlim(min(-0.1, float(finite.min()) - 0.05 if finite.size else -0.1), 1.02)
    ax.set_xlabel(_("coefficient (dotted line: 0.8, “almost perfect”)"))
    _legend_below(fig, ax)
    return fig


def forest_plot(frame: pd.DataFrame | None) -> Chart | None:
    fig = forest_figure(frame)
    if fig is None:
        return None
    rows = _forest_rows(frame)
    names = (rows["task_name"] if "task_name" in rows else rows["task"]).astype(str).tolist()
    ac1 = rows["ac1"].map(_num).tolist()
    values = _("; ").join(f"{t} AC1 {v:.3f}" for t, v in zip(names, ac1, strict=True))
    return Chart("forest", _("AC1 with 95% CI per task"), _png(fig), _("Forest plot: %(values)s") % {"values": values})


def confusion_charts(confusion: dict[str, list[tuple[str, int, int, int, int]]]) -> list[Chart]:
    """One row of 2x2 confusion matrices per grader: grader (columns) against each physician (rows)."""
    charts = []
    for grader, per_rater in confusion.items():
        shown = per_rater[:MAX_CONFUSION]
        if not shown:
            continue
        fig = _figure(2.3 * len(shown), 2.5)
        for k, (rater, tp, fp, fn, tn) in enumerate(shown):
            ax = fig.add_subplot(1, len(shown), k + 1)
            cells = np.array([[tp, fn], [fp, tn]], dtype=float)
            ax.imshow(cells, cmap="Blues")
            for (i, j), v in np.ndenumerate(cells):
                ax.text(j, i, f"{int(v)}", ha="center", va="center",
                        color="white" if v > cells.max() / 2 else "black", fontsize=9)
            met_words = [str(Verdict.MET.label), str(Verdict.NOT_MET.label)]
            ax.set_xticks([0, 1], met_words, fontsize=8)
            ax.set_yticks([0, 1], met_words, fontsize=8)
            ax.set_xlabel(_("grader"), fontsize=8)
            ax.set_ylabel(rater, fontsize=8)
        title = _named(_("Confusion matrices: %(name)s"), grader)[0]
        if len(per_rater) > MAX_CONFUSION:
            title = _("%(title)s (the first %(shown)s of %(n)s physicians)") % {
                "title": title, "shown": MAX_CONFUSION, "n": len(per_rater)}
        charts.append(Chart(f"confusion-{len(charts)}", title, _png(fig),
                            _named(_("Confusion matrices of %(name)s against each physician"), grader)[0]))
    return charts


def _scatter_points(x: object, y: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, responses with both scores): a scatter needs two such points."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return x, y, ~np.isnan(x) & ~np.isnan(y)


def scatter_charts(scatter: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[Chart]:
    """Grader score against the physicians' consensus score per response, with the least-squares line."""
    charts = []
    for grader, (x, y) in list(scatter.items())[:MAX_SCATTER]:
        x, y, ok = _scatter_points(x, y)
        if ok.sum() < 2:
            continue
        fig = _figure(4.2, 3.8)
        ax = fig.add_subplot()
        ax.scatter(x[ok], y[ok], s=8, alpha=0.35, color="#1f5f8b", rasterized=True)
        if np.ptp(x[ok]) > 0:
            slope, intercept = np.polyfit(x[ok], y[ok], 1)
            line = np.array([0.0, 1.0])
            ax.plot(line, slope * line + intercept, color="#b5541c", label=f"y = {slope:.2f}x + {intercept:.2f}")
            _legend_below(fig, ax, ncol=1)
        ax.plot([0, 1], [0, 1], color="#bbb", linestyle=":", linewidth=1)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(_("physicians' consensus score"))
        ax.set_ylabel(_("grader score"))
        r = float(np.corrcoef(x[ok], y[ok])[0, 1]) if np.ptp(x[ok]) > 0 and np.ptp(y[ok]) > 0 else float("nan")
        stats_text = f"Pearson r = {r:.3f}, n = {int(ok.sum())}" if np.isfinite(r) else f"n = {int(ok.sum())}"
        ax.set_title(f"{cell_name(grader)}\n{stats_text}", fontsize=9)
        n = int(ok.sum())
        alt = ngettext("Scatter of %(name)s score against the consensus score, %(n)s response",
                       "Scatter of %(name)s score against the consensus score, %(n)s responses", n)
        charts.append(Chart(f"scatter-{len(charts)}", _named(_("Grader vs consensus: %(name)s"), grader)[0], _png(fig),
                            alt % {"name": cell_name(grader), "n": n}))
    return charts


def _strata_values(frame: pd.DataFrame | None, value: str, group: str) -> pd.DataFrame | None:
    """(stratum, group, value) rows with a value, the "All" rows left out; None when there are none."""
    if frame is None or frame.empty or "stratum" not in frame or value not in frame:
        return None
    data = frame[frame["stratum"] != "All"][["stratum", group, value]].copy()
    data[value] = data[value].map(_num)
    data = data.dropna(subset=[value])
    return None if data.empty else data


def stratum_bars(frame: pd.DataFrame, *, value: str, group: str, title: str, key: str) -> Chart | None:
    """Grouped bars of one value per stratum (largest strata first, at most MAX_STRATA)."""
    data = _strata_values(frame, value, group)
    if data is None:
        return None
    wide = data.pivot_table(index="stratum", columns=group, values=value, aggfunc="first")
    wide = wide.iloc[:MAX_STRATA]
    fig = _figure(max(5.0, 0.45 * len(wide) * max(1, len(wide.columns)) + 2), 4.0)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(wide.columns))
    x = np.arange(len(wide))
    for k, column in enumerate(wide.columns):
        ax.bar(x + k * width, wide[column].to_numpy(), width, label=cell_name(str(column)))
    ax.set_xticks(x + width * (len(wide.columns) - 1) / 2, [str(s) for s in wide.index], rotation=35, ha="right",
                  fontsize=8)
    ax.set_ylabel(header(value))
    _legend_below(fig, ax, ncol=min(3, max(1, len(wide.columns))))
    alt = ngettext("%(title)s: bar chart over %(n)s stratum", "%(title)s: bar chart over %(n)s strata", len(wide))
    return Chart(key, title, _png(fig), alt % {"title": title, "n": len(wide)})


Interval = tuple[str, str, float, float, float]


def _interval_plot(rows: list[Interval], *, xlabel: str, zero: float | None, key: str, title: str) -> Chart:
    """Points with 95% CIs: (label, series, value, low, high) per row; one colour per series."""
    labels = list(dict.fromkeys(r[0] for r in rows))
    series = list(dict.fromkeys(r[1] for r in rows))
    fig = _figure(7.5, 0.45 * len(labels) * max(1, len(series)) ** 0.5 + 2.0)
    ax = fig.add_subplot()
    step = 0.7 / max(1, len(series))
    for k, name in enumerate(series):
        mine = [r for r in rows if r[1] == name]
        y = np.array([len(labels) - 1 - labels.index(r[0]) for r in mine], dtype=float) + (k - (len(series) - 1) / 2) * step
        v = np.array([r[2] for r in mine])
        lo = np.array([r[3] if np.isfinite(r[3]) else r[2] for r in mine])
        hi = np.array([r[4] if np.isfinite(r[4]) else r[2] for r in mine])
        ax.errorbar(v, y, xerr=np.vstack([v - lo, hi - v]), fmt="o", capsize=3, markersize=4, label=cell_name(name))
    if zero is not None:
        ax.axvline(zero, color="#999", linestyle=":", linewidth=1)
    ax.set_yticks(np.arange(len(labels))[::-1], labels, fontsize=8)
    ax.set_ylim(-ROW_HALF, len(labels) - ROW_HALF)
    ax.set_xlabel(xlabel)
    _legend_below(fig, ax, ncol=min(3, len(series)))
    alt = ngettext("%(title)s: %(n)s estimate with its 95%% confidence interval",
                   "%(title)s: %(n)s estimates with 95%% confidence intervals", len(rows))
    return Chart(key, title, _png(fig), alt % {"title": title, "n": len(rows)})


def _intervals(frame: pd.DataFrame | None, label: str, series: str, value: str) -> list[Interval]:
    """The rows of an interval plot that have a value to draw (a model without a rating has none)."""
    if frame is None or frame.empty:
        return []
    rows = [(str(r[label]), str(r[series]), _num(r[value]), _num(r["ci_low"]), _num(r["ci_high"]))
            for r in frame.to_dict("records")]
    return [r for r in rows if np.isfinite(r[2])]


def _medic_rows(frame: pd.DataFrame | None) -> list[Interval]:
    return _intervals(frame, "axis", "judge", "difference")


def medic_forest(rows: list[Interval]) -> Chart:
    """MEDIC Appendix A.1: judge minus clinician per axis, one colour per judge."""
    return _interval_plot(rows, xlabel=_("judge − clinician (1-5 scale); dotted line: no difference"), zero=0.0,
                          key="medic-forest", title=_("Judge minus clinician per axis, 95% CI"))


def _rating_rows(frame: pd.DataFrame | None) -> list[Interval]:
    return _intervals(frame, "model", "source", "rating")


def ratings_forest(rows: list[Interval]) -> Chart:
    """MEDIC Fig. 5a: each model's rating with its bootstrap CI, one colour per judge (and physicians)."""
    return _interval_plot(rows, xlabel=_("rating (Elo scale, mean 1000)"), zero=1000.0, key="ratings",
                          title=_("Pairwise ratings with 95% bootstrap CI"))


def _coverage_rows(frame: pd.DataFrame | None) -> pd.DataFrame | None:
    """The first scorer's unstratified models with a CACS or a Rubric Accuracy, best CACS first."""
    if frame is None or frame.empty:
        return None
    if "stratum" in frame:
        frame = frame[frame["stratum"] == "All"]
    if frame.empty:
        return None
    f = frame[frame["scorer"] == frame["scorer"].iloc[0]]
    f = f[f["cacs"].map(_num).notna() | f["rubric_accuracy"].map(_num).notna()]
    return None if f.empty else f.sort_values("cacs", ascending=False)


def coverage_bars(f: pd.DataFrame) -> Chart:
    """ClinConsensus Sec. 5: Rubric Accuracy against CACS@tau per model (the coverage gap), first scorer."""
    scorer = f["scorer"].iloc[0]
    tau = int(f["tau"].iloc[0])
    x = np.arange(len(f))
    fig = _figure(max(5.0, 0.7 * len(f) + 2), 4.0)
    ax = fig.add_subplot()
    ax.bar(x - 0.2, f["rubric_accuracy"].map(_num), 0.4, label=_("Rubric Accuracy"), color="#9bb7d4")
    ax.bar(x + 0.2, f["cacs"].map(_num), 0.4, label=f"CACS@{tau}", color="#1f5f8b")
    ax.set_xticks(x, f["model"].astype(str), rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel(_("score"))
    ax.set_title(_("Scorer: %(name)s") % {"name": cell_name(str(scorer))}, fontsize=9)
    _legend_below(fig, ax)
    alt = ngettext("Bar chart of Rubric Accuracy and CACS@%(tau)s for %(n)s model",
                   "Bar chart of Rubric Accuracy and CACS@%(tau)s for %(n)s models", len(f))
    return Chart("coverage", _("Rubric Accuracy and CACS@%(tau)s per model") % {"tau": tau}, _png(fig),
                 alt % {"tau": tau, "n": len(f)})


#: (chart key, table key, what of the table is drawn (empty: nothing to draw), draw, title). A chart is
#: listed only when its rows are not empty, and drawn from the same rows: every listed chart answers 200.
_TABLE_CHARTS: tuple[tuple[str, str, Callable[[Any], Any], Callable[[Any], Chart], str], ...] = (
    ("medic-forest", "judge_vs_clinician", _medic_rows, medic_forest, gettext_noop("Judge minus clinician per axis, 95% CI")),
    ("ratings", "pairwise_ratings", _rating_rows, ratings_forest, gettext_noop("Pairwise ratings with 95% bootstrap CI")),
    ("coverage", "coverage", _coverage_rows, coverage_bars, gettext_noop("Rubric Accuracy and CACS per model")),
)
_STRATA_TITLES = {"strata-ac1": gettext_noop("AC1 per stratum"), "strata-mf1": gettext_noop("Macro-F1 per stratum")}


def _table_rows(report: Report, table_key: str, rows: Callable[[Any], Any]) -> Any:
    table = report.table(table_key)
    return rows(table.frame if table is not None else None)


def _has(rows: Any) -> bool:
    return rows is not None and len(rows) > 0


def _strata_specs(report: Report) -> list[tuple[str, str, str, str]]:
    """(key, table key, value column, group column) of the per-stratum bar charts."""
    strata = report.chart_data.get("strata", {})
    specs = (("strata-ac1", "data_quality", "ac1", "task"), ("strata-mf1", "grader_reliability", "macro_f1", "evaluator"))
    return [spec for spec in specs if _strata_values(strata.get(spec[1]), spec[2], spec[3]) is not None]


def available_charts(report: Report) -> list[ChartSpec]:
    """The charts a report can draw, in page order (cheap: nothing is drawn)."""
    specs: list[ChartSpec] = []
    if _forest_rows(report.chart_data.get("forest")) is not None:
        specs.append(ChartSpec("forest", _("AC1 with 95% CI per task"), _("Forest plot of AC1 per task")))
    scatter = report.chart_data.get("scatter", {})
    for k, (grader, (x, y)) in enumerate(list(scatter.items())[:MAX_SCATTER]):
        if _scatter_points(x, y)[2].sum() < 2:
            continue
        title, caption = _named(_("Grader vs consensus: %(name)s"), grader)
        alt = _named(_("Scatter of %(name)s score against the physicians' consensus score"), grader)[0]
        specs.append(ChartSpec(f"scatter-{k}", title, alt, caption))
    for k, grader in enumerate(report.chart_data.get("confusion", {})):
        title, caption = _named(_("Confusion matrices: %(name)s"), grader)
        alt = _named(_("Confusion matrices of %(name)s against each physician"), grader)[0]
        specs.append(ChartSpec(f"confusion-{k}", title, alt, caption))
    for key, _table, _value, _group in _strata_specs(report):
        title = _(_STRATA_TITLES[key])
        specs.append(ChartSpec(key, title, _("%(title)s: bar chart") % {"title": title}))
    for key, table_key, rows, _draw, title in _TABLE_CHARTS:
        if _has(_table_rows(report, table_key, rows)):
            specs.append(ChartSpec(key, _(title), _(title)))
    return specs


def render_chart(report: Report, key: str) -> Chart | None:
    """Draw one chart of `available_charts(report)`; None for an unknown key."""
    kind, _dash, index = key.partition("-")
    chart: Chart | None = None
    table_charts = {k: (t, rows, draw) for k, t, rows, draw, _title in _TABLE_CHARTS}
    if key == "forest":
        chart = forest_plot(report.chart_data.get("forest"))
    elif key in table_charts:
        table_key, rows, draw = table_charts[key]
        found = _table_rows(report, table_key, rows)
        chart = draw(found) if _has(found) else None
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
        for spec_key, table, value, group in _strata_specs(report):
            if spec_key == key:
                chart = stratum_bars(strata.get(table), value=value, group=group, title=_(_STRATA_TITLES[key]),
                                     key=key)
    if chart is None:
        return None
    return Chart(key, chart.title, chart.png, chart.alt)


def chart_figures(report: Report) -> list[tuple[str, str, Figure]]:
    """(key, title, figure) of every chart the report can draw, as matplotlib figures (for PDF / SVG)."""
    out = []
    for spec in available_charts(report):
        sink: list[Figure] = []
        token = _figure_sink.set(sink)
        try:
            chart = render_chart(report, spec.key)
        finally:
            _figure_sink.reset(token)
        if chart is not None and sink:
            out.append((spec.key, chart.title, sink[-1]))
    return out


def chart_files(report: Report) -> list[tuple[str, str, bytes, bytes]]:
    """(key, title, SVG, 300-dpi PNG) of every chart, for the exports."""
    files = []
    for key, title, fig in chart_figures(report):
        files.append((key, title, svg(fig), _png(fig)))
    return files


def cached_chart(
    selection: Selection, key: str, *, fingerprint: str | None = None, report: Report | None = None,
) -> Chart | None:
    """One rendered chart of a selection's report, or None; cached like the report it is drawn from.

    `report`, when the caller holds it already, is the report for `fingerprint` (no cache read).
    """
    from django.core.cache import cache

    fingerprint = fingerprint if fingerprint is not None else labels_fingerprint(selection)
    chart_key = cache_key(f"chart:{key}", selection, fingerprint)
    chart = cache.get(chart_key)
    if chart is None:
        chart = render_chart(report if report is not None else report_for_fingerprint(selection, fingerprint), key)
        if chart is not None:
            cache.set(chart_key, chart, REPORT_CACHE_SECONDS)
    return chart


def report_charts(report: Report, fingerprint: str) -> list[tuple[ChartSpec, Chart]]:
    """Every chart of `report` (the report for `fingerprint`) in page order, from the cache the page's
    images fill: a PDF asked for after viewing the page draws nothing."""
    out = []
    for spec in available_charts(report):
        chart = cached_chart(report.selection, spec.key, fingerprint=fingerprint, report=report)
        if chart is not None:
            out.append((spec, chart))
    return out
