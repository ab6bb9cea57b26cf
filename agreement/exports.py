"""Agreement reports as files: CSV (a zip, one CSV per table), XLSX, JSON, LaTeX; raw labels as CSV.

Every format carries the same tables as the report page. JSON and the XLSX "About" sheet also
carry the selection, the labels used, the metric conventions, the counts, the generation time
and the software version, so a file is self-describing.
"""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pandas as pd
from django.utils.translation import gettext as _

from agreement.charts import chart_files, report_charts
from agreement.reports import Report, Table, labels_fingerprint, report_for_fingerprint, software_version
from agreement.reports.presentation import header, is_interface_header, numbered
from agreement.reports.words import COUNT_NAMES, cell_name
from agreement.selectors import RAW_LABEL_COLUMNS, Selection, raw_label_rows
from medreview.text.tabular import spreadsheet_safe

FORMATS = {
    "csv": ("application/zip", "zip"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
    "json": ("application/json", "json"),
    "tex": ("application/x-tex", "tex"),
}


def _plain(value: Any) -> Any:
    """JSON/XLSX-safe cell: numpy scalars to Python, NaN/inf to None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is pd.NA or value is pd.NaT:
        return None
    return value


#: Columns holding counts: whole numbers in every export, even when a missing value made pandas
#: store the column as floats (JSON once said `"n_cases": 9.0`).
COUNT_COLUMNS = frozenset({"n", "tp", "fp", "fn", "tn", "unknown_labels"})


def _is_count(column: Any) -> bool:
    return str(column) in COUNT_COLUMNS or str(column).startswith("n_")


def _cell_value(column: Any, value: Any) -> Any:
    value = _plain(value)
    if isinstance(value, float) and value.is_integer() and _is_count(column):
        return int(value)
    return value


def table_records(table: Table) -> list[dict[str, Any]]:
    frame = table.frame.astype(object)
    return [{c: _cell_value(c, v) for c, v in zip(frame.columns, row, strict=True)}
            for row in frame.itertuples(index=False)]


def metadata(report: Report) -> dict[str, Any]:
    return {
        "software": {"name": "medreview", "version": software_version()},
        "generated_at": report.generated_at.isoformat(),
        "selection": report.selection.as_dict(),
        "labels_used": report.labels_used,
        "counts": report.counts,
        "conventions": report.conventions,
        "documentation": "docs/agreement.md, docs/metrics.md",
    }


def report_dict(report: Report) -> dict[str, Any]:
    return {
        **metadata(report),
        "tables": {
            t.key: {"title": t.title, "note": t.note, "columns": [str(c) for c in t.frame.columns],
                    "rows": table_records(t)}
            for t in report.tables
        },
    }


def report_json(report: Report) -> bytes:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False, default=str).encode("utf-8")


def _safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Strata, model and rater names come from imported files: no cell or header may run as a formula."""
    safe = frame.map(spreadsheet_safe) if len(frame) else frame.copy()
    safe.columns = [spreadsheet_safe(str(c)) for c in frame.columns]
    return safe


def report_csv_zip(report: Report) -> bytes:
    """One CSV per table (tables have different columns), plus about.json with the metadata."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for table in report.tables:
            archive.writestr(f"{table.key}.csv", _safe_frame(table.frame).to_csv(index=False))
        archive.writestr("about.json", json.dumps(metadata(report), indent=2, ensure_ascii=False, default=str))
        for key, _title, svg_bytes, png_bytes in chart_files(report):
            # Print quality: SVG (vector) and a 300-dpi PNG of every chart on the page.
            archive.writestr(f"charts/{key}.svg", svg_bytes)
            archive.writestr(f"charts/{key}.png", png_bytes)
    return buffer.getvalue()


def _xlsx_header(sheet: Any, columns: list[str]) -> None:
    """The header row as a reader reads it (interface language); each cell's comment keeps the
    column's name in the CSV and JSON exports, for whoever reads the sheet with a program."""
    from openpyxl.comments import Comment

    heads = [header(c) if is_interface_header(c) else cell_name(c) for c in columns]
    if "task_name" in columns and "task" in columns:  # the name says it; the id column says it is the id
        heads[columns.index("task")] = _("Task (id)")
    sheet.append([spreadsheet_safe(h) for h in heads])
    for cell, column in zip(sheet[1], columns, strict=True):
        cell.comment = Comment(column, "medreview")


def report_xlsx(report: Report) -> bytes:
    from openpyxl import Workbook

    workbook = Workbook()
    about = workbook.active
    about.title = "About"
    meta = metadata(report)
    about.append([_("medreview agreement report")])
    about.append([_("Software version"), meta["software"]["version"]])
    about.append([_("Generated at (UTC)"), meta["generated_at"]])
    about.append([_("Labels used"), _cell(meta["labels_used"])])
    about.append([_("Selection"), json.dumps(meta["selection"])])
    for key, value in meta["counts"].items():
        about.append([_(COUNT_NAMES[key]) if key in COUNT_NAMES else key, value])
    for key, value in meta["conventions"].items():
        about.append([_("Convention: %(name)s") % {"name": key}, _cell(value)])
    _format_sheet(about, [], widths={"A": 34, "B": 110})
    for table in report.tables:
        sheet = workbook.create_sheet(title=table.key[:31])
        columns = [str(c) for c in table.frame.columns]
        _xlsx_header(sheet, columns)
        for record in table_records(table):
            sheet.append([_cell(v) for v in record.values()])
        _format_sheet(sheet, columns)
    _chart_sheet(workbook, report)
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _number_format(column: str) -> str:
    """Shown rounded, stored in full: counts as integers, p-values in scientific notation."""
    if column.startswith("n_") or column in ("n", "wins", "draws", "losses", "tau", "tp", "fp", "fn", "tn"):
        return "0"
    if column.endswith("_p") or column == "p_value":
        return "0.00E+00"
    if column in ("rating", "ci_low", "ci_high", "mean_abs_diff_pp"):
        return "0.00"
    return "0.000"


def _format_sheet(sheet: Any, columns: list[str], *, widths: dict[str, int] | None = None) -> None:
    """Bold frozen header row, column widths from the content, numbers rounded for display only."""
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    for k, column in enumerate(sheet.iter_cols(min_row=1, max_row=min(sheet.max_row, 200)), start=1):
        letter = get_column_letter(k)
        name = columns[k - 1] if k - 1 < len(columns) else ""
        fmt = _number_format(name)
        longest = 0
        for cell in column:
            if isinstance(cell.value, float):
                cell.number_format = fmt
                longest = max(longest, 10)
            elif cell.value is not None:
                longest = max(longest, len(str(cell.value)))
        sheet.column_dimensions[letter].width = (widths or {}).get(letter, min(60, max(10, longest + 2)))
    for row in sheet.iter_rows(min_row=201):
        for k, cell in enumerate(row):
            if isinstance(cell.value, float) and k < len(columns):
                cell.number_format = _number_format(columns[k])


def _chart_sheet(workbook: Any, report: Report) -> None:
    """Every chart of the report as a 300-dpi image on one "Charts" sheet, one under the other."""
    from openpyxl.drawing.image import Image

    files = chart_files(report)
    if not files:
        return
    sheet = workbook.create_sheet(title="Charts")
    row = 1
    for _key, title, _svg, png in files:
        sheet.cell(row=row, column=1, value=title)
        image = Image(io.BytesIO(png))
        scale = min(1.0, 900 / max(1, image.width))  # 300-dpi pixels shown at about screen size
        image.width, image.height = image.width * scale, image.height * scale
        sheet.add_image(image, f"A{row + 1}")
        row += int(image.height / 20) + 4


def _cell(value: Any) -> Any:
    if isinstance(value, list | tuple | dict):
        return json.dumps(value)
    # A label or name starting like a formula must stay text in Excel (one rule for every export).
    return spreadsheet_safe(value)


# ---------------------------------------------------------------------------
# LaTeX (booktabs)
# ---------------------------------------------------------------------------

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def tex_escape(text: Any) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))


def _f(value: Any, digits: int = 3) -> str:
    value = _plain(value)
    if value is None or value == "":
        return "--"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return tex_escape(value)


def _p(value: Any) -> str:
    value = _plain(value)
    if value is None:
        return "--"
    if value < 1e-4:
        exponent = math.floor(math.log10(value)) if value > 0 else -300
        mantissa = value / 10**exponent if value > 0 else 1.0
        return f"${mantissa:.2f}\\times10^{{{exponent}}}$" if value > 0 else r"$<10^{-300}$"
    return f"{value:.4f}"


def _ci(low: Any, high: Any) -> str:
    low, high = _plain(low), _plain(high)
    if low is None or high is None:
        return "--"
    return f"[{low:.3f}, {high:.3f}]"


def _tabular(caption: str, label: str, header: list[str], rows: list[list[str]], align: str) -> str:
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        f"\\caption{{{tex_escape(caption)}}}",
        f"\\label{{{label}}}",
        f"\\begin{{tabular}}{{{align}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
        r"\midrule",
        *[" & ".join(r) + r" \\" for r in rows],
        r"\bottomrule",
        r"\end{tabular}",
        r"\end{table}",
    ]
    return "\n".join(lines)


def _stratum_prefix(frame: pd.DataFrame) -> tuple[bool, list[str]]:
    has = "stratum" in frame.columns
    return has, (["Stratum"] if has else [])


def _stratum_cells(has: bool, r: pd.Series) -> list[str]:
    return [tex_escape(r["stratum"])] if has else []


def _tex_data_quality(frame: pd.DataFrame) -> str:
    """Approval on approving scales, positive rate (share of "met") on met / not met: never mixed in a column."""
    has, head = _stratum_prefix(frame)
    rates = [c for c in ("approval_rate", "positive_rate") if c in frame and frame[c].notna().any()]
    names = {"approval_rate": "Approval", "positive_rate": "Positive rate"}
    rows = [
        _stratum_cells(has, r) + [
            tex_escape(r["task_name"]), *(_f(r[c]) for c in rates), _f(r["percent_agreement"]), _f(r["ac1"]),
            _ci(r["ac1_ci_low"], r["ac1_ci_high"]), _f(r["fleiss_kappa"]), _f(r["n_subjects"]),
        ]
        for _, r in frame.iterrows()
    ]
    described = " and ".join(names[c].lower() for c in rates)
    return _tabular(
        f"Physician assessment of data quality: {described + ', ' if rates else ''}percent agreement, Gwet's AC1 "
        "with 95% CI and Fleiss' kappa (first-round labels).", "tab:data-quality",
        [*head, "Task", *(names[c] for c in rates), "Agreement", "AC1", "95\\% CI", "Fleiss' $\\kappa$", "$n$"], rows,
        "l" * (len(head) + 1) + "r" * len(rates) + "rrcrr",
    )


def _tex_grader_reliability(frame: pd.DataFrame) -> str:
    has, head = _stratum_prefix(frame)
    rows = [
        _stratum_cells(has, r) + [
            tex_escape(r["evaluator"]), _f(r["macro_f1"]), _f(r["pearson_r"]),
            _ci(r["pearson_ci_low"], r["pearson_ci_high"]), _p(r["pearson_p"]), _f(r["n_invalid"]),
            _f(r["positive_rate"]),
        ]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        "Criterion-level Macro-F1 and case-level Pearson correlation with the physicians' consensus score.",
        "tab:grader-reliability",
        [*head, "Evaluator", "Macro-F1", "$r$", "95\\% CI", "$p$", "Invalid", "Positive rate"], rows,
        "l" * (len(head) + 1) + "rrcrrr",
    )


def _tex_expert_groups(frame: pd.DataFrame) -> str:
    has, head = _stratum_prefix(frame)
    share = next((c for c in frame.columns if c.startswith("share_cases_below")), None)
    rows = [
        _stratum_cells(has, r) + [
            tex_escape(r["scope"]), _f(r["macro_f1"]), _f(r["case_mf1_median"]),
            _f(r[share]) if share else "--", _f(r["n_decisions"]),
        ]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        "Macro-F1 between expert groups, pooled and per model, with the case-level median and the share of "
        "cases below 0.6.", "tab:expert-groups",
        [*head, "Model", "Pooled MF1", "Median case MF1", "Cases $<0.6$", "Decisions"], rows,
        "l" * (len(head) + 1) + "rrrr",
    )


def _tex_ranking_stability(frame: pd.DataFrame) -> str:
    rows = [
        [tex_escape(r["grader_a"]), tex_escape(r["grader_b"]), _f(r["spearman"]), _f(r["kendall"]),
         tex_escape(r["top3_overlap"] or "--"), tex_escape(r["top5_overlap"] or "--"),
         _f(r["mean_abs_diff_pp"], 2)]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        "Model-ranking stability between graders.", "tab:ranking-stability",
        ["Grader A", "Grader B", "Spearman", "Kendall", "Top-3", "Top-5", "MAD (pp)"], rows, "llrrccr",
    )


def _tex_table1(frame: pd.DataFrame) -> str:
    """LiveMedBench Table 1's layout: one approval column per rater (Rater 1, Rater 2, ...), then AC1."""
    raters = [c for c in frame.columns if str(c).startswith("approval ")]
    rows = [[tex_escape(r["task_name"]), *[_f(r[c]) for c in raters], _f(r["ac1"])] for _, r in frame.iterrows()]
    header = ["Task", *[f"Rater {k}" for k in range(1, len(raters) + 1)], "AC1"]
    names = ["", *[tex_escape(str(c).removeprefix("approval ")) for c in raters], ""]
    table = _tabular(
        "Physician assessment of data quality: each rater's approval rate (a score of at least 1 approves on the "
        "0-2 scales, as in LiveMedBench) and Gwet's AC1 between the raters (first-round labels).",
        "tab:table1", header, [[f"\\footnotesize {n}" if n else "" for n in names], *rows],
        "l" + "r" * (len(raters) + 1),
    )
    return table


def _tex_judge_vs_clinician(frame: pd.DataFrame) -> str:
    rows = [
        [tex_escape(r["judge"]), tex_escape(r["axis"]), _f(r["difference"]), _ci(r["ci_low"], r["ci_high"]),
         _p(r["p_value"]), _f(r["n"])]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        "Judge minus clinician on each axis (1-5 scale): mean paired difference with a 95% t interval.",
        "tab:judge-vs-clinician", ["Judge", "Axis", "Mean diff.", "95\\% CI", "$p$", "$n$"], rows, "llrcrr",
    )


def _tex_pairwise_ratings(frame: pd.DataFrame) -> str:
    rows = [
        [tex_escape(r["source"]), tex_escape(r["model"]), _f(r["rating"], 1), _ci1(r["ci_low"], r["ci_high"]),
         _f(r["n_matches"])]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        "Pairwise ratings (Bradley-Terry, Elo scale) with 95% bootstrap intervals; judges' wins count only "
        "when won in both presentation orders.", "tab:pairwise-ratings",
        ["Source", "Model", "Rating", "95\\% CI", "Matches"], rows, "llrcr",
    )


def _tex_coverage(frame: pd.DataFrame) -> str:
    has, head = _stratum_prefix(frame)
    tau = int(frame["tau"].iloc[0]) if len(frame) else 0
    rows = [
        _stratum_cells(has, r) + [
            tex_escape(r["scorer"]), tex_escape(r["model"]), _f(r["rubric_accuracy"]), _f(r["pass_rate"]),
            _f(r["cacs"]), _f(r["n_responses"])]
        for _, r in frame.iterrows()
    ]
    return _tabular(
        f"Rubric Accuracy, Pass@{tau} and CACS@{tau} per model (ClinConsensus).", "tab:coverage",
        [*head, "Scorer", "Model", "Rubric Acc.", f"Pass@{tau}", f"CACS@{tau}", "$n$"], rows,
        "l" * (len(head) + 2) + "rrrr",
    )


def _ci1(low: Any, high: Any) -> str:
    low, high = _plain(low), _plain(high)
    if low is None or high is None:
        return "--"
    return f"[{low:.1f}, {high:.1f}]"


#: The tables LaTeX export sets, in the paper's order.
_TEX_TABLES: tuple[tuple[str, Callable[[pd.DataFrame], str]], ...] = (
    ("table1", _tex_table1),
    ("data_quality", _tex_data_quality),
    ("grader_reliability", _tex_grader_reliability),
    ("expert_groups", _tex_expert_groups),
    ("ranking_stability", _tex_ranking_stability),
    ("judge_vs_clinician", _tex_judge_vs_clinician),
    ("pairwise_ratings", _tex_pairwise_ratings),
    ("coverage", _tex_coverage),
)


def report_tex(report: Report) -> str:
    """Paper-ready booktabs tables (needs \\usepackage{booktabs})."""
    parts = [
        "% medreview agreement report, generated " + report.generated_at.isoformat()
        + f" by medreview {software_version()}",
        "% " + report.labels_used,
        "% Requires \\usepackage{booktabs}.",
    ]
    for key, render_table in _TEX_TABLES:
        table = report.table(key)
        if table is not None and len(table.frame):
            parts.append(render_table(table.frame))
    return "\n\n".join(parts) + "\n"


def report_pdf(report: Report, *, title: str = "Agreement report", fingerprint: str | None = None) -> bytes:
    """The whole report as one PDF: figures and tables numbered as on the page (`agreement.pdf`).

    `fingerprint`: the state of the labels `report` was built for; its charts then come from the cache
    the page's images fill (and fill it).
    """
    from agreement.pdf import PdfFigure
    from agreement.pdf import report_pdf as render_pdf

    charts = report_charts(report, fingerprint if fingerprint is not None else labels_fingerprint(report.selection))
    figures = [PdfFigure(number, spec.title, chart.png) for number, (spec, chart) in numbered(charts)]
    return render_pdf(report, figures, title=title)


def selection_pdf(selection: Selection, *, title: str) -> tuple[bytes, str]:
    """(PDF bytes, file name) of a selection's report, sharing the page's cached report and charts."""
    fingerprint = labels_fingerprint(selection)
    report = report_for_fingerprint(selection, fingerprint)
    return report_pdf(report, title=title, fingerprint=fingerprint), filename(report, "csv").replace(".zip", ".pdf")


def render(report: Report, fmt: str) -> bytes:
    if fmt == "csv":
        return report_csv_zip(report)
    if fmt == "xlsx":
        return report_xlsx(report)
    if fmt == "json":
        return report_json(report)
    if fmt == "tex":
        return report_tex(report).encode("utf-8")
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def filename(report: Report, fmt: str) -> str:
    sel = report.selection
    scope = f"study{sel.study_id}" if sel.study_id else (f"release{sel.release_id}" if sel.release_id else "all")
    return f"agreement-{scope}.{FORMATS[fmt][1]}"


# ---------------------------------------------------------------------------
# Raw labels, long format
# ---------------------------------------------------------------------------


class _Echo:
    def write(self, value: str) -> str:
        return value


def raw_labels_lines(selection: Selection, *, hidden_items: frozenset[int] = frozenset(),
                     calibration: bool = False) -> Iterator[str]:
    """CSV lines of every rating in the selection, all rounds, raters by pseudonym only; calibration
    items' ratings only when asked for, marked calibration=True."""
    writer = csv.writer(_Echo())
    yield writer.writerow(RAW_LABEL_COLUMNS)
    created = RAW_LABEL_COLUMNS.index("created_at")
    for row in raw_label_rows(selection, hidden_items=hidden_items, calibration=calibration).iterator(chunk_size=5000):
        values = list(row)
        values[created] = values[created].isoformat() if values[created] else ""
        yield writer.writerow(["" if v is None else _csv_text(v) for v in values])


def _csv_text(value: Any) -> Any:
    return spreadsheet_safe(value)
