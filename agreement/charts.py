"""Server-side charts for agreement reports: matplotlib (Agg) to PNG, no JavaScript, no CDN.

Figures are built with `matplotlib.figure.Figure` directly (no pyplot global state), so rendering
is safe in threaded servers. `available_charts(report)` lists what a report can draw without
drawing it; the page puts each chart's URL in an <img> (which cannot run scripts, so nothing needs
`|safe`) and `render_chart(report, key)` draws one PNG when the browser asks for it. The page
itself therefore never waits for matplotlib.
"""

from __future__ import annotations

import io
from contextvars import ContextVar
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from django.utils.html import format_html  # noqa: E402
from django.utils.safestring import SafeString  # noqa: E402
from django.utils.translation import gettext as _  # noqa: E402
from django.utils.translation import gettext_noop, ngettext  # noqa: E402
from matplotlib import font_manager  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from agreement.presentation import header  # noqa: E402
from agreement.reports import (  # noqa: E402
    REPORT_CACHE_SECONDS,
    Report,
    cache_key,
    labels_fingerprint,
    report_for_fingerprint,
)
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


#: Print quality: charts on the page and in the exports are 200-dpi PNGs; exports add SVG, the PDF is vector.
PNG_DPI = 200


#: While set (by `chart_figures`), drawn figures are collected here instead of being rasterised.
_figure_sink: ContextVar[list[Figure] | None] = ContextVar("figure_sink", default=None)


def _png(fig: Figure) -> bytes:
    sink = _figure_sink.get()
    if sink is not None:
        sink.append(fig)
        return b""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=PNG_DPI, bbox_inches="tight")
    return buffer.getvalue()


def svg(fig: Figure) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    return buffer.getvalue()


def _legend_below(ax: object, ncol: int = 2, offset: float = -0.18) -> None:
    """A legend under the plot, clear of the data."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, offset), ncol=ncol, fontsize=8, frameon=False)


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
    names = frame["task_name"] if "task_name" in frame else frame["task"]
    labels = names.astype(str).tolist()
    ac1 = frame["ac1"].map(_num).to_numpy()
    low = frame["ac1_ci_low"].map(_num).to_numpy()
    high = frame["ac1_ci_high"].map(_num).to_numpy()
    kappa = frame["fleiss_kappa"].map(_num).to_numpy()
    y = np.arange(len(labels))[::-1]
    fig = Figure(figsize=(7.5, 0.5 * len(labels) + 1.8))
    ax = fig.add_subplot()
    err = np.vstack([np.nan_to_num(ac1 - low), np.nan_to_num(high - ac1)])
    ax.errorbar(ac1, y, xerr=err, fmt="o", color="#1f5f8b", capsize=4, label=_("Gwet's AC1 (95% CI)"))
    ax.scatter(kappa, y - 0.18, marker="D", facecolors="none", edgecolors="#b5541c", label=_("Fleiss' κ"))
    ax.axvline(0.8, color="#999", linestyle=":", linewidth=1)
    ax.set_yticks(y, labels)
    ax.set_xlim(min(-0.1, np.nanmin(np.concatenate([low, kappa])) - 0.05), 1.02)
    ax.set_xlabel(_("coefficient (dotted line: 0.8, “almost perfect”)"))
    # Below the axis label: about 0.6 inch under the axes, however few tasks make the axes short.
    _legend_below(ax, offset=-max(0.18, 0.6 / max(0.5, fig.get_figheight() - 1.3)))
    fig.tight_layout()
    values = _("; ").join(f"{t} AC1 {v:.3f}" for t, v in zip(labels, ac1, strict=True))
    return Chart("forest", _("AC1 with 95% CI per task"), _png(fig),
                 _("Forest plot: %(values)s") % {"values": values})


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
            met_words = [str(Verdict.MET.label), str(Verdict.NOT_MET.label)]
            ax.set_xticks([0, 1], met_words, fontsize=8)
            ax.set_yticks([0, 1], met_words, fontsize=8)
            ax.set_xlabel(_("grader"), fontsize=8)
            ax.set_ylabel(rater, fontsize=8)
        fig.tight_layout()
        title = _named(_("Confusion matrices: %(name)s"), grader)[0]
        if len(per_rater) > MAX_CONFUSION:
            title = _("%(title)s (the first %(shown)s of %(n)s physicians)") % {
                "title": title, "shown": MAX_CONFUSION, "n": len(per_rater)}
        charts.append(Chart(f"confusion-{len(charts)}", title, _png(fig),
                            _named(_("Confusion matrices of %(name)s against each physician"), grader)[0]))
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
            _legend_below(ax, ncol=1)
        ax.plot([0, 1], [0, 1], color="#bbb", linestyle=":", linewidth=1)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel(_("physicians' consensus score"))
        ax.set_ylabel(_("grader score"))
        r = float(np.corrcoef(x[ok], y[ok])[0, 1]) if np.ptp(x[ok]) > 0 and np.ptp(y[ok]) > 0 else float("nan")
        stats_text = f"Pearson r = {r:.3f}, n = {int(ok.sum())}" if np.isfinite(r) else f"n = {int(ok.sum())}"
        ax.set_title(f"{cell_name(grader)}\n{stats_text}", fontsize=9)
        fig.tight_layout()
        n = int(ok.sum())
        alt = ngettext("Scatter of %(name)s score against the consensus score, %(n)s response",
                       "Scatter of %(name)s score against the consensus score, %(n)s responses", n)
        charts.append(Chart(f"scatter-{len(charts)}", _named(_("Grader vs consensus: %(name)s"), grader)[0], _png(fig),
                            alt % {"name": cell_name(grader), "n": n}))
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
        ax.bar(x + k * width, wide[column].to_numpy(), width, label=cell_name(str(column)))
    ax.set_xticks(x + width * (len(wide.columns) - 1) / 2, [str(s) for s in wide.index], rotation=35, ha="right",
                  fontsize=8)
    ax.set_ylabel(header(value))
    _legend_below(ax, ncol=min(3, max(1, len(wide.columns))), offset=-0.45)
    fig.tight_layout()
    alt = ngettext("%(title)s: bar chart over %(n)s stratum", "%(title)s: bar chart over %(n)s strata", len(wide))
    return Chart(key, title, _png(fig), alt % {"title": title, "n": len(wide)})


def _interval_plot(
    rows: list[tuple[str, str, float, float, float]], *, xlabel: str, zero: float | None, key: str, title: str,
) -> Chart | None:
    """Points with 95% CIs: (label, series, value, low, high) per row; one colour per series."""
    rows = [r for r in rows if np.isfinite(r[2])]
    if not rows:
        return None
    labels = list(dict.fromkeys(r[0] for r in rows))
    series = list(dict.fromkeys(r[1] for r in rows))
    fig = Figure(figsize=(7.5, 0.45 * len(labels) * max(1, len(series)) ** 0.5 + 1.8))
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
    ax.set_xlabel(xlabel)
    _legend_below(ax, ncol=min(3, len(series)))
    fig.tight_layout()
    alt = ngettext("%(title)s: %(n)s estimate with its 95%% confidence interval",
                   "%(title)s: %(n)s estimates with 95%% confidence intervals", len(rows))
    return Chart(key, title, _png(fig), alt % {"title": title, "n": len(rows)})


def medic_forest(frame: pd.DataFrame | None) -> Chart | None:
    """MEDIC Appendix A.1: judge minus clinician per axis, one colour per judge."""
    if frame is None or frame.empty:
        return None
    rows = [(str(r["axis"]), str(r["judge"]), _num(r["difference"]), _num(r["ci_low"]), _num(r["ci_high"]))
            for r in frame.to_dict("records")]
    return _interval_plot(rows, xlabel=_("judge − clinician (1-5 scale); dotted line: no difference"), zero=0.0,
                          key="medic-forest", title=_("Judge minus clinician per axis, 95% CI"))


def ratings_forest(frame: pd.DataFrame | None) -> Chart | None:
    """MEDIC Fig. 5a: each model's rating with its bootstrap CI, one colour per judge (and physicians)."""
    if frame is None or frame.empty:
        return None
    rows = [(str(r["model"]), str(r["source"]), _num(r["rating"]), _num(r["ci_low"]), _num(r["ci_high"]))
            for r in frame.to_dict("records")]
    return _interval_plot(rows, xlabel=_("rating (Elo scale, mean 1000)"), zero=1000.0, key="ratings",
                          title=_("Pairwise ratings with 95% bootstrap CI"))


def coverage_bars(frame: pd.DataFrame | None) -> Chart | None:
    """ClinConsensus Sec. 5: Rubric Accuracy against CACS@tau per model (the coverage gap), first scorer."""
    if frame is None or frame.empty:
        return None
    if "stratum" in frame:
        frame = frame[frame["stratum"] == "All"]
    scorer = frame["scorer"].iloc[0]
    f = frame[frame["scorer"] == scorer].sort_values("cacs", ascending=False)
    tau = int(f["tau"].iloc[0])
    x = np.arange(len(f))
    fig = Figure(figsize=(max(5.0, 0.7 * len(f) + 2), 3.8))
    ax = fig.add_subplot()
    ax.bar(x - 0.2, f["rubric_accuracy"].map(_num), 0.4, label=_("Rubric Accuracy"), color="#9bb7d4")
    ax.bar(x + 0.2, f["cacs"].map(_num), 0.4, label=f"CACS@{tau}", color="#1f5f8b")
    ax.set_xticks(x, f["model"].astype(str), rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel(_("score"))
    ax.set_title(_("Scorer: %(name)s") % {"name": cell_name(str(scorer))}, fontsize=9)
    _legend_below(ax, offset=-0.4)
    fig.tight_layout()
    alt = ngettext("Bar chart of Rubric Accuracy and CACS@%(tau)s for %(n)s model",
                   "Bar chart of Rubric Accuracy and CACS@%(tau)s for %(n)s models", len(f))
    return Chart("coverage", _("Rubric Accuracy and CACS@%(tau)s per model") % {"tau": tau}, _png(fig),
                 alt % {"tau": tau, "n": len(f)})


_TABLE_CHARTS = (
    ("medic-forest", "judge_vs_clinician", medic_forest, gettext_noop("Judge minus clinician per axis, 95% CI")),
    ("ratings", "pairwise_ratings", ratings_forest, gettext_noop("Pairwise ratings with 95% bootstrap CI")),
    ("coverage", "coverage", coverage_bars, gettext_noop("Rubric Accuracy and CACS per model")),
)
_STRATA_TITLES = {"strata-ac1": gettext_noop("AC1 per stratum"), "strata-mf1": gettext_noop("Macro-F1 per stratum")}


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
        specs.append(ChartSpec("forest", _("AC1 with 95% CI per task"), _("Forest plot of AC1 per task")))
    scatter = report.chart_data.get("scatter", {})
    for k, grader in enumerate(list(scatter)[:MAX_SCATTER]):
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
    for key, table_key, _draw, title in _TABLE_CHARTS:
        table = report.table(table_key)
        if table is not None and len(table.frame):
            specs.append(ChartSpec(key, _(title), _(title)))
    return specs


def render_chart(report: Report, key: str) -> Chart | None:
    """Draw one chart of `available_charts(report)`; None for an unknown key."""
    kind, _dash, index = key.partition("-")
    chart: Chart | None = None
    table_charts = {k: (t, draw) for k, t, draw, _title in _TABLE_CHARTS}
    if key == "forest":
        chart = forest_plot(report.chart_data.get("forest"))
    elif key in table_charts:
        table = report.table(table_charts[key][0])
        chart = table_charts[key][1](table.frame if table is not None else None)
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
    """(key, title, SVG, 200-dpi PNG) of every chart, for the exports."""
    files = []
    for key, title, fig in chart_figures(report):
        files.append((key, title, svg(fig), _png(fig)))
    return files


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
