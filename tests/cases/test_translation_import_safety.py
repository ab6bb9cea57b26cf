"""Issue 22, finding 4: `import_translations` refuses, with a located error and without a traceback,
every file that used to crash it or write something it should not (deep nesting, huge integers, NUL,
lone surrogates, values longer than their columns, wrong types, duplicate keys and records), and its
dry run runs every check the import runs. Nothing is written in any case."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from cases.models import TextTranslation
from tests.i18n.builders import chinese_case, english_translations, import_translations

pytestmark = pytest.mark.django_db

GOOD = {"case_id": "lmb-1", "field": "narrative", "language": "en", "text": "Fever and cough."}


def as_list(*records: dict) -> bytes:
    return json.dumps(list(records)).encode()


def raw_record(key: str, raw_json: str) -> bytes:
    """A one-record JSON list whose record holds `key` with `raw_json` verbatim."""
    text = json.dumps([GOOD])
    return (text[:-2] + f', "{key}": {raw_json}' + "}]").encode()


# (name, file name, bytes, record, field, message substring)
BAD_FILES = [
    ("nesting 5,000 deep", "deep.json", raw_record("text", "[" * 5000 + "]" * 5000), None, None,
     "nested more than 100 levels deep at line 1 column"),
    ("nesting 5,000 deep in JSONL", "deep.jsonl",
     (json.dumps(GOOD) + "\n" + '{"text": ' + "[" * 5000 + "]" * 5000 + "}\n").encode(), 2, None,
     "nested more than 100 levels deep at line 2"),
    ("a 5,000-digit integer", "int.json", raw_record("criterion", "9" * 5000), None, None,
     "whole number of more than 100 digits"),
    ("a 5,000-digit integer in JSONL", "int.jsonl", ('{"case_id": ' + "9" * 5000 + "}\n").encode(), 1, None,
     "whole number of more than 100 digits"),
    ("NUL in a text", "nul.json", as_list(dict(GOOD, text="a\x00b")), 1, "text", "NUL character"),
    ("a raw NUL byte", "nul-byte.jsonl", json.dumps(GOOD).encode() + b"\n\x00\n", 2, None, "NUL character"),
    ("a lone surrogate", "surrogate.json", raw_record("engine", '"o3\\ud800"'), 1, "engine", "lone surrogate"),
    ("a lone surrogate in a key", "surrogate-key.json", raw_record('va\\udc00riant', '"x"'), 1, None,
     "lone surrogate"),
    ("not UTF-8", "latin1.json", as_list(GOOD).replace(b"Fever", b"F\xe9ver"), None, None, "not UTF-8"),
    ("a duplicate key", "dup.json", raw_record("text", '"second"'), 1, None, "duplicate key 'text'"),
    ("a variant longer than its column", "long-variant.json", as_list(dict(GOOD, variant="v" * 65)), 1,
     "variant", "at most 64 fit"),
    ("a language longer than its column", "long-language.json", as_list(dict(GOOD, language="en-" + "x" * 14)), 1,
     "language", "at most 16 fit"),
    ("an engine longer than its column", "long-engine.json", as_list(dict(GOOD, engine="e" * 201)), 1, "engine",
     "at most 200 fit"),
    ("a prompt version longer than its column", "long-prompt.json",
     as_list(dict(GOOD, prompt_version="p" * 65)), 1, "prompt_version", "at most 64 fit"),
    ("an engine that is not text", "engine-type.json", as_list(dict(GOOD, engine={"name": "o3"})), 1, "engine",
     "wrong type: expected text"),
    ("a criterion position that is a list", "criterion-type.json",
     as_list({"case_id": "lmb-1", "field": "criterion", "criterion": [1], "language": "en", "text": "x"}), 1,
     "criterion", "wrong type: expected a whole number"),
    ("an MCQ position that is a list", "mcq-type.json",
     as_list({"case_id": "lmb-1", "field": "mcq_stem", "mcq": [1], "language": "en", "text": "x"}), 1, "mcq",
     "wrong type: expected a whole number"),
    ("a field that is an object", "field-type.json", as_list(dict(GOOD, field={"narrative": 1})), 1, "field",
     "wrong type: expected text"),
    ("a record that is not an object", "not-object.json", b'[["lmb-1"]]', 1, None, "expected an object"),
    ("the same translation twice", "twice.json", as_list(GOOD, dict(GOOD, text="Fever, cough.")), 2, "variant",
     "also at record 1"),
]
IDS = [b[0] for b in BAD_FILES]


@pytest.fixture(autouse=True)
def chinese_release(db):
    chinese_case()


def run(path: Path, *options: str) -> dict:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("import_translations", str(path), "--dataset", "LiveMedBench", "--release", "v202601",
                     "--json", *options, stdout=out, stderr=io.StringIO())
    assert exited.value.code == 1
    return json.loads(out.getvalue())


@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "dry run"])
@pytest.mark.parametrize(("name", "file_name", "data", "record", "field", "message"), BAD_FILES, ids=IDS)
def test_the_command_refuses_it_with_a_located_error(
    name: str, file_name: str, data: bytes, record, field, message, dry_run: bool, tmp_path: Path
) -> None:
    path = tmp_path / file_name
    path.write_bytes(data)
    report = run(path, *(["--dry-run"] if dry_run else []))
    assert report["status"] == "refused"
    matching = [e for e in report["errors"] if message in e["message"]]
    assert matching, report["errors"]
    assert (matching[0]["file"], matching[0]["record"], matching[0]["field"]) == (file_name, record, field)
    assert TextTranslation.objects.count() == 0


@pytest.mark.parametrize(("name", "file_name", "data", "record", "field", "message"), BAD_FILES[:3], ids=IDS[:3])
def test_the_command_without_json_says_it_in_one_error_not_a_traceback(
    name: str, file_name: str, data: bytes, record, field, message, tmp_path: Path
) -> None:
    path = tmp_path / file_name
    path.write_bytes(data)
    with pytest.raises(CommandError) as refused:
        call_command("import_translations", str(path), "--dataset", "LiveMedBench", "--release", "v202601",
                     stdout=io.StringIO())
    assert message in str(refused.value) and file_name in str(refused.value)


def test_the_dry_run_refuses_a_different_text_for_an_existing_translation_like_the_import(tmp_path: Path) -> None:
    import_translations(english_translations())
    changed = [dict(r) for r in english_translations()]
    changed[1]["text"] = "Do I really need antibiotics?"
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(changed))
    for options in (["--dry-run"], []):
        report = run(path, *options)
        assert [(e["record"], e["field"]) for e in report["errors"]] == [(2, "text")]
        assert "already has a different translation" in report["errors"][0]["message"]
    assert TextTranslation.objects.filter(text="Do I really need antibiotics?").count() == 0


def test_a_good_file_is_checked_by_the_dry_run_and_written_by_the_import(tmp_path: Path) -> None:
    path = tmp_path / "good.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in english_translations()) + "\n")
    out = io.StringIO()
    call_command("import_translations", str(path), "--dataset", "LiveMedBench", "--release", "v202601",
                 "--dry-run", "--json", stdout=out)
    assert json.loads(out.getvalue()) == {"status": "dry-run", "created": 4, "unchanged": 0, "invalid": 0,
                                          "errors": []}
    assert TextTranslation.objects.count() == 0
    out = io.StringIO()
    call_command("import_translations", str(path), "--dataset", "LiveMedBench", "--release", "v202601", "--json",
                 stdout=out)
    assert json.loads(out.getvalue())["status"] == "imported"
    assert TextTranslation.objects.count() == 4
