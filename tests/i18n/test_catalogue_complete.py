"""The zh-Hans catalogue is complete: `makemessages` over the code, into a temporary directory,
finds no string without a non-empty, non-fuzzy zh-Hans entry in locale/zh_Hans (templates, Python
and the rating screen's JavaScript). Also: the pure-Python .mo compiler agrees with GNU msgfmt.
Needs GNU gettext (`apt-get install -y gettext`; `.ci/run` installs it)."""

from __future__ import annotations

import gettext
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from medreview.i18n.msgfmt import compile_po, parse_po

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
LANGUAGES = ["zh_Hans"]
CODE = ["accounts", "agreement", "annotation", "cases", "demo", "graders", "liveclin", "medreview", "static", "templates"]
IGNORE = ["static/vendor/*", "vendor", "*/migrations/*", "__pycache__"]

needs_gettext = pytest.mark.skipif(
    shutil.which("xgettext") is None or shutil.which("msgfmt") is None,
    reason="needs GNU gettext (apt-get install -y gettext)",
)


def _entries(po: Path) -> dict[str, dict]:
    out = {}
    for entry in parse_po(po.read_text(encoding="utf-8")):
        if entry["msgid"] == "" and "msgctxt" not in entry:
            continue
        out[(entry.get("msgctxt", "") + "\x04" if "msgctxt" in entry else "") + entry["msgid"]] = entry
    return out


def _problem(entry: dict | None) -> str:
    if entry is None:
        return "missing"
    if "fuzzy" in entry["flags"]:
        return "fuzzy"
    strings = [v for k, v in entry.items() if k.startswith("msgstr")]
    return "" if strings and all(s.strip() for s in strings) else "empty"


@needs_gettext
@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", ["django", "djangojs"])
def test_every_string_of_the_code_has_a_chinese_entry(tmp_path, monkeypatch, language, domain):
    # makemessages writes beside the code it finds a `locale` directory next to: run it in a
    # directory of links to the code, so it writes into the temporary catalogue, never the shipped one.
    src = tmp_path / "src"
    src.mkdir()
    for name in CODE:
        (src / name).symlink_to(ROOT / name)
    monkeypatch.chdir(src)
    with override_settings(LOCALE_PATHS=[src / "locale"]):
        call_command("makemessages", locale=[language], domain=domain, ignore_patterns=IGNORE, symlinks=True,
                     no_location=True, verbosity=0, extensions=["js"] if domain == "djangojs" else None)
    extracted_po = src / "locale" / language / "LC_MESSAGES" / f"{domain}.po"
    extracted = _entries(extracted_po) if extracted_po.exists() else {}
    shipped = _entries(LOCALE / language / "LC_MESSAGES" / f"{domain}.po")
    assert domain == "djangojs" or len(extracted) > 10, "makemessages found no strings: check the command"
    problems = {key: _problem(shipped.get(key)) for key in extracted}
    problems = {key.replace("\x04", " | "): p for key, p in problems.items() if p}
    assert problems == {}, f"{len(problems)} {language} entries to fix in locale/{language}/LC_MESSAGES/{domain}.po"


@needs_gettext
def test_the_python_compiler_agrees_with_gnu_msgfmt(tmp_path):
    po = LOCALE / "zh_Hans" / "LC_MESSAGES" / "django.po"
    ours = compile_po(po, tmp_path / "ours.mo")
    subprocess.run(["msgfmt", "-o", str(tmp_path / "gnu.mo"), str(po)], check=True)
    a = gettext.GNUTranslations(ours.open("rb"))._catalog
    b = gettext.GNUTranslations((tmp_path / "gnu.mo").open("rb"))._catalog
    a.pop("", None), b.pop("", None)
    assert a == b and len(a) > 10
