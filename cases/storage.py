"""Uploaded import files kept in the database, through Django's storage API.

The web server that receives an upload and the worker that imports it may run on different
machines; with files in PostgreSQL they need no shared filesystem. `IMPORT_STORAGE=filesystem`
switches back to MEDIA_ROOT (which must then be shared). Files are deleted when their import ends.
"""

from __future__ import annotations

from typing import IO, Any

from django.apps import apps
from django.core.files.base import ContentFile, File
from django.core.files.storage import Storage, storages
from django.utils.deconstruct import deconstructible


@deconstructible
class DatabaseStorage(Storage):
    """Each file is one `StoredFile` row (name, bytes). Uploads are read whole by the parsers anyway."""

    def _model(self) -> Any:
        # By name: cases.models imports this module for the field's storage.
        return apps.get_model("cases", "StoredFile")

    def _open(self, name: str, mode: str = "rb") -> File:
        row = self._model().objects.filter(name=name).values_list("content", flat=True).first()
        if row is None:
            raise FileNotFoundError(name)
        return ContentFile(bytes(row), name=name)

    def _save(self, name: str, content: IO[bytes] | File) -> str:
        if hasattr(content, "seek"):
            content.seek(0)
        data = content.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        name = self.get_available_name(name)
        self._model().objects.create(name=name, content=data, size=len(data))
        return name

    def delete(self, name: str) -> None:
        self._model().objects.filter(name=name).delete()

    def exists(self, name: str) -> bool:
        return self._model().objects.filter(name=name).exists()

    def size(self, name: str) -> int:
        size = self._model().objects.filter(name=name).values_list("size", flat=True).first()
        if size is None:
            raise FileNotFoundError(name)
        return size

    def url(self, name: str | None) -> str:
        # Uploaded import files are never served; an empty link keeps the admin's file display working.
        return ""

    def listdir(self, path: str) -> tuple[list[str], list[str]]:
        prefix = path.rstrip("/") + "/" if path else ""
        names = self._model().objects.filter(name__startswith=prefix).values_list("name", flat=True)
        return [], [n[len(prefix):] for n in names if "/" not in n[len(prefix):]]


def import_storage() -> Storage:
    """The storage of ImportJob.file: STORAGES["imports"] (database unless configured otherwise)."""
    return storages["imports"]

