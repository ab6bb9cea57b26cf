"""The taxonomies shipped with medreview, loaded by name (`manage.py load_taxonomy liveclin`).

Each is a file in the documented format (docs/formats.md, "Taxonomies") under `data/`, parsed and
checked like any uploaded file.
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

BUILTIN: dict[str, Path] = {
    # LiveClin Table 2 (16 chapters, 72 clusters with ICD-10 ranges); level 3 generated from ICD-10.
    "liveclin": DATA / "liveclin.json",
}


def builtin_file(name: str) -> Path | None:
    return BUILTIN.get(name)
