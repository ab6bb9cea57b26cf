"""Run a curation: validate, compute the files, then record and write them, or nothing at all.

Files go to the `curations` storage as `curations/<name>/<file>`: the benchmark file(s),
`manifest.json` and `SHA256SUMS`. By default that storage is the database (issue 22: every web
server and worker finds them, and a PostgreSQL backup holds them), written in the transaction that
records the curation; with `CURATION_STORAGE=filesystem` they go under MEDIA_ROOT and are removed
again if that transaction fails. A refused or failed curation leaves neither a row nor a file.
Re-running a curation with the same name and the same inputs is a no-op that says so (the
bytes are identical by construction); the same name with other results is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import Storage, storages
from django.db import transaction

from accounts.roles import AnyUser
from annotation.access import check_can_curate
from annotation.models import Curation, ReviewEvent, Study
from annotation.outcomes.curation.build import CurationBuild, build_curation
from cases.exporters import CHECKSUMS_NAME, MANIFEST_NAME, CurationRules, sha256_hex
from cases.models import Release
from medreview.errors import ConflictError


def curation_storage() -> Storage:
    """Where curated files live: STORAGES["curations"] (the database unless configured otherwise)."""
    return storages["curations"]


def stored_name(curation_name: str, file_name: str) -> str:
    return f"curations/{curation_name}/{file_name}"


def legacy_root() -> Path:
    """Where curations made before issue 22 wrote their files (read only, as a fallback)."""
    return Path(settings.MEDIA_ROOT) / "curations"


def _store(name: str, files: dict[str, bytes]) -> list[str]:
    """Save every file; on failure remove what was saved (a database storage rolls back anyway)."""
    storage = curation_storage()
    saved: list[str] = []
    try:
        for file_name, data in sorted(files.items()):
            wanted = stored_name(name, file_name)
            if storage.exists(wanted):  # left by a run whose transaction did not commit: no row points at it
                storage.delete(wanted)
            if storage.save(wanted, ContentFile(data)) != wanted:
                raise ConflictError(f"could not store {wanted}: the storage chose another name")
            saved.append(wanted)
    except Exception:
        for stored in saved:
            storage.delete(stored)
        raise
    return saved


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
    saved: list[str] = []
    try:
        # Why atomic: the curation row, its studies, one CURATED event per study and (in the database
        # storage) the files are one record; a failure rolls all of it back.
        # Locks the curation name's row if it exists.
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
            saved = _store(name, built.files)
    except Exception:
        storage = curation_storage()
        for stored in saved:  # a file storage outside the transaction: remove what it kept
            if storage.exists(stored):
                storage.delete(stored)
        raise
    return curation, True


def curation_files(curation: Curation) -> list[str]:
    """The names of the curation's files that can be downloaded (those its manifest lists)."""
    return [name for name in sorted(curation.files) if _find(curation, name) is not None]


def _find(curation: Curation, file_name: str) -> str | Path | None:
    storage = curation_storage()
    if storage.exists(stored_name(curation.name, file_name)):
        return stored_name(curation.name, file_name)
    legacy = legacy_root() / curation.name / file_name
    return legacy if legacy.is_file() else None


def curation_file_open(curation: Curation, file_name: str) -> IO[bytes] | None:
    """One of the curation's files, opened for reading, or None if it is not one of them or is missing."""
    if file_name not in curation.files:
        return None
    found = _find(curation, file_name)
    if found is None:
        return None
    return found.open("rb") if isinstance(found, Path) else curation_storage().open(found, "rb")
