"""Issue 9, finding 6: input that used to crash an import (RecursionError, ValueError, DataError at
confirm) or was silently accepted (duplicate keys) is refused with a located error by the command
line, the upload page and the API, and nothing is written."""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from cases.importers import parse
from cases.importers.limits import GRADER_RUN_NAME_MAX
from cases.importers.safe_load import (
    MAX_DEPTH,
    UnsafeJSON,
    _has_problem,
    _pairs_hook,
    _refuse_where,
    check_value,
    field_path,
    issue_location,
    safe_loads,
)
from cases.models import Case, CaseRevision, ImportJob, Release
from cases.services import release_import
from tests.conftest import login

FIXTURES = Path(__file__).parent / "fixtures"


def generic_case(**overrides: object) -> dict:
    case = {"id": "H-1", "narrative": "A patient.", "criteria": [{"criterion": "Says hello"}]}
    case.update(overrides)
    return case


def as_json(*cases: dict) -> bytes:
    return json.dumps(list(cases)).encode()


def with_raw(key: str, raw_json: str) -> bytes:
    """A one-case generic file whose `key` holds `raw_json` verbatim (text json.dumps cannot make)."""
    text = json.dumps([generic_case()])
    return (text[:-2] + f', "{key}": {raw_json}' + "}]").encode()


@dataclass(frozen=True)
class Bad:
    name: str
    fmt: str
    file_name: str
    data: bytes
    record: int | None
    field: str | None
    message: str  # a substring of the error message


CSV_HEADER = "id,narrative,criterion\n"
BAD_INPUTS = [
    Bad("nesting 5,000 deep", "generic", "deep.json", with_raw("deep", "[" * 5000 + "]" * 5000),
        None, None, f"nested more than {MAX_DEPTH} levels deep at line 1 column"),
    Bad("nesting 100,000 deep", "generic", "deeper.json", with_raw("deep", "[" * 100_000 + "]" * 100_000),
        None, None, f"nested more than {MAX_DEPTH} levels deep"),
    Bad("nesting 150 deep (below the recursion limit)", "generic", "deep150.json",
        with_raw("deep", "[" * 150 + "]" * 150), 1, "deep", f"nested more than {MAX_DEPTH} levels deep"),
    Bad("an integer of 5,000 digits", "generic", "int.json", with_raw("id", "9" * 5000),
        None, None, "whole number of more than 100 digits"),
    Bad("an integer of 200 digits in an unknown field", "generic", "int200.json", with_raw("score", "9" * 200),
        1, "score", "whole number of more than 100 digits"),
    Bad("1e400", "generic", "inf.json", with_raw("score", "1e400"), 1, "score", "too large to store"),
    Bad("NaN", "generic", "nan.json", with_raw("score", "NaN"), None, None, "NaN is not a number JSON allows"),
    Bad("a lone surrogate", "generic", "surrogate.json", with_raw("narrative2", '"a\\ud800b"'),
        1, "narrative2", "lone surrogate"),
    Bad("a lone surrogate in JSONL", "liveclin", "surrogate.jsonl",
        (FIXTURES / "liveclin.jsonl").read_bytes().replace(b'"Rarity": "Rare"', b'"Rarity": "R\\udc00"', 1),
        1, "Rarity", "lone surrogate"),
    Bad("NUL in a text", "generic", "nul.json", as_json(generic_case(narrative="a\x00b")),
        1, "narrative", "NUL character"),
    Bad("NUL in a criterion", "generic", "nul2.json",
        as_json(generic_case(criteria=[{"criterion": "ok"}, {"criterion": "b\x00"}])),
        1, "criteria[2].criterion", "NUL character"),
    Bad("NUL in a CSV cell", "generic", "nul.csv", (CSV_HEADER + "C-1,a\x00b,c\n").encode(),
        2, None, "NUL character"),
    Bad("NUL in a JSONL key", "healthbench", "nul.jsonl",
        (FIXTURES / "healthbench.jsonl").read_bytes().replace(b'"prompt_id"', b'"pro\\u0000mpt_id"', 1),
        1, None, "NUL character"),
    Bad("a source longer than its column", "generic", "long.json", as_json(generic_case(source="s" * 501)),
        1, "source", "at most 500 fit"),
    Bad("an id longer than its column", "generic", "longid.json", as_json(generic_case(id="i" * 201)),
        1, "external_id", "at most 200 fit"),
    Bad("a specialty longer than its column", "generic", "longspec.json",
        as_json(generic_case(specialties=["Cardiology", "x" * 201])), 1, "specialties[2]", "at most 200 fit"),
    Bad("an axis longer than its column", "generic", "longaxis.json",
        as_json(generic_case(criteria=[{"criterion": "c", "axis": "a" * 101}])), 1, "criteria[1].axis",
        "at most 100 fit"),
    Bad("a duplicate key", "generic", "dup.json",
        b'[{"id": "H-1", "narrative": "first", "narrative": "second", "criteria": [{"criterion": "c"}]}]',
        1, None, "duplicate key 'narrative'"),
    Bad("a duplicate key in a nested object", "generic", "dup2.json",
        b'[{"id": "H-1", "narrative": "n", "criteria": [{"criterion": "c", "points": 1, "points": 2}]}]',
        1, "criteria[1]", "duplicate key 'points'"),
    Bad("a duplicate key in JSONL", "liveclin", "dup.jsonl",
        (FIXTURES / "liveclin.jsonl").read_bytes().replace(b'"Rarity": "Rare"', b'"Rarity": "Rare", "Rarity": "x"', 1),
        1, None, "duplicate key 'Rarity'"),
]
IDS = [b.name for b in BAD_INPUTS]


def assert_located(errors: list[dict], bad: Bad) -> None:
    assert errors, bad.name
    matching = [e for e in errors if bad.message in e["message"]]
    assert matching, errors
    error = matching[0]
    assert error["file"] == bad.file_name
    assert error["record"] == bad.record
    assert error["field"] == bad.field


def assert_nothing_written() -> None:
    assert Case.objects.count() == 0
    assert CaseRevision.objects.count() == 0
    assert Release.objects.count() == 0


# --- The loader on its own ------------------------------------------------------------------------


def refusal(text: str) -> UnsafeJSON:
    with pytest.raises(UnsafeJSON) as caught:
        safe_loads(text)
    return caught.value


def test_it_refuses_duplicate_keys_with_their_path() -> None:
    error = refusal('[{"a": 1}, {"x": {"b": 1, "b": 2}}]')
    assert error.message == "duplicate key 'b' in one object (a key may appear once)"
    assert issue_location(error) == (2, "x", error.message)


def test_it_keeps_a_valid_surrogate_pair_and_an_escaped_backslash() -> None:
    assert safe_loads('["\\ud83d\\ude00", "\\\\ud800"]') == ["\U0001f600", "\\ud800"]


def test_it_locates_deep_nesting_by_line_and_column_without_recursion_error() -> None:
    error = refusal('{"a":\n' + "[" * 100_000 + "]" * 100_000 + "}")
    # The object's brace is level 1, so the bracket past the limit is the 100th on line 2.
    assert (error.line, error.column) == (2, MAX_DEPTH)
    assert issue_location(error, record=7, line_offset=6) == (
        7, None, f"nested more than {MAX_DEPTH} levels deep at line 8 column {MAX_DEPTH}"
    )


def test_it_accepts_nesting_up_to_the_limit() -> None:
    depth = MAX_DEPTH
    assert safe_loads("[" * depth + "]" * depth) is not None


@pytest.mark.parametrize("text", ["[Infinity]", "[-Infinity]", "[NaN]"])
def test_it_refuses_the_constants_jsonb_cannot_store(text: str) -> None:
    assert refusal(text).line == 1


def test_it_spells_paths_like_the_parsers() -> None:
    assert field_path(("criteria", 1, "criterion")) == "criteria[2].criterion"
    assert field_path((0, "a", 2)) == "[1].a[3]"


def test_the_grader_run_name_limit_matches_the_model() -> None:
    from graders.models import GraderRun

    assert GraderRun._meta.get_field("name").max_length == GRADER_RUN_NAME_MAX


@pytest.mark.parametrize("bad", [b for b in BAD_INPUTS if "longer than its column" not in b.name], ids=lambda b: b.name)
def test_the_parser_reports_it_without_raising(bad: Bad) -> None:
    result = parse(bad.fmt, bad.data, bad.file_name)
    assert_located([i.as_dict() for i in result.issues], bad)


# --- Every entry point ------------------------------------------------------------------------------


def run_command(bad: Bad, tmp_path: Path) -> dict:
    path = tmp_path / bad.file_name
    path.write_bytes(bad.data)
    out = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("import_cases", bad.fmt, str(path), "--json", stdout=out, stderr=io.StringIO())
    assert exited.value.code == 1
    return json.loads(out.getvalue())


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_the_command_refuses_it_with_a_located_error(bad: Bad, tmp_path: Path) -> None:
    report = run_command(bad, tmp_path)
    assert report["status"] == "refused"
    assert_located(report["errors"], bad)
    assert_nothing_written()


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_the_api_refuses_it_with_a_located_error(bad: Bad, admin) -> None:
    api = APIClient()
    api.force_authenticate(admin)
    response = api.post(
        reverse("cases_api:import"),
        {"format": bad.fmt, "file": SimpleUploadedFile(bad.file_name, bad.data), "release": "v1"},
        format="multipart",
    )
    assert response.status_code == 400, response.content[:300]
    assert_located(response.json()["errors"], bad)
    assert_nothing_written()


@pytest.mark.django_db
@pytest.mark.parametrize("bad", BAD_INPUTS, ids=IDS)
def test_the_upload_page_refuses_it_at_validation(bad: Bad, client: Client, admin, settings, tmp_path) -> None:
    settings.MEDIA_ROOT = tmp_path
    login(client, admin)
    response = client.post(reverse("cases:import_upload"), {
        "format": bad.fmt, "file": SimpleUploadedFile(bad.file_name, bad.data), "dataset": "",
        "release_label": "v1", "model_name": "", "grader_model": "",
    })
    assert response.status_code == 302
    job = ImportJob.objects.get()
    assert job.status == ImportJob.Status.REFUSED
    assert_located(job.validation["errors"], bad)
    assert_nothing_written()


@pytest.mark.django_db
def test_a_release_label_too_long_for_its_column_is_refused_before_writing(tmp_path: Path) -> None:
    report = release_import(
        fmt="generic", data=as_json(generic_case()), file_name="ok.json", dataset_name="D",
        release_label="r" * 101, dry_run=True,
    )
    assert report.status == "refused"
    assert [(e.field, "at most 100 fit" in e.message) for e in report.errors] == [("release", True)]


@pytest.mark.django_db
def test_a_model_name_that_overflows_the_grader_run_name_is_refused(tmp_path: Path) -> None:
    report = release_import(
        fmt="livemedbench-grades", data=b"[]", file_name="g.json", dataset_name="D", release_label="v1",
        model_name="m" * 190, grader_model="gpt-4.1-2025-04-14", dry_run=True,
    )
    assert report.status == "refused"
    assert "grader_model" in [e.field for e in report.errors]


# The quick pass (`_has_problem`) and the walk that locates (`_refuse_where`) must refuse the same values.
_SCALARS = st.one_of(
    st.none(), st.booleans(), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([math.inf, math.nan]),
    st.integers(min_value=-(10**101), max_value=10**101) | st.sampled_from([10**100 - 1, 10**100, -(10**100)]),
    st.text(alphabet=st.sampled_from(["a", "\x00", "\ud800", "\U0001f600", '"'])),
)


def _deep(levels: int) -> list:
    value: list = []
    for _ in range(levels):
        value = [value]
    return value


def _duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    return _pairs_hook([*pairs, *pairs[:1]]) if pairs else {}


_VALUES = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(alphabet=st.sampled_from(["k", "\x00", "\udc00"]), max_size=3), children, max_size=4),
        st.lists(st.tuples(st.text(alphabet="kv", min_size=1, max_size=2), children), max_size=3).map(_duplicate_keys),
        st.sampled_from([MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1]).map(_deep),
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=_VALUES, check_text=st.booleans())
@example(value=[10**100 - 1, -(10**100) + 1], check_text=True)  # 100 digits: stored
@example(value={"a": [10**100]}, check_text=False)  # 101 digits: refused
@example(value=[1.5, -math.inf], check_text=False)
@example(value={"k\x00": 1}, check_text=True)
@example(value={"k\x00": 1}, check_text=False)  # the caller saw no escape that could make a NUL
@example(value=["a\ud800"], check_text=True)
@example(value=_deep(MAX_DEPTH), check_text=False)
@example(value={"a": _deep(MAX_DEPTH)}, check_text=False)
@example(value=_pairs_hook([("k", 1), ("k", 2)]), check_text=False)
def test_it_finds_a_problem_in_the_quick_pass_exactly_when_the_located_walk_refuses(
    value: object, check_text: bool
) -> None:
    try:
        _refuse_where(value, check_text)
        refused = False
    except UnsafeJSON:
        refused = True
    assert _has_problem(value, check_text) == refused
    if refused:
        with pytest.raises(UnsafeJSON):
            check_value(value, check_text=check_text)
    else:
        check_value(value, check_text=check_text)
