"""Taxonomies as data: LiveClin's Table 2 shipped, ICD-10 level 3 from the WHO list, files loaded
whole or not at all, a loaded version never changed."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from cases.models import Taxonomy, TaxonomyLevel, TaxonomyNode
from cases.taxonomies import icd10
from cases.taxonomies.builtin import builtin_file
from cases.taxonomies.parser import parse_taxonomy
from cases.taxonomies.services import taxonomy_load

LIVECLIN = builtin_file("liveclin")
# Table 2: clusters per chapter, in the paper's order of chapters (16 chapters, 72 clusters).
CLUSTERS_PER_CHAPTER = {"1": 6, "2": 14, "3": 4, "4": 4, "5": 1, "6": 7, "7": 2, "8": 1, "9": 6, "10": 3,
                        "11": 7, "12": 2, "13": 5, "14": 4, "15": 3, "19": 3}
# LiveClin's chapter numbers are ICD-10's; chapter 15 merges pregnancy (XV) and the perinatal period (XVI).
WHO_CHAPTERS = {"1": ["I"], "2": ["II"], "3": ["III"], "4": ["IV"], "5": ["V"], "6": ["VI"], "7": ["VII"],
                "8": ["VIII"], "9": ["IX"], "10": ["X"], "11": ["XI"], "12": ["XII"], "13": ["XIII"],
                "14": ["XIV"], "15": ["XV", "XVI"], "19": ["XIX"]}


@pytest.fixture(scope="module")
def liveclin():
    parsed = parse_taxonomy(LIVECLIN.read_bytes(), LIVECLIN.name)
    assert parsed.issues == []
    return parsed.taxonomy


def write(tmp_path: Path, doc: dict) -> bytes:
    return json.dumps(doc).encode()


def small(**changes) -> dict:
    doc = {
        "key": "small", "version": "1", "name": "Small", "levels": [{"name": "Chapter"}, {"name": "Cluster"}],
        "nodes": [
            {"level": 1, "code": "2", "name": "Neoplasms", "name_zh": "肿瘤"},
            {"level": 2, "code": "C40-C41", "parent": "2", "name": "Bone", "range": "C40-C41"},
        ],
    }
    doc.update(changes)
    return doc


def test_it_ships_table_2_with_16_chapters_and_72_clusters(liveclin) -> None:
    assert liveclin.counts()["1"] == 16 and liveclin.counts()["2"] == 72
    per_chapter = Counter(node.parent for node in liveclin.nodes if node.level == 2)
    assert dict(per_chapter) == CLUSTERS_PER_CHAPTER
    assert [node.code for node in liveclin.nodes if node.level == 1] == list(CLUSTERS_PER_CHAPTER)
    assert all(node.name_zh for node in liveclin.nodes if node.level <= 2)


def test_it_names_each_chapter_as_the_who_list_does(liveclin) -> None:
    names = icd10.chapter_names()
    for node in (n for n in liveclin.nodes if n.level == 1):
        who = [names[numeral] for numeral in WHO_CHAPTERS[node.code]]
        assert node.name.casefold().replace(";", ",") == ", ".join(who).casefold(), node.code


def test_it_links_every_cluster_to_the_who_icd10_codes_its_range_covers(liveclin) -> None:
    codes = {node.code: node for node in liveclin.nodes if node.level == 3}
    assert len(codes) == liveclin.counts()["3"] == 1362  # each code under exactly one cluster
    under = {cluster: [n.code for n in liveclin.nodes if n.level == 3 and n.parent == cluster]
             for cluster in ("C40-C41", "C50", "C97, D00-D48", "G00-G14", "S00-T19")}
    assert under["C40-C41"] == ["C40", "C41"]
    assert under["C50"] == ["C50"]
    assert under["C97, D00-D48"][0] == "C97" and under["C97, D00-D48"][-1] == "D48" and len(under["C97, D00-D48"]) == 49
    assert "G08" in under["G00-G14"] and "G01" in under["G00-G14"]
    assert under["S00-T19"][0] == "S00" and under["S00-T19"][-1] == "T19"
    library = dict(icd10.categories())
    assert all(node.name == library[code] for code, node in codes.items())
    assert codes["C41"].name == "Malignant neoplasm of bone and articular cartilage of other and unspecified sites"
    # Codes outside every cluster's range are not in the taxonomy (e.g. F99, R50 symptoms).
    assert "F99" not in codes and "R50" not in codes


def test_it_orders_nodes_depth_first(liveclin) -> None:
    first = [(n.level, n.code) for n in liveclin.nodes[:5]]
    assert first == [(1, "1"), (2, "A00-A19"), (3, "A00"), (3, "A01"), (3, "A02")]


@pytest.mark.django_db
def test_it_loads_the_built_in_taxonomy_once_and_says_unchanged_after() -> None:
    report = taxonomy_load(data=LIVECLIN.read_bytes(), file_name=LIVECLIN.name)
    assert report.status == "loaded", report.errors
    taxonomy = Taxonomy.objects.get()
    assert str(taxonomy) == "liveclin@2025" and taxonomy.counts == {"1": 16, "2": 72, "3": 1362}
    assert list(TaxonomyLevel.objects.values_list("depth", "generated_from")) == [
        (1, ""), (2, ""), (3, "icd10-categories")]
    c41 = TaxonomyNode.objects.get(level=3, code="C41")
    assert (c41.parent.code, c41.parent.parent.code) == ("C40-C41", "2")
    assert c41.parent.name_zh == "骨和关节软骨恶性肿瘤"
    assert TaxonomyNode.objects.filter(level=2, parent__code="2").count() == 14
    again = taxonomy_load(data=LIVECLIN.read_bytes(), file_name=LIVECLIN.name)
    assert again.status == "unchanged" and again.taxonomy_id == taxonomy.pk
    assert TaxonomyNode.objects.count() == 16 + 72 + 1362


@pytest.mark.django_db
def test_it_refuses_new_content_under_a_version_already_loaded(tmp_path: Path) -> None:
    assert taxonomy_load(data=write(tmp_path, small()), file_name="small.json").status == "loaded"
    changed = small()
    changed["nodes"][1]["name"] = "Bone and cartilage"
    report = taxonomy_load(data=write(tmp_path, changed), file_name="small.json")
    assert report.status == "refused"
    assert report.errors[0].field == "version" and "new version" in report.errors[0].message
    assert TaxonomyNode.objects.get(level=2).name == "Bone"
    newer = taxonomy_load(data=write(tmp_path, {**changed, "version": "2"}), file_name="small.json")
    assert newer.status == "loaded" and Taxonomy.objects.count() == 2


@pytest.mark.django_db
def test_it_writes_nothing_in_a_dry_run(tmp_path: Path) -> None:
    report = taxonomy_load(data=write(tmp_path, small()), file_name="small.json", dry_run=True)
    assert report.status == "dry-run" and report.counts == {"1": 1, "2": 1}
    assert not Taxonomy.objects.exists()


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"key": "Live Clin"}, "key", "lower-case letters"),
        ({"colour": "blue"}, "colour", "unknown key"),
        ({"levels": []}, "levels", "1 to 6 levels"),
        ({"nodes": [{"level": 1, "code": "2", "name": "A"}, {"level": 1, "code": "2", "name": "B"}]},
         "nodes[2].code", "duplicate code '2' on level 1"),
        ({"nodes": [{"level": 1, "code": "2", "name": "A"}, {"level": 2, "code": "C50", "parent": "9", "name": "B"}]},
         "nodes[2].parent", "no node '9' on level 1"),
        ({"nodes": [{"level": 1, "code": "2", "name": "A"}, {"level": 2, "code": "C50", "name": "B"}]},
         "nodes[2].parent", "missing required field"),
        ({"nodes": [{"level": 1, "code": "2", "name": "A", "parent": "1"}]}, "nodes[1].parent", "has no parent"),
        ({"nodes": [{"level": 3, "code": "2", "name": "A"}]}, "nodes[1].level", "from 1 to 2"),
        ({"nodes": [{"level": 1, "code": "2", "name": "A", "range": "C40 to C41"}]}, "nodes[1].range",
         "not an ICD-10 code or range"),
        ({"nodes": [{"level": 1, "code": "2", "name": ""}]}, "nodes[1].name", "must not be empty"),
    ],
)
def test_it_locates_every_problem_of_a_taxonomy_file(change: dict, field: str, message: str) -> None:
    parsed = parse_taxonomy(json.dumps(small(**change)).encode(), "bad.json")
    assert parsed.taxonomy is None
    assert any(i.field == field and message in i.message and i.file == "bad.json" for i in parsed.issues), parsed.issues


def test_it_refuses_overlapping_ranges_and_nodes_listed_on_a_generated_level() -> None:
    doc = small(levels=[{"name": "Chapter"}, {"name": "Cluster"}, {"name": "Code", "from": "icd10-categories"}])
    doc["nodes"].append({"level": 2, "code": "C41", "parent": "2", "name": "Bone again", "range": "C41"})
    parsed = parse_taxonomy(json.dumps(doc).encode(), "overlap.json")
    assert any("C41 is covered by both 'C40-C41' and 'C41'" in i.message for i in parsed.issues)
    doc["nodes"] = doc["nodes"][:2] + [{"level": 3, "code": "C40", "parent": "C40-C41", "name": "Limbs"}]
    parsed = parse_taxonomy(json.dumps(doc).encode(), "listed.json")
    assert any(i.field == "nodes[3].level" and "generated" in i.message for i in parsed.issues)


def test_it_refuses_a_file_that_is_not_json_or_not_an_object() -> None:
    assert "invalid JSON" in parse_taxonomy(b"{", "x.json").issues[0].message
    assert "expected a JSON object" in parse_taxonomy(b"[]", "x.json").issues[0].message


def test_it_reads_table_2_shorthand_ranges() -> None:
    assert icd10.normalise_range("A00-19") == "A00-A19"
    assert icd10.normalise_range("c97, d00-48") == "C97, D00-D48"
    assert icd10.normalise_range("S00-T19") == "S00-T19"
    with pytest.raises(ValueError, match="ends before it starts"):
        icd10.parse_ranges("C41-C40")


def load(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("load_taxonomy", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.django_db
def test_it_loads_the_built_in_taxonomy_by_name_from_the_command_line() -> None:
    code, out, _ = load("liveclin")
    assert code == 0 and "Loaded liveclin@2025 from liveclin.json: level 1: 16, level 2: 72, level 3: 1362" in out
    code, out, _ = load("liveclin", "--json")
    assert code == 0 and json.loads(out)["status"] == "unchanged"


@pytest.mark.django_db
def test_it_loads_a_file_from_the_command_line_and_exits_1_when_refused(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(small()))
    bad.write_text(json.dumps(small(key="")))
    assert load(str(good))[0] == 0 and Taxonomy.objects.get().key == "small"
    code, _, err = load(str(bad))
    assert code == 1 and "bad.json, field key: must not be empty" in err and "nothing was written" in err
    with pytest.raises(CommandError, match="not a built-in taxonomy"):
        load(str(tmp_path / "missing.json"))
