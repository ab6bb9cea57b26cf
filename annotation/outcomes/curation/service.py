"""Run a curation: validate, compute the files, then record and write them, or nothing at all.

Files go to `MEDIA_ROOT/curations/<name>/`: the benchmark file(s), `manifest.json` and
`SHA256SUMS`. They are written to a temporary directory beside it and moved into place as the
last step of the transaction that records the curation, so a refused or failed curation leaves
neither a row nor a file.
Re-running a curation with the same name and the same inputs is a no-op that says so (the
bytes are identical by construction); the same name with other results is refused.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path

from django.conf import settings
from django.db import transaction

from accounts.roles import AnyUser
from annotation.access import check_can_curate
from annotation.models import Curation, ReviewEvent, Study
from annotation.outcomes.curation.build import CurationBuild, build_curation
from cases.exporters import CHECKSUMS_NAME, MANIFEST_NAME, CurationRules, sha256_hex
from cases.models import Release
from medreview.errors import ConflictError


def curations_root() -> Path:
    return Path(settings.MEDIA_ROOT) / "curations"


def _stage(name: str, files: dict[str, bytes]) -> Path:
    root = curations_root()
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=root))
    for file_name, data in files.items():
        (staging / file_name).write_bytes(data)
    return staging


def _move_into_place(staging: Path, name: str) -> None:
    target = curations_root() / name
    if target.exists():  # left by a run whose transaction did not commit: no row points at it
        shutil.rmtree(target)
    staging.rename(target)


def _same(existing: Curation, release: Release, studies: Sequence[Study], built: CurationBuild) -> bool:
    """Same inputs and the same data files; the manifest differs only by the chain heads it records."""
    def data(files: dict[str, str]) -> dict[str, str]:
        return {n: d for n, d in files.items() if n not in (MANIFEST_NAME, CHECKSUMS_NAME)}

    return (
        existing.release_id == release.pk
        and sorted(existing.studies.values_list("pk", flat=True)) == sorted(s.pk for s in studies)
        and data(existing.files) == data({n: sha256_hex(d) for n, d in built.files.items()})
    )


def curation_create(
    *, name: str, release: Release, studies: Sequence[Study], rules: CurationRules, actor: AnyUser,
    history_url: Callable[[int], str],
) -> tuple[Curation, bool]:
    """(curation, created). Refuses with a ValidationError (400) before anything is written."""
    check_can_curate(actor)
    built = build_curation(name=name, release=release, studies=studies, rules=rules, history_url=history_url)
    name = built.manifest["curation"]
    digests = {n: sha256_hex(d) for n, d in built.files.items()}
    staging = _stage(name, built.files)
    try:
        # Why atomic: the curation row, its studies and one CURATED event per study are one record, and
        # the files move into place as its last step (a failure before that rolls the record back).
        # Locks the curation name's row if it exists and each study's audit-chain head.
        with transaction.atomic():
            existing = Curation.objects.select_for_update().filter(name=name).first()
            if existing is not None:
                if _same(existing, release, studies, built):
                    return existing, False
                raise ConflictError(
                    f"a curation named {name!r} already exists (id {existing.pk}) with other inputs or results; "
                    "choose another name")
            curation = Curation.objects.create(
                name=name, release=release, format=release.format, rules=asdict(rules), manifest=built.manifest,
                files=digests, created_by=actor if actor.is_authenticated else None,
            )
            curation.studies.set(studies)
            for study in sorted(studies, key=lambda s: s.pk):
                ReviewEvent.objects.record(
                    study=study, item=None, actor=actor, kind=ReviewEvent.Kind.CURATED, reason=name,
                    data={"curation": name, "release": release.pk, "manifest_sha256": digests[MANIFEST_NAME],
                          "counts": built.counts},
                )
            _move_into_place(staging, name)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
    return curation, True


def curation_files(curation: Curation) -> dict[str, Path]:
    """The curation's files on disk, by name (only those the manifest lists with their checksum)."""
    directory = curations_root() / curation.name
    return {name: directory / name for name in sorted(curation.files) if (directory / name).is_file()}
