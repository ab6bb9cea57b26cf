"""Agreement coefficients for any CSV of subjects x raters, with no database involved.

    python manage.py agreement_compute --input ratings.csv [--categories 0,1,2] [--json]

The CSV's header row names the raters. A first column whose header is empty or one of id,
subject, item, case, unit holds subject ids (or name it with --id-column; --no-id-column
forces every column to be a rater). Each further cell is one rater's label for that subject;
an empty cell is a missing rating. Labels are kept as text unless every category is a number.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from agreement import metrics
from medreview.text.csv_input import csv_error_message

ID_HEADERS = {"", "id", "subject", "item", "case", "unit", "subject_id", "item_id", "case_id"}


def _number(text: str) -> int | float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() else value


def _read_rows(path: Path) -> list[list[str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CommandError(f"{path}: file not found") from None
    except UnicodeDecodeError as exc:
        raise CommandError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        rows = list(reader)
    except csv.Error as exc:  # a cell over the csv module's limit, a quote never closed
        raise CommandError(f"{path}, line {reader.line_num}: {csv_error_message(exc)}") from None
    if not rows:
        raise CommandError(f"{path}: empty file; expected a header row of rater names")
    return rows


def _has_id_column(path: Path, header: list[str], id_column: str | None, no_id_column: bool) -> bool:
    if id_column is None:
        return not no_id_column and header[0].lower() in ID_HEADERS
    if header[0] != id_column:
        raise CommandError(f"{path}, line 1: the first column is {header[0]!r}, not the id column {id_column!r}")
    return True


def _check_labels(
    path: Path, line: int, subject: str, raters: list[str], cells: list[str], declared: list[str] | None
) -> None:
    if declared is None:
        return
    for rater, cell in zip(raters, cells, strict=True):
        if cell and cell not in declared:
            raise CommandError(
                f"{path}, line {line} (subject {subject!r}), column {rater!r}: label {cell!r} is not one of "
                f"the categories {', '.join(declared)}"
            )


def _numeric_scale(
    table: list[list[Any]], cats: list[Any], *, declared: bool
) -> tuple[list[list[Any]], list[Any]]:
    """Numeric scales keep their values (AC2 weights and interval alpha use them); others stay text."""
    numeric = [_number(c) for c in cats]
    if not cats or any(n is None for n in numeric):
        return table, cats
    as_number = dict(zip(cats, numeric, strict=True))
    table = [[as_number.get(c) if c is not None else None for c in r] for r in table]
    if not declared:
        numeric = sorted(numeric)
    return table, numeric


def read_ratings(
    path: Path, *, categories: list[str] | None, id_column: str | None, no_id_column: bool
) -> tuple[list[str], list[str], list[list[Any]], list[Any]]:
    """(rater names, subject ids, ratings subjects x raters with None missing, categories).

    Raises CommandError naming the file, the line and the column of the first bad cell.
    """
    rows = _read_rows(path)
    header = [h.strip() for h in rows[0]]
    has_id = _has_id_column(path, header, id_column, no_id_column)
    raters = header[1:] if has_id else header
    if len(raters) < 2:
        raise CommandError(f"{path}, line 1: need at least two rater columns, found {len(raters)}: {raters}")
    declared = [c.strip() for c in categories] if categories else None
    subjects, table = [], []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise CommandError(f"{path}, line {line}: {len(row)} fields, the header has {len(header)}")
        subject = row[0].strip() if has_id else str(line - 1)
        cells = [c.strip() for c in (row[1:] if has_id else row)]
        _check_labels(path, line, subject, raters, cells, declared)
        subjects.append(subject)
        table.append([c or None for c in cells])
    if not table:
        raise CommandError(f"{path}: no ratings below the header")
    observed = sorted({c for r in table for c in r if c is not None})
    table, cats = _numeric_scale(table, declared if declared is not None else observed, declared=declared is not None)
    return raters, subjects, table, cats


def _agreement(res: metrics.AgreementResult) -> dict[str, Any]:
    return {
        "value": res.value, "se": res.se, "ci": list(res.ci) if res.ci else None, "p_value": res.p_value,
        "p_value_two_sided": res.p_value_two_sided, "pa": res.pa, "pe": res.pe, "n_subjects": res.n_subjects,
        "n_paired": res.n_paired, "reason": res.reason,
    }


def compute_all(table: list[list[Any]], cats: list[Any], *, ordered: bool, weights: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ac1": _agreement(metrics.gwet_ac1(table, cats)),
        "fleiss_kappa": _agreement(metrics.fleiss_kappa(table, cats)),
        "brennan_prediger": _agreement(metrics.brennan_prediger(table, cats)),
    }
    if ordered:
        out[f"ac2_{weights}"] = _agreement(metrics.gwet_ac2(table, cats, weights=weights))
    if len(table[0]) == 2:
        out["cohen_kappa"] = _agreement(metrics.cohen_kappa(table, cats))
    alpha = metrics.krippendorff_alpha(table, "nominal", cats)
    out["krippendorff_alpha_nominal"] = {"value": alpha.value, "n_units": alpha.n_units, "reason": alpha.reason}
    if ordered:
        alpha = metrics.krippendorff_alpha(table, "ordinal", cats)
        out["krippendorff_alpha_ordinal"] = {"value": alpha.value, "n_units": alpha.n_units, "reason": alpha.reason}
    pa = metrics.percent_agreement(table, cats)
    out["percent_agreement"] = {"value": pa.value, "n_subjects": pa.n, "reason": pa.reason}
    return out


def _fmt(value: Any, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}g}" if abs(value) < 1e-3 and value != 0 else f"{value:.{digits}f}"
    return str(value)


class Command(BaseCommand):
    help = "Agreement coefficients (AC1, AC2, Fleiss, Brennan-Prediger, Cohen, Krippendorff, percent agreement) " \
           "for a CSV of subjects x raters."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--input", required=True, help="CSV: header of rater names, one row per subject")
        parser.add_argument("--categories", help="The scale's categories in order, e.g. 0,1,2 (default: observed)")
        parser.add_argument("--ordered", action="store_true",
                            help="Treat categories as ordered (implied when --categories are all numbers)")
        parser.add_argument("--weights", choices=["quadratic", "linear"], default="quadratic", help="AC2 weights")
        parser.add_argument("--id-column", help="Name of the first column holding subject ids")
        parser.add_argument("--no-id-column", action="store_true", help="Every column is a rater")
        parser.add_argument("--json", action="store_true", help="Print JSON instead of a table")

    def handle(self, *args: Any, **options: Any) -> None:
        path = Path(options["input"])
        categories = options["categories"].split(",") if options["categories"] else None
        raters, subjects, table, cats = read_ratings(
            path, categories=categories, id_column=options["id_column"], no_id_column=options["no_id_column"]
        )
        ordered = options["ordered"] or (categories is not None and all(isinstance(c, int | float) for c in cats))
        try:
            results = compute_all(table, cats, ordered=ordered, weights=options["weights"])
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from exc
        summary = {"input": str(path), "raters": raters, "n_subjects": len(subjects),
                   "categories": cats, "ordered": ordered, "coefficients": results,
                   "conventions": "Gwet (2008) / irrCAC: SE without finite-population correction, CI = value +- "
                                  "t(0.975, n-1) SE capped at 1, p one-sided (H0: coefficient <= 0)."}
        if options["json"]:
            self.stdout.write(json.dumps(summary, indent=2, default=str))
            return
        self.stdout.write(f"{path}: {len(subjects)} subjects x {len(raters)} raters ({', '.join(raters)}); "
                          f"categories {', '.join(map(str, cats))}{' (ordered)' if ordered else ''}")
        self.stdout.write(f"{'coefficient':28s} {'value':>8s} {'SE':>8s} {'95% CI':>19s} {'p':>10s} "
                          f"{'pa':>7s} {'pe':>7s} {'n':>6s}")
        for name, r in results.items():
            ci = f"[{_fmt(r['ci'][0], 3)}, {_fmt(r['ci'][1], 3)}]" if r.get("ci") else "-"
            n = r.get("n_subjects", r.get("n_units"))
            self.stdout.write(
                f"{name:28s} {_fmt(r['value']):>8s} {_fmt(r.get('se')):>8s} {ci:>19s} {_fmt(r.get('p_value'), 3):>10s} "
                f"{_fmt(r.get('pa'), 3):>7s} {_fmt(r.get('pe'), 3):>7s} {_fmt(n):>6s}"
                + (f"  ({r['reason']})" if r.get("reason") else "")
            )
