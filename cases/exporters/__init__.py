"""Curated releases: one writer per benchmark format, the curation rules and the manifest.

Pure and deterministic: dataclasses in (`ParsedCase` from the importers, `CaseReview` per case),
bytes out. `annotation.outcomes.curation` loads a release and the final labels of the chosen studies and
calls `curate`; the files it writes import back with `cases.importers` unchanged in shape.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cases.exporters import generic, healthbench, liveclin, livemedbench
from cases.exporters.base import (
    REASONS,
    CaseDecision,
    CaseReview,
    CurationOutput,
    CurationRules,
    FieldOutcome,
    Note,
    sha256_hex,
)
from cases.exporters.manifest import (
    CHECKSUMS_NAME,
    MANIFEST_NAME,
    SourceRelease,
    StudyRef,
    build_manifest,
    release_files,
)
from cases.exporters.rules import reason_table, unresolved_fields
from cases.exporters.writer import Writer
from cases.importers.base import ParsedCase

WRITERS: dict[str, Writer] = {
    w.format: w for w in (livemedbench.WRITER, liveclin.WRITER, healthbench.WRITER, generic.WRITER)
}


def curate(
    *, fmt: str, name: str, cases: Sequence[ParsedCase], reviews: Mapping[str, CaseReview], rules: CurationRules,
) -> CurationOutput:
    """Apply the rules to every case (in the given order) and write the benchmark's file."""
    writer = WRITERS[fmt]
    decisions = tuple(writer.decide(case, reviews.get(case.external_id), rules) for case in cases)
    records = [writer.record(d, rules, name) for d in decisions if d.keep]
    notes = tuple(n for d in decisions for n in d.notes)
    return CurationOutput(
        format=fmt, name=name, files={writer.file_name(name): writer.serialize(records)},
        decisions=decisions, counts=writer.counts(decisions), reasons=reason_table(notes), notes=notes,
    )


__all__ = [
    "CHECKSUMS_NAME", "MANIFEST_NAME", "REASONS", "WRITERS", "CaseDecision", "CaseReview", "CurationOutput",
    "CurationRules", "FieldOutcome", "Note", "SourceRelease", "StudyRef", "build_manifest", "curate",
    "release_files", "sha256_hex", "unresolved_fields",
]
