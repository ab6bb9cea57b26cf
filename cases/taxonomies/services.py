"""Loading a taxonomy: the file is parsed and checked completely, then written in one transaction.

A loaded version is immutable (AI labels and physicians' labels point at its nodes): loading the
same content again is "unchanged"; different content under a version already loaded is refused,
so a changed taxonomy gets a new version.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction

from cases import bulk
from cases.importers.base import ImportIssue
from cases.importers.limits import max_length
from cases.models import Taxonomy, TaxonomyLevel, TaxonomyNode
from cases.taxonomies import icd10
from cases.taxonomies.parser import ParsedTaxonomy, parse_taxonomy

Progress = Callable[[str, int, int], None]


@dataclass
class TaxonomyReport:
    """What a load did (or, in a dry run, would do). `to_dict()` is the command's `--json` shape."""

    status: str  # loaded | unchanged | dry-run | refused
    file_name: str
    key: str = ""
    version: str = ""
    sha256: str = ""
    counts: dict[str, int] = field(default_factory=dict)
    errors: list[ImportIssue] = field(default_factory=list)
    taxonomy_id: int | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status != "refused"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status, "file": self.file_name, "key": self.key, "version": self.version,
            "sha256": self.sha256, "counts": dict(self.counts), "errors": [e.as_dict() for e in self.errors],
            "taxonomy_id": self.taxonomy_id, "seconds": round(self.seconds, 3),
        }


def _too_long(taxonomy: ParsedTaxonomy, file_name: str) -> list[ImportIssue]:
    """Values longer than their columns, checked before anything is written (like release imports)."""
    checks: list[tuple[str, str, int]] = [
        ("key", taxonomy.key, max_length(Taxonomy, "key")),
        ("version", taxonomy.version, max_length(Taxonomy, "version")),
        ("name", taxonomy.name, max_length(Taxonomy, "name")),
        ("name_zh", taxonomy.name_zh, max_length(Taxonomy, "name_zh")),
        ("source", taxonomy.source, max_length(Taxonomy, "source")),
    ]
    checks += [(f"levels[{lv.depth}].{attr}", getattr(lv, attr), max_length(TaxonomyLevel, attr))
               for lv in taxonomy.levels for attr in ("name", "name_zh")]
    checks += [(f"{node.field or node.code}.{attr}", getattr(node, attr), max_length(TaxonomyNode, column))
               for node in taxonomy.nodes
               for attr, column in (("code", "code"), ("name", "name"), ("name_zh", "name_zh"),
                                    ("code_range", "code_range"))]
    return [
        ImportIssue(None, where, f"{len(value)} characters; at most {limit} fit (starts {value[:40]!r})", file_name)
        for where, value, limit in checks if len(value) > limit
    ]


def taxonomy_load(
    *, data: bytes, file_name: str, user: AbstractBaseUser | None = None, dry_run: bool = False,
    progress: Progress | None = None,
) -> TaxonomyReport:
    """Load one taxonomy file: all of it, or nothing (status "refused", every error located)."""
    started = time.monotonic()
    report = TaxonomyReport(status="dry-run" if dry_run else "loaded", file_name=file_name)

    def finish(status: str | None = None, errors: list[ImportIssue] | None = None) -> TaxonomyReport:
        report.status = status or report.status
        report.errors = errors or []
        report.seconds = time.monotonic() - started
        return report

    parsed = parse_taxonomy(data, file_name)
    if parsed.taxonomy is None:
        return finish("refused", parsed.issues)
    taxonomy = parsed.taxonomy
    report.key, report.version, report.sha256 = taxonomy.key, taxonomy.version, taxonomy.sha256
    report.counts = taxonomy.counts()
    too_long = _too_long(taxonomy, file_name)
    if too_long:
        return finish("refused", too_long)
    existing = Taxonomy.objects.filter(key=taxonomy.key, version=taxonomy.version).first()
    if existing is not None:
        return _same_version(report, existing, finish)
    if dry_run:
        return finish()
    try:
        # One transaction: the taxonomy, its levels and every node, or nothing. No lock is needed: the
        # unique (key, version) constraint lets only one of two concurrent loads of a version commit.
        with transaction.atomic():
            report.taxonomy_id = _write(taxonomy, file_name, user, progress)
    except IntegrityError:
        existing = Taxonomy.objects.filter(key=taxonomy.key, version=taxonomy.version).first()
        if existing is None:
            raise
        return _same_version(report, existing, finish)
    return finish()


def _same_version(report: TaxonomyReport, existing: Taxonomy, finish: Callable[..., TaxonomyReport]) -> TaxonomyReport:
    report.taxonomy_id = existing.pk
    if existing.sha256 == report.sha256:
        return finish("unchanged")
    return finish("refused", [ImportIssue(
        None, "version",
        f"taxonomy {report.key!r} version {report.version!r} is already loaded with different content; "
        "a loaded taxonomy never changes (labels point at its nodes): give this file a new version",
        report.file_name,
    )])


def _write(taxonomy: ParsedTaxonomy, file_name: str, user: AbstractBaseUser | None, progress: Progress | None) -> int:
    generated = taxonomy.levels[-1].generated_from
    source = taxonomy.source or (icd10.source() if generated == icd10.GENERATED_FROM else "")
    row = Taxonomy.objects.create(
        key=taxonomy.key, version=taxonomy.version, name=taxonomy.name, name_zh=taxonomy.name_zh,
        description=taxonomy.description, source=source, file_name=file_name, sha256=taxonomy.sha256,
        counts=taxonomy.counts(), imported_by=user,
    )
    bulk.insert([
        TaxonomyLevel(taxonomy=row, depth=lv.depth, name=lv.name, name_zh=lv.name_zh, generated_from=lv.generated_from)
        for lv in taxonomy.levels
    ])
    order = {id(node): position for position, node in enumerate(taxonomy.nodes, start=1)}
    ids: dict[tuple[int, str], int] = {}
    total = len(taxonomy.nodes)
    for depth in range(1, len(taxonomy.levels) + 1):
        # Level by level, so every parent has its id before its children are written.
        level_nodes = [n for n in taxonomy.nodes if n.level == depth]
        rows = bulk.insert([
            TaxonomyNode(
                taxonomy=row, level=n.level, code=n.code, name=n.name, name_zh=n.name_zh,
                parent_id=ids[(depth - 1, n.parent)] if depth > 1 else None, order=order[id(n)],
                code_range=n.code_range, aliases=list(n.aliases),
            )
            for n in level_nodes
        ])
        ids.update({(depth, n.code): r.pk for n, r in zip(level_nodes, rows, strict=True)})
        if progress is not None:
            progress("write", len(ids), total)
    return row.pk
