"""Taxonomies as data, and the labels an LLM gave to cases, questions, images and tables.

LiveClin (App. D, E, I, J) classifies every case report into a three-level taxonomy (ICD-10
chapter -> disease cluster -> ICD-10 code), gives every question a free-text clinical stage and
every image and table a modality label, each made by an LLM. Physicians then check those labels.

- A **taxonomy** (`Taxonomy`, its `TaxonomyLevel`s and `TaxonomyNode`s) is imported from a file
  (docs/formats.md, "Taxonomies") or built in (`manage.py load_taxonomy liveclin`). A loaded
  version is never edited: a changed file is a new version, so every label keeps pointing at the
  node it was about.
- An **AI label** (`AILabel`) is one model's label for one thing: the text it wrote (`value`) and,
  for taxonomy labels, the node that text resolved to. Labels are imported (`ai-labels`,
  `liveclin-labels`) and attach to the exact revision (and MCQ) of the case they were made on.

Consolidation mappings (App. I, J: granular stage and modality labels grouped into intermediate and
final categories) will be taxonomies too (final categories level 1, intermediate level 2), with
versioned rules that map an `AILabel.value` to a node.

Foreign keys to the other models of `cases` are by name ("cases.CaseRevision"), so this module
needs nothing from `cases.models` at import time.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Taxonomy(models.Model):
    """One version of a taxonomy; `key` + `version` name it (`liveclin` `2025`)."""

    key = models.SlugField(max_length=50, help_text="Short name used by imports and commands, e.g. liveclin")
    version = models.CharField(max_length=50, help_text="A changed taxonomy is a new version")
    name = models.CharField(max_length=200)
    name_zh = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    source = models.CharField(max_length=500, blank=True, help_text="Where the codes and names come from")
    file_name = models.CharField(max_length=500, blank=True)
    sha256 = models.CharField(max_length=64, help_text="SHA-256 of the canonical content (levels and nodes)")
    counts = models.JSONField(default=dict, blank=True, help_text='Nodes per level: {"1": 16, ...}')
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    imported_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["key", "-imported_at"]
        verbose_name_plural = "taxonomies"
        constraints = [models.UniqueConstraint(fields=["key", "version"], name="taxonomy_unique_version")]

    def __str__(self) -> str:
        return f"{self.key}@{self.version}"


class TaxonomyLevel(models.Model):
    """A level of a taxonomy (1 = top). `generated_from` names where its nodes came from when the
    file did not list them (`icd10-categories`: WHO ICD-10 three-character categories)."""

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.PROTECT, related_name="levels")
    depth = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=200)
    name_zh = models.CharField(max_length=200, blank=True)
    generated_from = models.CharField(max_length=50, blank=True)

    class Meta:
        ordering = ["taxonomy", "depth"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "depth"], name="taxonomylevel_unique_depth"),
            models.CheckConstraint(condition=Q(depth__gte=1), name="taxonomylevel_depth_from_1"),
        ]

    def __str__(self) -> str:
        return f"{self.taxonomy} level {self.depth}: {self.name}"


class TaxonomyNodeQuerySet(models.QuerySet["TaxonomyNode"]):
    def at_level(self, level: int) -> TaxonomyNodeQuerySet:
        return self.filter(level=level)


class TaxonomyNode(models.Model):
    """One code of a taxonomy level, with its parent on the level above (none on level 1).

    `code` is unique within a level (a LiveClin cluster `C50` and the ICD-10 code `C50` are on
    different levels). `code_range` holds the ICD-10 ranges a node covers (`C97, D00-D48`);
    `aliases` are other spellings a label may use (LiveClin Table 2's abbreviations)."""

    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.PROTECT, related_name="nodes")
    level = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=50)
    name = models.CharField(max_length=500)
    name_zh = models.CharField(max_length=500, blank=True)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="children"
    )
    order = models.PositiveIntegerField(help_text="Position in the taxonomy (file order, depth first)")
    code_range = models.CharField(max_length=200, blank=True)
    aliases = models.JSONField(default=list, blank=True)

    objects = TaxonomyNodeQuerySet.as_manager()

    class Meta:
        ordering = ["taxonomy", "order"]
        constraints = [
            models.UniqueConstraint(fields=["taxonomy", "level", "code"], name="taxonomynode_unique_code"),
            models.CheckConstraint(condition=Q(level__gte=1), name="taxonomynode_level_from_1"),
            # Level 1 has no parent; every other level has one.
            models.CheckConstraint(
                condition=Q(level=1, parent__isnull=True) | Q(level__gt=1, parent__isnull=False),
                name="taxonomynode_parent_above",
            ),
        ]
        indexes = [models.Index(fields=["taxonomy", "level", "parent"])]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"


class AILabel(models.Model):
    """One label an LLM gave: a case's taxonomy node at one level, a question's clinical stage, or
    an image's or table's modality. `value` is the text the model wrote, kept exactly; `node` is
    what it resolved to in `taxonomy` (taxonomy labels only).

    Where: `revision` (the case text labelled); `mcq` for a question, and for an image or table of
    a question (None: the scenario's); `position` is the image's or table's place (from 1) in that
    list of details."""

    class Target(models.TextChoices):
        CASE = "case", "Case"
        QUESTION = "question", "Question (MCQ)"
        IMAGE = "image", "Image"
        TABLE = "table", "Table"

    class Kind(models.TextChoices):
        TAXONOMY = "taxonomy", "Taxonomy node"
        STAGE = "stage", "Clinical stage"
        MODALITY = "modality", "Modality"

    release = models.ForeignKey("cases.Release", on_delete=models.PROTECT, related_name="ai_labels")
    revision = models.ForeignKey("cases.CaseRevision", on_delete=models.PROTECT, related_name="ai_labels")
    target = models.CharField(max_length=10, choices=Target.choices)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    mcq = models.ForeignKey("cases.MCQ", null=True, blank=True, on_delete=models.PROTECT, related_name="ai_labels")
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    taxonomy = models.ForeignKey(Taxonomy, null=True, blank=True, on_delete=models.PROTECT, related_name="ai_labels")
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    node = models.ForeignKey(
        TaxonomyNode, null=True, blank=True, on_delete=models.PROTECT, related_name="ai_labels"
    )
    value = models.CharField(max_length=500, help_text="The label exactly as the model wrote it")
    model_name = models.CharField(max_length=200, help_text="The model that made the label")
    raw = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["revision", "target", "mcq", "position", "kind", "level"]
        verbose_name = "AI label"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="taxonomy", taxonomy__isnull=False, level__isnull=False, node__isnull=False)
                    | (~Q(kind="taxonomy") & Q(taxonomy__isnull=True, level__isnull=True, node__isnull=True))
                ),
                name="ailabel_taxonomy_fields",
            ),
            models.CheckConstraint(
                condition=(
                    Q(target="case", mcq__isnull=True, position__isnull=True)
                    | Q(target="question", mcq__isnull=False, position__isnull=True)
                    | Q(target__in=["image", "table"], position__isnull=False)
                ),
                name="ailabel_target_location",
            ),
        ]
        indexes = [models.Index(fields=["kind", "target"]), models.Index(fields=["model_name"])]

    def __str__(self) -> str:
        where = self.target if self.position is None else f"{self.target} {self.position}"
        return f"{self.get_kind_display()} of {where} on {self.revision_id}: {self.value[:60]}"
