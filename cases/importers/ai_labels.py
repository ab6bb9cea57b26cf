"""AI labels (LiveClin App. E, I, J): parsers into plain dataclasses, every problem located.

Two formats, both JSONL, both attaching labels to cases already imported:

- `ai-labels` (docs/formats.md): one label a line, naming its case (`case_id`), what it labels
  (`target`: case, question, image, table; `mcq` and `position` say which), the `label` text the
  model wrote (and for taxonomy labels the `level`, optionally the `code`) and the `model`.
- `liveclin-labels`: a LiveClin release file read for the labels its records carry: `Level1`,
  `Level2` and `ICD-10` (the case's taxonomy levels 1-3, gpt-4.1 in App. E), each MCQ's `stage`
  (the Generator's, App. I) and each image's and table's `type` (o3's modality label, App. J).

What a target's label is about follows from the target: a case has taxonomy labels, a question its
clinical stage, an image or a table its modality. Matching labels to the database (the case, the
MCQ, the image, the taxonomy node) is `cases.taxonomies.label_import`. No Django import here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cases.importers.base import ImportIssue, Issues, Record, iter_jsonl, json_type, records_with_id

TARGETS = ("case", "question", "image", "table")
KIND_OF_TARGET = {"case": "taxonomy", "question": "stage", "image": "modality", "table": "modality"}
JSONL_KEYS = {"case_id", "target", "mcq", "position", "level", "label", "code", "model"}
LIVECLIN_ID_KEYS = ("pmc", "pmid", "doi")
# LiveClin's fields for the three taxonomy levels (the release names level 3 "ICD-10").
LIVECLIN_LEVELS = (("Level1", 1), ("Level2", 2), ("ICD-10", 3))
# The models that made LiveClin's labels: gpt-4.1 classified the case reports (App. E); the Generator
# (o3, App. F) wrote each question's stage (App. I); o3 labelled images and tables (App. J).
LIVECLIN_MODELS = {"taxonomy": "gpt-4.1-2025-04-14", "stage": "o3", "modality": "o3"}


@dataclass(frozen=True)
class ParsedAILabel:
    """One label. `mcq`: the MCQ's position from 1 for a question; for an image or a table, 0 for the
    scenario's and the MCQ's position otherwise; None for a case. `position`: the image's or table's
    place (from 1) in that list. `field` says where the label is in the file, for located errors."""

    record: int
    case_id: str
    target: str
    value: str
    model: str
    field: str
    mcq: int | None = None
    position: int | None = None
    level: int | None = None
    code: str = ""
    id_key: str = "case_id"
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return KIND_OF_TARGET[self.target]

    def identity(self) -> tuple[Any, ...]:
        return (self.case_id, self.target, self.mcq, self.position, self.level, self.model)


@dataclass
class AILabelParseResult:
    labels: list[ParsedAILabel] = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    records: int = 0


def _whole(rec: Record, key: str, *, minimum: int, required: bool) -> int | None:
    value = rec.obj.get(key)
    if value is None:
        if required:
            rec.error(key, "missing required field")
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        rec.error(key, f"expected a whole number from {minimum}, got {json_type(value)} {value!r}")
        return None
    return value


def _jsonl_label(rec: Record, default_model: str) -> ParsedAILabel | None:
    errors_before = len(rec.issues)
    for key in sorted(rec.unknown_keys(JSONL_KEYS)):
        rec.error(key, f"unknown key; expected one of {', '.join(sorted(JSONL_KEYS))}")
    case_id = rec.identifier("case_id")
    target = rec.text("target", required=True).strip()
    if target and target not in TARGETS:
        rec.error("target", f"unknown target {target!r}; expected one of {', '.join(TARGETS)}")
        target = ""
    located = target in ("question", "image", "table")
    mcq = _whole(rec, "mcq", minimum=1 if target == "question" else 0, required=located)
    position = _whole(rec, "position", minimum=1, required=target in ("image", "table"))
    level = _whole(rec, "level", minimum=1, required=target == "case")
    for key, allowed in (("mcq", located), ("position", target in ("image", "table")), ("level", target == "case"),
                         ("code", target == "case")):
        if target and not allowed and rec.has(key):
            rec.error(key, f"a {target} label has no {key}")
    code = rec.identifier("code", required=False)
    value = rec.text("label", required=not code, non_empty=not code).strip()
    model = rec.text("model").strip() or default_model
    if not model and rec.ok:
        rec.error("model", "missing required field: the model that made the label (or give --model)")
    if len(rec.issues) > errors_before or not (case_id and target and model and (value or code)):
        return None
    return ParsedAILabel(record=rec.record, case_id=case_id, target=target, value=value or code, model=model,
                         field="label" if value else "code", mcq=mcq, position=position, level=level, code=code,
                         raw=rec.obj)


def _check_unique(labels: list[ParsedAILabel], issues: Issues) -> None:
    first: dict[tuple[Any, ...], int] = {}
    for label in labels:
        seen = first.setdefault(label.identity(), label.record)
        if seen != label.record:
            issues.add(label.record, label.field, f"a second label by {label.model!r} for the same {label.target}"
                                                  f" (first at line {seen}); one label per model and file")


def parse_jsonl(data: bytes, file_name: str, *, default_model: str = "") -> AILabelParseResult:
    """The `ai-labels` format; never raises for bad input."""
    issues = Issues(file_name)
    result = AILabelParseResult()
    for line, item in iter_jsonl(data, issues):
        result.records += 1
        rec = Record(item, line, issues)
        if rec.ok and (label := _jsonl_label(rec, default_model)) is not None:
            result.labels.append(label)
    _check_unique(result.labels, issues)
    result.issues = issues.items
    return result


def _detail_types(owner: Record, key: str, target: str, common: dict[str, Any]) -> list[ParsedAILabel]:
    """The `type` of each image or table detail in `owner[key]` (a list of objects)."""
    labels = []
    for position, detail in enumerate(owner.items(key), start=1):
        if not detail.ok or not detail.has("type"):
            continue
        value = detail.text("type").strip()
        if value:
            labels.append(ParsedAILabel(target=target, value=value, field=detail.name("type"), position=position,
                                        model=common["models"]["modality"], raw={"type": value}, **common["base"]))
    return labels


def _liveclin_record(rec: Record, id_key: str, models: dict[str, str]) -> list[ParsedAILabel]:
    base = {"record": rec.record, "case_id": rec.identifier(id_key), "id_key": id_key}
    common = {"base": base, "models": models}
    labels = [
        ParsedAILabel(target="case", value=value, field=key, level=level, model=models["taxonomy"],
                      raw={key: value}, **base)
        for key, level in LIVECLIN_LEVELS if (value := rec.text(key).strip())
    ]
    exam = rec.dict("exam_creation")
    if not isinstance(exam.get("final_policy"), dict):
        return labels
    policy = Record(exam["final_policy"], rec.record, rec.issues, prefix="exam_creation.final_policy")
    labels += _detail_types(policy, "scenario_image_details", "image", {**common, "base": {**base, "mcq": 0}})
    labels += _detail_types(policy, "scenario_table_details", "table", {**common, "base": {**base, "mcq": 0}})
    for order, mcq in enumerate(policy.items("mcqs"), start=1):
        if not mcq.ok:
            continue
        stage = mcq.text("stage").strip()
        if stage:
            labels.append(ParsedAILabel(target="question", value=stage, field=mcq.name("stage"), mcq=order,
                                        model=models["stage"], raw={"stage": stage}, **base))
        located = {**common, "base": {**base, "mcq": order}}
        labels += _detail_types(mcq, "image_details", "image", located)
        labels += _detail_types(mcq, "table_details", "table", located)
    return labels


def parse_liveclin(data: bytes, file_name: str, *, model: str = "") -> AILabelParseResult:
    """The `liveclin-labels` format: the labels of a LiveClin release file. `model`, when given,
    replaces the models LiveClin names for every kind of label."""
    models = dict.fromkeys(LIVECLIN_MODELS, model) if model else dict(LIVECLIN_MODELS)
    issues = Issues(file_name)
    result = AILabelParseResult()
    lines = [0]
    for rec, id_key, _ in records_with_id(data, issues, LIVECLIN_ID_KEYS, lines):
        result.labels += _liveclin_record(rec, id_key, models)
    result.records = lines[0]
    result.issues = issues.items
    return result
