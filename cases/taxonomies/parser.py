"""A taxonomy file (docs/formats.md, "Taxonomies") into plain dataclasses, every problem located.

One JSON object: `key`, `version`, `name` (optional `name_zh`, `description`, `source`), `levels`
(top first: `name`, optional `name_zh`, and `"from": "icd10-categories"` on a last level whose nodes
are generated) and `nodes` (`level`, `code`, `name`, optional `name_zh`, `parent` (the code of a
node one level up; required below level 1), `range` (ICD-10 ranges), `aliases`, `comment`).

A generated level holds, under each node of the level above, the WHO ICD-10 three-character
categories its `range` covers (LiveClin: each disease cluster's ICD-10 codes). Overlapping ranges
are an error: a code has one parent.

No Django import: parsed and tested without a database. Errors name the file and the field
(`nodes[3].parent`); the whole file is checked before anything is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field

from cases.importers.base import ImportIssue, Issues, Record, decode, json_type, load_json
from cases.taxonomies import icd10

KEY = re.compile(r"^[a-z0-9][a-z0-9-]*$")
MAX_LEVELS = 6
GENERATORS = {icd10.GENERATED_FROM}
TOP_KEYS = {"key", "version", "name", "name_zh", "description", "source", "levels", "nodes"}
LEVEL_KEYS = {"name", "name_zh", "from"}
NODE_KEYS = {"level", "code", "name", "name_zh", "parent", "range", "aliases", "comment"}


@dataclass(frozen=True)
class ParsedLevel:
    depth: int
    name: str
    name_zh: str = ""
    generated_from: str = ""


@dataclass(frozen=True)
class ParsedNode:
    level: int
    code: str
    name: str
    name_zh: str = ""
    parent: str = ""  # the parent's code, on level - 1
    code_range: str = ""
    aliases: tuple[str, ...] = ()
    field: str = ""  # where the node is in the file ("nodes[3]"; "" for generated nodes)


@dataclass
class ParsedTaxonomy:
    key: str
    version: str
    name: str
    name_zh: str
    description: str
    source: str
    levels: list[ParsedLevel]
    nodes: list[ParsedNode]  # depth first: each node followed by its subtree, siblings in file / code order
    sha256: str = ""

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = defaultdict(int)
        for node in self.nodes:
            found[str(node.level)] += 1
        return {str(level.depth): found[str(level.depth)] for level in self.levels}


@dataclass
class TaxonomyParseResult:
    taxonomy: ParsedTaxonomy | None
    issues: list[ImportIssue] = field(default_factory=list)


def _unknown(rec: Record, known: set[str]) -> None:
    for key in sorted(rec.unknown_keys(known)):
        rec.error(key, f"unknown key; expected one of {', '.join(sorted(known))}")


def _levels(doc: Record) -> list[ParsedLevel]:
    levels = []
    raw = doc.list("levels", required=True)
    if isinstance(doc.obj.get("levels"), list) and not 1 <= len(raw) <= MAX_LEVELS:
        doc.error("levels", f"a taxonomy has 1 to {MAX_LEVELS} levels, got {len(raw)}")
    for depth, rec in enumerate(doc.items("levels"), start=1):
        if not rec.ok:
            continue
        _unknown(rec, LEVEL_KEYS)
        generated = rec.text("from").strip()
        if generated and generated not in GENERATORS:
            rec.error("from", f"unknown generator {generated!r}; expected {', '.join(sorted(GENERATORS))}")
        if generated and depth == 1:
            rec.error("from", "the top level cannot be generated: its nodes have no ranges above them")
        levels.append(ParsedLevel(depth, rec.text("name", required=True, non_empty=True).strip(),
                                  rec.text("name_zh").strip(), generated))
    for level in levels[:-1]:
        if level.generated_from:
            doc.error(f"levels[{level.depth}].from", "only the last level can be generated")
    return levels


def _level_number(rec: Record, count: int) -> int:
    value = rec.obj.get("level")
    if count == 0:
        return 0  # the missing levels are the error
    if value is None:
        rec.error("level", "missing required field")
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= count:
        rec.error("level", f"expected a level number from 1 to {count}, got {value!r}")
        return 0
    return value


def _range(rec: Record) -> str:
    text = rec.text("range").strip()
    if not text:
        return ""
    try:
        return icd10.normalise_range(text)
    except ValueError as exc:
        rec.error("range", str(exc))
        return ""


def _node(rec: Record, levels: list[ParsedLevel]) -> ParsedNode | None:
    _unknown(rec, NODE_KEYS)
    level = _level_number(rec, len(levels))
    code = rec.identifier("code")
    name = rec.text("name", required=True, non_empty=True).strip()
    parent = rec.identifier("parent", required=False)
    if level == 1 and parent:
        rec.error("parent", "a level-1 node has no parent")
    elif level > 1 and not parent and "parent" not in rec.obj:
        rec.error("parent", f"missing required field: a level-{level} node names its parent on level {level - 1}")
    if level and levels[level - 1].generated_from:
        rec.error("level", f"level {level} is generated ({levels[level - 1].generated_from}); its nodes are not listed")
    aliases = rec.text_list("aliases")
    if not (level and code and name):
        return None
    return ParsedNode(level, code, name, rec.text("name_zh").strip(), parent, _range(rec), aliases, rec.prefix)


def _check_links(nodes: list[ParsedNode], issues: Issues) -> None:
    """Unique codes per level, parents that exist one level up."""
    seen: dict[tuple[int, str], str] = {}
    for node in nodes:
        first = seen.setdefault((node.level, node.code), node.field)
        if first != node.field:
            issues.add(None, f"{node.field}.code", f"duplicate code {node.code!r} on level {node.level} (first at {first})")
    for node in nodes:
        if node.level > 1 and node.parent and (node.level - 1, node.parent) not in seen:
            issues.add(None, f"{node.field}.parent", f"no node {node.parent!r} on level {node.level - 1}")


def _generate(nodes: list[ParsedNode], level: ParsedLevel, issues: Issues) -> list[ParsedNode]:
    """The ICD-10 categories under each node of the level above, each category under one node."""
    owner: dict[str, str] = {}
    generated = []
    for parent in (n for n in nodes if n.level == level.depth - 1):
        if not parent.code_range:
            issues.add(None, f"{parent.field}.range", f"level {level.depth} is generated from ICD-10 ranges: "
                                                      "every node above it needs a range")
            continue
        found = icd10.categories_in(icd10.parse_ranges(parent.code_range))
        if not found:
            issues.add(None, f"{parent.field}.range", f"the range {parent.code_range!r} covers no ICD-10 category")
        for code, name in found:
            if code in owner:
                issues.add(None, f"{parent.field}.range",
                           f"{code} is covered by both {owner[code]!r} and {parent.code!r}; ranges must not overlap")
                continue
            owner[code] = parent.code
            generated.append(ParsedNode(level.depth, code, name, parent=parent.code))
    return generated


def _depth_first(nodes: list[ParsedNode]) -> list[ParsedNode]:
    children: dict[tuple[int, str], list[ParsedNode]] = defaultdict(list)
    for node in nodes:
        if node.level > 1:
            children[(node.level - 1, node.parent)].append(node)
    ordered: list[ParsedNode] = []
    stack = [n for n in reversed(nodes) if n.level == 1]
    while stack:
        node = stack.pop()
        ordered.append(node)
        stack.extend(reversed(children[(node.level, node.code)]))
    return ordered


def canonical_hash(taxonomy: ParsedTaxonomy) -> str:
    """SHA-256 of what is stored: header, levels and every node (generated ones too), not the file's
    spelling (key order, spaces, comments)."""
    content = {
        "key": taxonomy.key, "version": taxonomy.version, "name": taxonomy.name, "name_zh": taxonomy.name_zh,
        "description": taxonomy.description, "source": taxonomy.source,
        "levels": [asdict(level) for level in taxonomy.levels],
        "nodes": [{**asdict(node), "field": None, "aliases": list(node.aliases)} for node in taxonomy.nodes],
    }
    blob = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _header(doc: Record, issues: Issues) -> tuple[str, str]:
    key = doc.text("key", required=True, non_empty=True).strip()
    if key and not KEY.match(key):
        doc.error("key", f"{key!r}: use lower-case letters, digits and hyphens (e.g. liveclin)")
    version = doc.text("version", required=True, non_empty=True).strip()
    if "@" in version:
        doc.error("version", "must not contain '@' (key@version names a taxonomy)")
    return key, version


def parse_taxonomy(data: bytes, file_name: str) -> TaxonomyParseResult:
    """Parse a taxonomy file; never raises for bad input (problems are in `.issues`)."""
    issues = Issues(file_name)
    text = decode(data, issues)
    value = load_json(text, issues) if text is not None else None
    if text is None or issues.items:
        return TaxonomyParseResult(None, issues.items)
    if not isinstance(value, dict):
        issues.add(None, None, f"wrong type: expected a JSON object with levels and nodes, got {json_type(value)}")
        return TaxonomyParseResult(None, issues.items)
    doc = Record(value, None, issues)  # type: ignore[arg-type]  # one object: fields locate every problem
    _unknown(doc, TOP_KEYS)
    key, version = _header(doc, issues)
    levels = _levels(doc)
    nodes = [node for rec in doc.items("nodes", required=True, if_empty="a taxonomy needs at least one node")
             if rec.ok and (node := _node(rec, levels)) is not None]
    _check_links(nodes, issues)
    if levels and levels[-1].generated_from and not issues.items:
        nodes += _generate(nodes, levels[-1], issues)
    if issues.items:
        return TaxonomyParseResult(None, issues.items)
    taxonomy = ParsedTaxonomy(
        key=key, version=version, name=doc.text("name", required=True, non_empty=True).strip(),
        name_zh=doc.text("name_zh").strip(), description=doc.text("description").strip(),
        source=doc.text("source").strip(), levels=levels, nodes=_depth_first(nodes),
    )
    if issues.items:  # the name was missing
        return TaxonomyParseResult(None, issues.items)
    taxonomy.sha256 = canonical_hash(taxonomy)
    return TaxonomyParseResult(taxonomy, [])
