"""Final labels, first-round labels and every later round, in long format (CSV, JSONL, XLSX).

One row per rating (kind `rating`, with its round: 1 = first round) and one per field for the final
decision (kind `final`, with the rule and source `final_labels.decide_final_label` gave it; an
unresolved field has an empty label). Raters and inspectors appear by pseudonym only. Every
spreadsheet cell goes through `medreview.text.tabular.spreadsheet_safe`, the project's one escaping path.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from annotation.outcomes.effort import EffortReport
from annotation.outcomes.selectors import FieldOutcome
from medreview.text.tabular import spreadsheet_safe

LABEL_COLUMNS = (
    "study", "item", "item_key", "item_status", "dataset", "case", "revision", "release", "task", "field",
    "position", "kind", "round", "rater", "label", "rule", "source", "reason", "comment", "seconds", "created_at",
    "model_a", "model_b", "order_shown", "preferred_model", "calibration",
)
EFFORT_COLUMNS = ("rater", "items", "rounds", "seconds", "hours", "items_per_hour", "hourly_rate", "cost")
FORMATS = {
    "csv": ("text/csv; charset=utf-8", "csv"),
    "jsonl": ("application/x-ndjson; charset=utf-8", "jsonl"),
    "xlsx": ("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "xlsx"),
}


def _preferred(o: FieldOutcome, label: str | None) -> str:
    """Pairs: the model a canonical label names ("" for a tie or another task)."""
    return {"A": o.model_a, "B": o.model_b}.get(label or "", "") if o.model_a else ""


CALIBRATION_STATUS = "calibration"  # Item.Status.CALIBRATION (no model import in this module)


def label_rows(outcomes: Iterable[FieldOutcome], *, calibration: bool = False) -> Iterator[dict[str, Any]]:
    """The long-format rows: for each field its final decision, then its ratings by round.

    Pairwise labels are canonical (A = `model_a`); each rating row names the order its rater was
    shown (`order_shown`: ab = model_a first) and the model the label prefers. Calibration items
    (known answers newcomers rate before a study, round 0) are left out unless `calibration` is
    asked for, and their rows carry `calibration=true`, so they never mix into a study's figures
    unnoticed (issue 21)."""
    for o in outcomes:
        is_calibration = o.item_status == CALIBRATION_STATUS
        if is_calibration and not calibration:
            continue
        common = {
            "calibration": is_calibration,
            "study": o.study_id, "item": o.item_id, "item_key": o.item_key, "item_status": o.item_status,
            "dataset": o.dataset, "case": o.case, "revision": o.revision_id, "release": o.release_id,
            "task": o.task, "field": o.field_key, "position": o.position, "model_a": o.model_a, "model_b": o.model_b,
        }
        yield {**common, "kind": "final", "round": None, "rater": o.decided_by, "label": o.decision.label or "",
               "rule": o.decision.rule, "source": o.decision.source, "reason": o.reason, "comment": "",
               "seconds": None, "created_at": None, "order_shown": "",
               "preferred_model": _preferred(o, o.decision.label)}
        for r in o.ratings:
            yield {**common, "kind": "rating", "round": r.round, "rater": r.rater, "label": r.label, "rule": "",
                   "source": "", "reason": "", "comment": r.comment, "seconds": r.seconds,
                   "created_at": r.created_at.isoformat() if r.created_at else None,
                   "order_shown": r.pair_order if o.model_a else "", "preferred_model": _preferred(o, r.label)}


def labels_jsonl(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n"


class _Echo:
    def write(self, value: str) -> str:
        return value


def _csv_cells(values: Iterable[Any]) -> list[Any]:
    return ["" if v is None else spreadsheet_safe(v) for v in values]


def labels_csv(rows: Iterable[dict[str, Any]], columns: Sequence[str] = LABEL_COLUMNS) -> Iterator[str]:
    """CSV lines, streamed (a release's export can be large)."""
    writer = csv.writer(_Echo())
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow(_csv_cells(row[c] for c in columns))


HEAD_COLUMNS = ("study", "seq", "hash", "sealed_at")


def labels_xlsx(rows: Iterable[dict[str, Any]], effort: Sequence[EffortReport] = (),
                heads: Sequence[dict[str, Any]] = ()) -> bytes:
    """A workbook with a `labels` sheet, for a study an `effort` sheet, and an `audit_chain` sheet with
    each study's chain head when the export was made."""
    from openpyxl import Workbook

    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet("labels")
    sheet.append(list(LABEL_COLUMNS))
    for row in rows:
        sheet.append([spreadsheet_safe(row[c]) for c in LABEL_COLUMNS])
    if effort:
        sheet = workbook.create_sheet("effort")
        sheet.append(["study", *EFFORT_COLUMNS, "currency"])
        for report in effort:
            for entry in (*report.per_rater, report.total):
                values = entry.as_dict(report.hourly_rate)
                sheet.append([spreadsheet_safe(v) for v in (report.study, *(values[c] for c in EFFORT_COLUMNS),
                                                            report.currency)])
    if heads:
        sheet = workbook.create_sheet("audit_chain")
        sheet.append(list(HEAD_COLUMNS))
        for head in heads:
            sheet.append([spreadsheet_safe(head[c]) if head[c] is not None else None for c in HEAD_COLUMNS])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def effort_csv(reports: Sequence[EffortReport]) -> str:
    return "".join(labels_csv(
        ({"study": r.study, **e.as_dict(r.hourly_rate), "currency": r.currency}
         for r in reports for e in (*r.per_rater, r.total)),
        columns=("study", *EFFORT_COLUMNS, "currency"),
    ))
