"""LiveClin: JSONL, one case report a line, with its progressive exam under
`exam_creation.final_policy`.

LiveClin Appendix G separates *privileged* information (the source case report and the image
captions; only the auditor's factual validation sees it) from what a test-taker sees (scenario,
stems, images without captions, answers of previous steps). The parser keeps them apart: the case
report comes from an optional `case_report` field or a side file mapping record ids to reports
(`parse_case_reports`), never from the scenario; the captions are collected from the image details
into their own list. A missing report stays missing (pages link the PMC / DOI source instead).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cases.importers import liveclin_judge
from cases.importers.base import (
    MCQ_LETTERS,
    ImportIssue,
    Issues,
    ParsedCase,
    ParsedMCQ,
    ParsedQuestionSet,
    ParseResult,
    Record,
    check_duplicate,
    decode,
    iter_jsonl,
    json_type,
)
from cases.importers.safe_load import UnsafeJSON, check_value, issue_location, safe_loads

ID_KEYS = ("pmc", "pmid", "doi")
KNOWN_KEYS = {*ID_KEYS, "Rarity", "Level1", "Level2", "exam_creation", "case_report"}
REPORT_FROM_RECORD = "record"
REPORT_FROM_SIDE_FILE = "side file"
SOURCE_URLS = {
    "pmc": "https://pmc.ncbi.nlm.nih.gov/articles/{id}/",
    "pmid": "https://pubmed.ncbi.nlm.nih.gov/{id}/",
    "doi": "https://doi.org/{id}",
}


# The question set with its privileged source (the fields live on ParsedQuestionSet).
LiveClinQuestionSet = ParsedQuestionSet


def source_url(source: str) -> str:
    """The public page of a case report from the revision's `source` ("pmc:PMC1100", "doi:10.1/x")."""
    key, _, ident = source.partition(":")
    template = SOURCE_URLS.get(key)
    return template.format(id=ident.strip()) if template and ident.strip() else ""


def image_captions(images: list[Any], mcq: int) -> list[dict[str, Any]]:
    """The captions of one list of image details (scenario: mcq=0), without the images."""
    found = []
    for position, image in enumerate(images, start=1):
        caption = image.get("caption") if isinstance(image, dict) else None
        if isinstance(caption, str) and caption.strip():
            found.append({"mcq": mcq, "image": position, "caption": caption})
    return found


def _report_mapping(text: str, issues: Issues) -> dict[str, Any] | None:
    """The whole side file as one `{id: report}` object; None when it is JSONL (a single line
    naming its record with pmc / pmid / doi is a JSONL file of one report) or refused (noted)."""
    if not text.lstrip().startswith("{"):
        return None
    try:
        # Unchecked first: where a NUL or a duplicate key is depends on which form the file has.
        value = safe_loads(text, check=False)
    except json.JSONDecodeError:
        return None  # several lines: JSON Lines
    except UnsafeJSON as exc:
        issues.add(*issue_location(exc, record=None))
        return None
    if not isinstance(value, dict) or any(k in value for k in ID_KEYS):
        return None
    try:
        check_value(value)
    except UnsafeJSON as exc:
        issues.add(*issue_location(exc, record=None))
        return None
    return value


def parse_case_reports(data: bytes, file_name: str) -> tuple[dict[str, str], list[ImportIssue]]:
    """A side file of source case reports: a JSON object mapping record ids to report text
    (Markdown allowed), or JSONL lines `{"pmc" | "pmid" | "doi": id, "case_report": text}`. Read
    through the safe loader: a NUL, a lone surrogate, a duplicate id or key, deep nesting and huge
    numbers are refused with their location."""
    issues = Issues(file_name)
    reports: dict[str, str] = {}
    text = decode(data, issues)
    if text is None:
        return {}, issues.items
    mapping = _report_mapping(text, issues)
    if issues.items:
        return {}, issues.items
    if mapping is not None:
        for key, report in mapping.items():
            if not isinstance(report, str):
                issues.add(None, str(key), f"wrong type: expected text, got {json_type(report)}")
            elif report.strip():
                reports[str(key).strip()] = report
        return reports, issues.items
    seen: dict[str, int] = {}
    for line, item in iter_jsonl(data, issues):
        rec = Record(item, line, issues)
        id_key = next((k for k in ID_KEYS if rec.has(k)), None)
        if not rec.ok:
            continue
        if id_key is None:
            issues.add(line, "pmc", "missing required field: one of pmc, pmid, doi")
            continue
        external_id = rec.identifier(id_key)
        check_duplicate(seen, external_id, line, issues, id_key)
        report = rec.text("case_report", required=True, non_empty=True)
        if external_id and report.strip():
            reports[external_id] = report
    return reports, issues.items


def _details(rec: Record, key: str) -> list[Any]:
    """Image / table details: a list of objects (caption, type, url or file; tables keep Markdown)."""
    value = rec.obj.get(key)
    if value is None:
        return []
    if isinstance(value, dict):
        return [value]
    if not isinstance(value, list):
        rec.error(key, f"wrong type: expected a list of objects, got {type(value).__name__}")
        return []
    return value


def _mcq(sub: Record) -> ParsedMCQ:
    question = sub.text("question", required=True, non_empty=True)
    raw_options = sub.dict("options", required=True)
    options: dict[str, str] = {}
    for letter, text in raw_options.items():
        key = str(letter).strip().upper()
        if key not in MCQ_LETTERS or len(key) != 1:
            sub.error(f"options.{letter}", f"option letters must be A..J, got {letter!r}")
        elif not isinstance(text, str) or not text.strip():
            sub.error(f"options.{letter}", "option text must be non-empty text")
        else:
            options[key] = text
    if raw_options and len(raw_options) < 2:
        sub.error("options", "an MCQ needs at least two options")
    answer = sub.text("correct_answer", required=True).strip().upper()
    if answer and options and answer not in options:
        sub.error("correct_answer", f"answer {answer!r} is not one of the options {', '.join(sorted(options))}")
    return ParsedMCQ(
        stage=sub.text("stage"), question=question, options=dict(sorted(options.items())),
        correct_answer=answer, image_details=_details(sub, "image_details"),
        table_details=_details(sub, "table_details"),
    )


def _question_set(
    policy: Record, rec: Record, external_id: str, side_reports: Mapping[str, str]
) -> LiveClinQuestionSet:
    scenario = policy.text("scenario", required=True, non_empty=True)
    mcqs = [
        _mcq(sub)
        for sub in policy.items("mcqs", required=True, if_empty="a question set needs at least one MCQ")
        if sub.ok
    ]
    scenario_images = _details(policy, "scenario_image_details")
    captions = image_captions(scenario_images, 0)
    for position, mcq in enumerate(mcqs, start=1):
        captions += image_captions(mcq.image_details, position)
    report = rec.text("case_report")
    source = REPORT_FROM_RECORD if report.strip() else ""
    if not source and side_reports.get(external_id, "").strip():
        report, source = side_reports[external_id], REPORT_FROM_SIDE_FILE
    return LiveClinQuestionSet(
        scenario=scenario,
        scenario_images=scenario_images,
        scenario_tables=_details(policy, "scenario_table_details"),
        mcqs=tuple(mcqs),
        case_report=report if source else "",
        report_source=source,
        captions=tuple(captions),
    )


def _embedded_judgement(rec: Record, external_id: str, id_key: str, mcq_count: int, result: ParseResult) -> None:
    """A record's own `judge` block (the Judge's verdicts in Appendix G's format, as a `liveclin-judge`
    line holds them) is imported as the pre-screen of its question set; the block also stays in `extra`."""
    mcqs = liveclin_judge.judge_mcqs(rec.obj["judge"], rec.record, rec.issues, "judge")
    judgement = liveclin_judge.ParsedJudgement(record=rec.record, external_id=external_id, mcqs=mcqs,
                                               raw=rec.obj["judge"], id_key=id_key)
    liveclin_judge.match([judgement], {external_id: mcq_count}, rec.issues, dataset="this file")
    result.judgements.append(judgement)


def parse(data: bytes, file_name: str, *, case_reports: Mapping[str, str] | None = None) -> ParseResult:
    """Parse a LiveClin file; `case_reports` (from `parse_case_reports`) supplies the source report
    of records without a `case_report` field. A side-file id no record names is reported."""
    issues = Issues(file_name)
    side_reports = case_reports or {}
    result = ParseResult(kind="cases")
    seen: dict[str, int] = {}
    for line, item in iter_jsonl(data, issues):
        result.records += 1
        rec = Record(item, line, issues)
        if not rec.ok:
            continue
        id_key = next((k for k in ID_KEYS if rec.has(k)), None)
        if id_key is None:
            issues.add(line, "pmc", "missing required field: one of pmc, pmid, doi")
            external_id = ""
        else:
            external_id = rec.identifier(id_key)
            check_duplicate(seen, external_id, line, issues, id_key)
        exam = rec.dict("exam_creation", required=True)
        if not isinstance(rec.obj.get("exam_creation"), dict):
            continue
        if exam.get("final_policy") is None:
            issues.add(line, "exam_creation.final_policy", "missing required field")
            continue
        policy = Record(exam["final_policy"], line, issues, prefix="exam_creation.final_policy")
        if not policy.ok:
            continue
        question_set = _question_set(policy, rec, external_id, side_reports)
        if rec.has("judge"):
            _embedded_judgement(rec, external_id, id_key or "pmc", len(question_set.mcqs), result)
        extra = rec.unknown_keys(KNOWN_KEYS)
        policy_extra = policy.unknown_keys({"scenario", "scenario_image_details", "scenario_table_details", "mcqs"})
        if policy_extra:
            extra["final_policy"] = policy_extra
        result.cases.append(ParsedCase(
            record=line,
            external_id=external_id,
            # The scenario is what an examinee reads; it doubles as the narrative on review pages.
            narrative=question_set.scenario,
            rarity=rec.text("Rarity"),
            icd_chapter=rec.text("Level1"),
            disease_cluster=rec.text("Level2"),
            source=f"{id_key}:{external_id}" if id_key else "",
            extra=extra,
            raw=item,
            question_set=question_set,
        ))
    for unknown in sorted(set(side_reports) - set(seen)):
        issues.add(None, "case_report", f"the case-report side file names {unknown!r}, which no record of the file has")
    result.issues = issues.items
    return result
