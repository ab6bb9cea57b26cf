"""Curated releases without a database: write, parse back with the importers, compare; same bytes twice."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

from cases.exporters import (
    CaseReview,
    CurationRules,
    FieldOutcome,
    SourceRelease,
    StudyRef,
    curate,
    release_files,
    unresolved_fields,
)
from cases.importers import parse
from cases.importers.base import ParsedCase

FIXTURES = Path(__file__).parent / "fixtures"
SOURCE = SourceRelease(id=7, dataset="LiveMedBench", label="v202601", format="livemedbench",
                       file_name="cases.json", sha256="ab" * 32)
STUDIES = (StudyRef(id=3, name="Validity", tasks=("criterion-validity",), items=3, resolved_items=3),)


def parsed(fmt: str, name: str) -> list[ParsedCase]:
    result = parse(fmt, (FIXTURES / name).read_bytes(), name)
    assert result.issues == []
    return result.cases


def ok(label: str, *, rule: str = "unanimous", source: str = "consensus", history: str = "") -> FieldOutcome:
    return FieldOutcome(label=label, rule=rule, source=source, history=history)


UNRESOLVED = FieldOutcome(label=None, rule="unresolved", source="")


def reparse(fmt: str, data: bytes, name: str) -> list[ParsedCase]:
    result = parse(fmt, data, name)
    assert result.issues == []
    return result.cases


def without_review_keys(case: ParsedCase) -> dict:
    """A case's content as the importer sees it, minus what the curation adds on purpose."""
    content = dataclasses.asdict(case)
    for key in ("record", "raw", "content_hash"):
        content.pop(key)
    content["extra"] = {k: v for k, v in content["extra"].items() if not k.startswith("physician_")}
    return content


# --- LiveMedBench --------------------------------------------------------------------------------

def lmb_reviews() -> dict[str, CaseReview]:
    return {
        "109002500": CaseReview(
            narrative=ok("2"), advice=ok("1"),
            criteria={1: ok("agree"), 2: ok("disagree", rule="inspector", source="adjudicated",
                                            history="/review/items/11/history/"),
                      3: ok("agree"), 4: ok("agree"), 5: ok("disagree")},
            history=("/review/items/11/history/",),
        ),
        "LMB-D003": CaseReview(narrative=ok("0"), advice=ok("2"), history=("/review/items/12/history/",)),
        "LMB-D004": CaseReview(criteria={1: UNRESOLVED, 2: ok("agree")}, history=("/review/items/13/history/",)),
    }


def test_it_livemedbench_curation_drops_exactly_the_rejected_criteria_and_imports_back() -> None:
    source = parsed("livemedbench", "livemedbench_cases.json")
    out = curate(fmt="livemedbench", name="v202601-reviewed", cases=source, reviews=lmb_reviews(),
                 rules=CurationRules())
    assert list(out.files) == ["merged_data_rubric.json"]
    back = reparse("livemedbench", out.files["merged_data_rubric.json"], "merged_data_rubric.json")
    assert [c.external_id for c in back] == ["109002500", "LMB-D003", "LMB-D004"]
    first = back[0]
    assert [c.text for c in first.criteria] == [source[0].criteria[i].text for i in (0, 2, 3)]
    # Only the two rejected criteria differ; every other case is the source content plus the flag key.
    expected_first = dataclasses.replace(source[0], criteria=tuple(source[0].criteria[i] for i in (0, 2, 3)))
    assert without_review_keys(first) == without_review_keys(expected_first)
    assert without_review_keys(back[1]) == without_review_keys(source[1])
    assert back[1].extra["physician_flags"] == ["narrative-rated-0"]
    assert back[2].content_hash == source[2].content_hash  # untouched: imports back as "unchanged"
    assert out.counts == {
        "cases": {"source": 3, "kept": 3, "dropped": 0, "flagged": 1, "reviewed": 3},
        "criteria": {"source": 15, "kept": 13, "dropped": 2, "marked": 0, "reviewed": 7, "unresolved": 1,
                     "not_reviewed": 8},
    }
    assert [(n.case, n.what, n.action, n.reason, n.history) for n in out.notes] == [
        ("109002500", "criterion 2", "dropped", "criterion-rejected", ("/review/items/11/history/",)),
        ("109002500", "criterion 5", "dropped", "criterion-rejected", ("/review/items/11/history/",)),
        ("LMB-D003", "narrative", "flagged", "narrative-rated-0", ("/review/items/12/history/",)),
        ("LMB-D004", "criterion 1", "kept", "criterion-unresolved", ("/review/items/13/history/",)),
    ]
    assert out.reasons["criterion-rejected"]["dropped"] == 2


def test_it_livemedbench_keep_option_marks_instead_of_dropping_and_the_review_block_is_optional() -> None:
    source = parsed("livemedbench", "livemedbench_cases.json")
    rules = CurationRules(keep_rejected_criteria=True, review_block=True)
    out = curate(fmt="livemedbench", name="v1-marked", cases=source, reviews=lmb_reviews(), rules=rules)
    records = json.loads(out.files["merged_data_rubric.json"])
    validity = [item.get("physician_validity") for item in records[0]["rubric_items"]]
    assert validity == [None, "disagree", None, None, "disagree"]
    assert records[0]["physician_review"]["criteria"][1] == {
        "position": 2, "label": "disagree", "rule": "inspector", "source": "adjudicated"}
    assert records[2]["physician_review"]["criteria"][0]["label"] is None
    back = reparse("livemedbench", out.files["merged_data_rubric.json"], "x.json")
    assert [c.criteria for c in back] == [c.criteria for c in source]  # marking changes no criterion
    assert out.counts["criteria"]["marked"] == 2 and out.counts["criteria"]["dropped"] == 0


def test_it_a_case_without_a_usable_raw_record_is_rebuilt_from_its_fields() -> None:
    source = [dataclasses.replace(c, raw={}) for c in parsed("livemedbench", "livemedbench_cases.json")]
    out = curate(fmt="livemedbench", name="n", cases=source, reviews={}, rules=CurationRules())
    back = reparse("livemedbench", out.files["merged_data_rubric.json"], "x.json")
    assert [c.content_hash for c in back] == [c.content_hash for c in source]


def test_it_a_second_run_gives_the_same_bytes_and_the_manifest_checks_every_file() -> None:
    def run() -> dict[str, bytes]:
        source = parsed("livemedbench", "livemedbench_cases.json")
        out = curate(fmt="livemedbench", name="v202601-reviewed", cases=source, reviews=lmb_reviews(),
                     rules=CurationRules())
        return release_files(out, source=SOURCE, studies=STUDIES, rules=CurationRules(), version="0.1.0")

    first, second = run(), run()
    assert first == second
    assert sorted(first) == ["SHA256SUMS", "manifest.json", "merged_data_rubric.json"]
    manifest = json.loads(first["manifest.json"])
    assert manifest["files"] == [{
        "name": "merged_data_rubric.json", "bytes": len(first["merged_data_rubric.json"]),
        "sha256": hashlib.sha256(first["merged_data_rubric.json"]).hexdigest(),
    }]
    assert manifest["source_release"]["sha256"] == "ab" * 32
    assert manifest["studies"][0]["tasks"] == ["criterion-validity"]
    assert manifest["counts"]["criteria"]["dropped"] == 2
    assert manifest["medreview_version"] == "0.1.0"
    sums = first["SHA256SUMS"].decode().splitlines()
    assert sums == [f"{hashlib.sha256(first[n]).hexdigest()}  {n}" for n in ("manifest.json", "merged_data_rubric.json")]


# --- LiveClin ------------------------------------------------------------------------------------

def qs_review(labels: dict[int, dict[str, str | None]]) -> CaseReview:
    return CaseReview(
        mcqs={n: {check: (ok(lab) if lab else UNRESOLVED) for check, lab in checks.items()}
              for n, checks in labels.items()},
        history=("/review/items/21/history/",),
    )


def test_it_liveclin_keeps_only_validated_sets_with_their_text_unchanged() -> None:
    source = parsed("liveclin", "liveclin.jsonl")
    ids = [c.external_id for c in source]
    all_yes = {n: {"mcq-factual": "yes", "mcq-solvability": "yes"} for n in range(1, 5)}
    reviews = {
        ids[0]: qs_review(all_yes),
        ids[1]: qs_review({1: {"mcq-factual": "no"}, 2: {"mcq-factual": "yes"}, 3: {"mcq-factual": "yes"}}),
        ids[2]: qs_review({1: {"mcq-factual": "yes"}, 2: {"mcq-factual": None}, 3: {"mcq-factual": "yes"}}),
    }
    out = curate(fmt="liveclin", name="2025H1-reviewed", cases=source, reviews=reviews, rules=CurationRules())
    data = out.files["2025H1-reviewed.jsonl"]
    back = reparse("liveclin", data, "x.jsonl")
    assert [c.external_id for c in back] == [ids[0]]
    assert back[0].question_set == source[0].question_set
    assert without_review_keys(back[0]) == without_review_keys(source[0])
    summary = json.loads(data.decode().splitlines()[0])["physician_review"]
    assert summary["status"] == "validated" and len(summary["mcqs"]) == 4
    assert out.counts == {
        "question_sets": {"source": 3, "kept": 1, "dropped": 2, "validated": 1, "rejected": 1,
                          "unresolved": 1, "not_reviewed": 0},
        "mcqs": {"source": 10, "kept": 4},
    }
    assert [(n.case, n.reason) for n in out.notes] == [
        (ids[1], "question-set-rejected"), (ids[2], "question-set-unresolved")]


def test_it_liveclin_a_set_with_an_unreviewed_mcq_or_no_review_is_not_published() -> None:
    source = parsed("liveclin", "liveclin.jsonl")
    partial = qs_review({1: {"mcq-factual": "yes"}, 2: {"mcq-factual": "yes"}})
    out = curate(fmt="liveclin", name="r", cases=source, reviews={source[0].external_id: partial},
                 rules=CurationRules())
    assert out.files["r.jsonl"] == b""
    assert out.counts["question_sets"]["not_reviewed"] == 3


def test_it_liveclin_rebuilt_line_reads_back_the_same() -> None:
    source = [dataclasses.replace(c, raw={}) for c in parsed("liveclin", "liveclin.jsonl")]
    all_yes = {n: {"mcq-factual": "yes"} for n in range(1, 11)}
    out = curate(fmt="liveclin", name="r", cases=source, reviews={c.external_id: qs_review(all_yes) for c in source},
                 rules=CurationRules())
    back = reparse("liveclin", out.files["r.jsonl"], "r.jsonl")
    assert [without_review_keys(c) for c in back] == [without_review_keys(c) for c in source]


# --- HealthBench and generic ---------------------------------------------------------------------

def test_it_healthbench_drops_rejected_rubric_items_and_keeps_the_conversation() -> None:
    source = parsed("healthbench", "healthbench.jsonl")
    reviews = {"hb-demo-001": CaseReview(criteria={3: ok("disagree"), 1: ok("agree")}),
               "hb-demo-003": CaseReview(advice=ok("0"))}
    out = curate(fmt="healthbench", name="hb-reviewed", cases=source, reviews=reviews, rules=CurationRules())
    back = reparse("healthbench", out.files["hb-reviewed.jsonl"], "x.jsonl")
    assert [len(c.criteria) for c in back] == [3, 4, 3]
    assert back[0].criteria == tuple(source[0].criteria[i] for i in (0, 1, 3))
    assert back[0].conversation == source[0].conversation
    assert back[2].extra["physician_flags"] == ["advice-rated-0"]
    assert out.counts["criteria"] == {"source": 11, "kept": 10, "dropped": 1, "marked": 0, "reviewed": 2,
                                      "unresolved": 0, "not_reviewed": 9}


@pytest.mark.parametrize("fixture", ["generic.json", "generic.csv"])
def test_it_generic_json_or_csv_source_is_written_as_generic_json(fixture: str) -> None:
    source = parsed("generic", fixture)
    reviews = {source[0].external_id: CaseReview(criteria={2: ok("disagree")})}
    out = curate(fmt="generic", name="cc-reviewed", cases=source, reviews=reviews, rules=CurationRules())
    back = reparse("generic", out.files["cc-reviewed.json"], "cc-reviewed.json")
    expected = [dataclasses.replace(source[0], criteria=source[0].criteria[:1] + source[0].criteria[2:]), *source[1:]]
    assert [without_review_keys(c) for c in back] == [without_review_keys(c) for c in expected]


def test_it_unresolved_fields_lists_what_resolved_only_refuses() -> None:
    assert unresolved_fields(lmb_reviews()) == [("LMB-D004", "criterion 1")]
    assert unresolved_fields({"x": qs_review({2: {"mcq-factual": None}})}) == [("x", "MCQ 2 mcq-factual")]
