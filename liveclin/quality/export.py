"""The validated set in LiveClin's own format: only validated question sets, their text unchanged
(the source line as imported), each with a review summary.

The record and the bytes come from the curated-release writer (`cases.exporters.liveclin.WRITER`,
the same one curations use); this module only decides which sets are kept (`rules.outcome`, which
also weighs the Judge's pre-screen) and adds the quality-check summary to the writer's
`physician_review` block: the outcome, the pre-screen result and each MCQ's Judge and final labels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.models import Study
from annotation.outcomes.audit import chain_head
from cases.exporters.base import CaseDecision, CaseReview, CurationRules, FieldOutcome, sha256_hex
from cases.exporters.liveclin import WRITER
from cases.exporters.writer import REVIEW_KEY
from cases.importers.base import ParsedCase
from cases.release_data import release_cases
from liveclin.consolidation.selectors import categories_by_revision
from liveclin.quality.loading import ReleaseReview
from liveclin.quality.rules import CHECKS, VALIDATED, Outcome, SetReview, outcome

RULE_INSPECTOR = "inspector"
RULE_UNANIMOUS = "unanimous"


@dataclass(frozen=True)
class ValidatedExport:
    file_name: str
    data: bytes
    sets: int  # question sets written
    sha256: str
    manifest: dict[str, Any]  # what the file was made from: the Judge run, the studies' options, the rule


def _case_review(review: SetReview) -> CaseReview:
    mcqs = {
        m.position: {
            check: FieldOutcome(
                label=m.final[check].label,
                rule=RULE_INSPECTOR if m.final[check].source in ("accepted", "adjudicated") else RULE_UNANIMOUS,
                source=m.final[check].source,
            )
            for check in CHECKS if check in m.final
        }
        for m in review.mcqs
    }
    return CaseReview(mcqs=mcqs, events=tuple(review.events), set_rejection=review.set_rejection)


def quality_summary(review: SetReview, result: Outcome) -> dict[str, Any]:
    return {
        "outcome": result.status,
        "reasons": list(result.reasons),
        "prescreen": {None: "not screened", True: "passed", False: "flagged"}[review.passed_prescreen],
        "set_rejection": review.set_rejection or None,
        "mcqs": [
            {
                "position": m.position,
                "judge": {c: m.judge.get(c) for c in CHECKS if c in m.judge},
                "final": {c: m.final[c].label for c in CHECKS if c in m.final},
            }
            for m in review.mcqs
        ],
    }


def validated_records(review: ReleaseReview, cases: list[ParsedCase], name: str,
                      categories: dict[int, dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """`categories` {revision id: ...}: each set's stage and modality categories under the approved
    consolidation versions (`liveclin.consolidation`), written beside the quality check."""
    by_key = {c.external_id: c for c in cases}
    rules = CurationRules(review_block=True)
    records = []
    for set_review in review.sets:
        result = outcome(set_review)
        case = by_key.get(set_review.key)
        if result.status != VALIDATED or case is None:
            continue
        decision = CaseDecision(case=case, review=_case_review(set_review), status=result.status)
        record = WRITER.record(decision, rules, name)
        record[REVIEW_KEY]["quality_check"] = quality_summary(set_review, result)
        if categories:
            record[REVIEW_KEY]["categories"] = categories.get(review.revision_ids.get(set_review.question_set_id, 0), {})
        records.append(record)
    return records


def validated_export(review: ReleaseReview, *, name: str = "") -> ValidatedExport:
    """The `liveclin` JSONL of the release's validated sets, in file order."""
    name = name or f"{review.release.label}-validated"
    used, categories = categories_by_revision(list(review.revision_ids.values()))
    records = validated_records(review, release_cases(review.release), name, categories)
    data = WRITER.serialize(records)
    file_name, digest = WRITER.file_name(name), sha256_hex(data)
    manifest = validated_manifest(review, file_name, digest, len(records))
    if used:  # the consolidation versions whose categories the records carry
        manifest["consolidations"] = used
    return ValidatedExport(file_name=file_name, data=data, sets=len(records), sha256=digest, manifest=manifest)


def validated_manifest(review: ReleaseReview, file_name: str, digest: str, sets: int) -> dict[str, Any]:
    """The validated file's manifest: its checksum, the release, the Judge run whose flags were weighed
    (and why that one), each reviewing study's `show_prescreen`, `min_inspector_rank` and pinned run."""
    release = review.release
    report_run = review.report_run
    return {
        "file": file_name, "sha256": digest, "sets": sets,
        "release": {"id": release.pk, "dataset": release.dataset.name, "label": release.label,
                    "sha256": release.sha256},
        "judge_run": report_run.run_dict() if report_run is not None else None,
        "studies": list(report_run.studies) if report_run is not None else [],
        "rule": "principle of conservatism (LiveClin Sec. 3.4): a set is kept only when every MCQ check has a "
                "physician final label 'yes', every Judge flag was resolved by an inspector and no inspector "
                "rejected the set",
        # Issue 22: each reviewing study's audit-chain head when the file was made, a copy outside the database.
        "audit_chain": [chain_head(study) for study in
                        Study.objects.filter(items__revision__release=release).distinct().order_by("pk")],
    }
