"""Compile the gettext catalogues (locale/<lang>/LC_MESSAGES/*.po) into .mo files, in pure Python.

`compilemessages` needs GNU gettext's msgfmt; a fresh machine with only Python has none, so
`dev.py` (and the test suite's session setup) compile with this instead. It supports what
Django's catalogues use: msgctxt, plurals, multi-line strings and escapes; fuzzy entries are
left out, as msgfmt does.

    python -m medreview.i18n.msgfmt [locale_dir]
"""

from __future__ import annotations

import ast
import struct
import sys
from pathlib import Path


def _unquote(line: str) -> str:
    return ast.literal_eval(line)  # a .po string is a C string literal, which Python reads alike


def parse_po(text: str) -> list[dict]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr (or msgstr[n]) and flags."""
    entries: list[dict] = []
    entry: dict = {"flags": set()}
    key = ""

    def flush() -> None:
        nonlocal entry
        if "msgid" in entry:
            entries.append(entry)
        entry = {"flags": set()}

    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#,"):
            if "msgid" in entry:
                flush()
            entry["flags"].update(f.strip() for f in line[2:].split(","))
            continue
        if line.startswith("#"):
            continue
        starts_entry = line.startswith("msgctxt ") or (line.startswith("msgid ") and "msgstr" in _keys(entry))
        if starts_entry and "msgid" in entry:
            flush()
        head, _, rest = line.partition(" ")
        if line.startswith('"'):
            entry[key] += _unquote(line)
            continue
        key = head
        entry[key] = _unquote(rest)
    flush()
    return entries


def _keys(entry: dict) -> str:
    return " ".join(k for k in entry if k.startswith("msgstr"))


def translated(entry: dict) -> dict[str, str]:
    """msgstr / msgstr[n] of an entry, in order."""
    return {k: v for k, v in entry.items() if k.startswith("msgstr")}


def compile_po(po_path: Path, mo_path: Path | None = None) -> Path:
    """Write the .mo beside the .po (or at `mo_path`); fuzzy and untranslated entries are skipped."""
    catalog: dict[bytes, bytes] = {}
    for entry in parse_po(po_path.read_text(encoding="utf-8")):
        strings = translated(entry)
        is_header = entry["msgid"] == "" and "msgctxt" not in entry
        if ("fuzzy" in entry["flags"] and not is_header) or not any(strings.values()):
            continue
        msgid = entry["msgid"]
        if "msgctxt" in entry:
            msgid = entry["msgctxt"] + "\x04" + msgid
        if "msgid_plural" in entry:
            msgid += "\x00" + entry["msgid_plural"]
            text = "\x00".join(strings[k] for k in sorted(strings, key=lambda k: int(k[7:-1])))
        else:
            text = strings.get("msgstr", "")
        catalog[msgid.encode("utf-8")] = text.encode("utf-8")
    mo_path = mo_path or po_path.with_suffix(".mo")
    mo_path.write_bytes(_mo_bytes(catalog))
    return mo_path


def _mo_bytes(catalog: dict[bytes, bytes]) -> bytes:
    keys = sorted(catalog)
    ids = b"".join(k + b"\x00" for k in keys)
    strs = b"".join(catalog[k] + b"\x00" for k in keys)
    header_size = 7 * 4
    table_size = len(keys) * 8
    ids_start = header_size + 2 * table_size
    strs_start = ids_start + len(ids)
    offsets_ids, offsets_strs, pos_i, pos_s = [], [], 0, 0
    for k in keys:
        offsets_ids += [len(k), ids_start + pos_i]
        offsets_strs += [len(catalog[k]), strs_start + pos_s]
        pos_i += len(k) + 1
        pos_s += len(catalog[k]) + 1
    header = struct.pack("<7I", 0x950412DE, 0, len(keys), header_size, header_size + table_size, 0, 0)
    tables = struct.pack(f"<{len(offsets_ids)}I", *offsets_ids) + struct.pack(f"<{len(offsets_strs)}I", *offsets_strs)
    return header + tables + ids + strs


def compile_all(locale_dir: Path) -> list[Path]:
    """Compile every .po under `locale_dir` whose .mo is missing or older."""
    done = []
    for po in sorted(locale_dir.glob("*/LC_MESSAGES/*.po")):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            done.append(compile_po(po))
    return done


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "locale"
    for path in compile_all(root):
        print(f"compiled {path}")
