"""The manifest written beside a curated release: inputs, rules, counts and why, checksums.

Deterministic like the data files (no time stamp: the curation's audit event records when), so a
re-run with the same inputs gives the same bytes, except each study's audit-chain head when it was
built (issue 22: a copy of the head outside the database, which moves with every review event). `SHA256SUMS` lists every file, the manifest
included, in the format `sha256sum -c` checks (ClinConsensus ships its package with one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from cases.exporters.base import CurationOutput, CurationRules, dump_json, sha256_hex

MANIFEST_NAME = "manifest.json"
CHECKSUMS_NAME = "SHA256SUMS"
MANIFEST_VERSION = 1


@dataclass(frozen=True)
class SourceRelease:
    id: int
    dataset: str
    label: str
    format: str
    file_name: str
    sha256: str


@dataclass(frozen=True)
class StudyRef:
    id: int
    name: str
    tasks: tuple[str, ...]
    items: int
    resolved_items: int
    audit_chain: dict[str, Any] = field(default_factory=dict)  # {seq, hash, sealed_at} of the study's chain


def build_manifest(
    output: CurationOutput, *, source: SourceRelease, studies: Sequence[StudyRef], rules: CurationRules,
    version: str,
) -> dict[str, Any]:
    return {
        "manifest_version": MANIFEST_VERSION,
        "curation": output.name,
        "format": output.format,
        "source_release": asdict(source),
        "studies": [{**asdict(s), "tasks": list(s.tasks)} for s in sorted(studies, key=lambda s: s.id)],
        "rules": rules.as_dict(),
        "counts": output.counts,
        "reasons": output.reasons,
        "items": [n.as_dict() for n in output.notes],
        "medreview_version": version,
        "files": [
            {"name": name, "sha256": sha256_hex(data), "bytes": len(data)}
            for name, data in sorted(output.files.items())
        ],
    }


def checksums(files: dict[str, bytes]) -> bytes:
    return "".join(f"{sha256_hex(data)}  {name}\n" for name, data in sorted(files.items())).encode("utf-8")


def release_files(
    output: CurationOutput, *, source: SourceRelease, studies: Sequence[StudyRef], rules: CurationRules,
    version: str,
) -> dict[str, bytes]:
    """Every file of the curated release: the data file(s), the manifest and SHA256SUMS."""
    manifest = build_manifest(output, source=source, studies=studies, rules=rules, version=version)
    files = {**output.files, MANIFEST_NAME: dump_json(manifest)}
    return {**files, CHECKSUMS_NAME: checksums(files)}
