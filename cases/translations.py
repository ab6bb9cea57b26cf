"""Translations of case text: field keys, the language check, the import of translation files and
the reads that show them (docs/i18n.md, docs/formats.md "Translations").

A translation belongs to one field of one revision (`TextTranslation.key`); ratings record the
translation ids the physician read, so a later translation never changes what a rating was about.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from cases.importers.base import MCQ_LETTERS, ImportIssue, Issues
from cases.models import (
    MCQ,
    CaseRevision,
    Release,
    RubricCriterion,
    TextTranslation,
    TranslatableField,
)
from medreview.text import MIN_HAN_SHARE, han_share

WHOLE_FIELDS = {
    TranslatableField.NARRATIVE: "narrative", TranslatableField.QUERY: "core_request",
    TranslatableField.ADVICE: "doctor_advice",
}


def criterion_key(criterion: RubricCriterion) -> str:
    return f"criterion:{criterion.pk}"


def mcq_stem_key(mcq: MCQ) -> str:
    return f"mcq:{mcq.pk}:stem"


def mcq_option_key(mcq: MCQ, letter: str) -> str:
    return f"mcq:{mcq.pk}:option:{letter}"


def same_language(a: str, b: str) -> bool:
    """BCP 47 primary subtags match: zh-Hans and zh are one language for "is this the original?"."""
    return a.split("-")[0].lower() == b.split("-")[0].lower() if a and b else False


def language_problem(text: str, language: str) -> str:
    """Why `text` is not a usable translation into `language` ("" when it is)."""
    if not text.strip():
        return "empty"
    if language.lower().startswith("zh"):
        # Drug names, units and lab abbreviations stay in Latin letters in Chinese clinical text.
        share = han_share(text)
        if share is None or share < MIN_HAN_SHARE:
            return "not Chinese"
    return ""


def source_texts(revision: CaseRevision) -> dict[str, tuple[str, str]]:
    """Every translatable field of a revision: key -> (field type, original text) (3 queries)."""
    out: dict[str, tuple[str, str]] = {}
    for field_type, column in WHOLE_FIELDS.items():
        if getattr(revision, column):
            out[field_type.value] = (field_type.value, getattr(revision, column))
    for criterion in RubricCriterion.objects.filter(revision=revision).order_by("order"):
        out[criterion_key(criterion)] = (TranslatableField.CRITERION.value, criterion.text)
    question_set = getattr(revision, "question_set", None) if hasattr(revision, "question_set") else None
    if question_set is not None:
        out[TranslatableField.SCENARIO.value] = (TranslatableField.SCENARIO.value, question_set.scenario)
        for mcq in question_set.mcqs.order_by("order"):
            out[mcq_stem_key(mcq)] = (TranslatableField.MCQ_STEM.value, mcq.question)
            for letter, option in sorted((mcq.options or {}).items()):
                out[mcq_option_key(mcq, letter)] = (TranslatableField.MCQ_OPTION.value, option)
    return out


def shown_translations(revision_id: int, language: str) -> dict[str, TextTranslation]:
    """key -> the translation a physician reads in `language` (valid only; the first variant)."""
    out: dict[str, TextTranslation] = {}
    rows = TextTranslation.objects.shown().filter(revision_id=revision_id, language__iexact=language)
    for t in rows.order_by("key", "variant"):
        out.setdefault(t.key, t)
    return out


def translation_pairs(revision_id: int, language: str) -> dict[str, tuple[TextTranslation, TextTranslation]]:
    """key -> the first two valid variants in `language`: what a translation-consistency rater compares."""
    by_key: dict[str, list[TextTranslation]] = {}
    rows = TextTranslation.objects.shown().filter(revision_id=revision_id, language__iexact=language)
    for t in rows.order_by("key", "variant"):
        by_key.setdefault(t.key, []).append(t)
    return {key: (ts[0], ts[1]) for key, ts in by_key.items() if len(ts) >= 2}


# --- import ------------------------------------------------------------------------------------

RECORD_KEYS = {"case_id", "field", "criterion", "mcq", "option", "language", "text", "variant", "source",
               "engine", "prompt_version"}
SOURCES = {s.value for s in TextTranslation.Source}


@dataclass(frozen=True)
class TranslationImportResult:
    created: int
    unchanged: int
    invalid: int
    issues: list[ImportIssue]


def parse_translation_file(data: bytes, file_name: str) -> tuple[list[dict[str, Any]], Issues]:
    """A JSON list or JSON Lines of translation records (docs/formats.md)."""
    issues = Issues(file_name)
    text = data.decode("utf-8-sig", errors="strict") if data else ""
    stripped = text.lstrip()
    records: list[dict[str, Any]] = []
    try:
        if stripped.startswith("["):
            records = json.loads(text)
        else:
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        issues.add(None, None, f"not JSON or JSON Lines: {exc}")
    return records, issues


def translations_import(
    *, dataset: str, release: str, records: list[Any], file_name: str, user: AbstractBaseUser | None,
    issues: Issues | None = None,
) -> TranslationImportResult:
    """Attach translations to the revisions of `dataset`/`release`. Any error and nothing is written:
    every error is reported with its record (from 1) and field."""
    issues = issues or Issues(file_name)
    try:
        release_obj = Release.objects.get(dataset__name=dataset, label=release, case_revisions__isnull=False)
    except Release.DoesNotExist:
        raise ValidationError({"release": _("%(dataset)s %(release)s: no release with cases of that name.")
                               % {"dataset": dataset, "release": release}}) from None
    except Release.MultipleObjectsReturned:
        release_obj = Release.objects.filter(dataset__name=dataset, label=release, case_revisions__isnull=False).first()
    revisions = {r.case.external_id: r for r in CaseRevision.objects.filter(release=release_obj).select_related("case")}
    # Two queries for every criterion and MCQ of the release, not two per record.
    targets = _Targets(
        criteria={(c.revision_id, c.order): c for c in RubricCriterion.objects.filter(revision__release=release_obj)},
        mcqs={(m.question_set.revision_id, m.order): m
              for m in MCQ.objects.filter(question_set__revision__release=release_obj).select_related("question_set")},
    )
    rows = [_resolve(n, rec, revisions, targets, issues) for n, rec in enumerate(records, start=1)]
    if len(issues):
        raise ValidationError([str(i) for i in issues.items], code="import")
    return _write(rows=[r for r in rows if r is not None], file_name=file_name, user=user, issues=issues)


@dataclass(frozen=True)
class _Targets:
    criteria: dict[tuple[int, object], RubricCriterion]
    mcqs: dict[tuple[int, object], MCQ]


def _resolve(
    n: int, rec: Any, revisions: dict[str, CaseRevision], targets: _Targets, issues: Issues
) -> TextTranslation | None:
    if not isinstance(rec, dict):
        issues.add(n, None, "a translation record is a JSON object")
        return None
    unknown = sorted(set(rec) - RECORD_KEYS)
    if unknown:
        issues.add(n, unknown[0], f"unknown key {unknown[0]!r}")
    revision = revisions.get(str(rec.get("case_id", "")))
    if revision is None:
        issues.add(n, "case_id", f"unknown case {rec.get('case_id')!r} in this release")
        return None
    key = _field_key(n, rec, revision, targets, issues)
    language, text = rec.get("language"), rec.get("text")
    if not isinstance(language, str) or not language:
        issues.add(n, "language", "a BCP 47 language code is required, e.g. zh-Hans")
    if not isinstance(text, str):
        issues.add(n, "text", "the translated text is required")
    source = rec.get("source", TextTranslation.Source.IMPORTED)
    if source not in SOURCES:
        issues.add(n, "source", f"one of {', '.join(sorted(SOURCES))}")
    if key is None or not isinstance(language, str) or not isinstance(text, str) or source not in SOURCES:
        return None
    problem = language_problem(text, language)
    return TextTranslation(
        revision=revision, field=key[0], key=key[1], language=language, variant=str(rec.get("variant") or "default"),
        text=text, source=source, engine=str(rec.get("engine", "")), prompt_version=str(rec.get("prompt_version", "")),
        status=TextTranslation.Status.INVALID if problem else TextTranslation.Status.VALID, problem=problem,
    )


def _field_key(n: int, rec: dict, revision: CaseRevision, targets: _Targets, issues: Issues) -> tuple[str, str] | None:
    field = rec.get("field")
    if field in {f.value for f in WHOLE_FIELDS} | {TranslatableField.SCENARIO.value}:
        if field == TranslatableField.SCENARIO and not hasattr(revision, "question_set"):
            issues.add(n, "field", "scenario: this case has no question set")
            return None
        return field, field
    if field == TranslatableField.CRITERION:
        criterion = targets.criteria.get((revision.pk, rec.get("criterion")))
        if criterion is None:
            issues.add(n, "criterion", f"no criterion {rec.get('criterion')!r} (1-based) in this case")
            return None
        return field, criterion_key(criterion)
    if field in (TranslatableField.MCQ_STEM, TranslatableField.MCQ_OPTION):
        mcq = targets.mcqs.get((revision.pk, rec.get("mcq")))
        if mcq is None:
            issues.add(n, "mcq", f"no MCQ {rec.get('mcq')!r} (1-based) in this case")
            return None
        if field == TranslatableField.MCQ_STEM:
            return field, mcq_stem_key(mcq)
        letter = rec.get("option")
        if letter not in MCQ_LETTERS or letter not in (mcq.options or {}):
            issues.add(n, "option", f"no option {letter!r} in MCQ {mcq.order}")
            return None
        return field, mcq_option_key(mcq, letter)
    issues.add(n, "field", f"unknown field {field!r}: one of {', '.join(TranslatableField.values)}")
    return None


def _write(
    *, rows: Iterable[TextTranslation], file_name: str, user: AbstractBaseUser | None, issues: Issues
) -> TranslationImportResult:
    rows = list(rows)
    created = unchanged = invalid = 0
    # One file is one transaction: nothing is written unless every record is; translations are
    # never edited, so an existing (revision, key, language, variant) with the same text is a no-op.
    with transaction.atomic():
        existing = {
            (t.revision_id, t.key, t.language, t.variant): t
            for t in TextTranslation.objects.filter(revision_id__in={r.revision_id for r in rows})
        }
        new = []
        for row in rows:
            old = existing.get((row.revision_id, row.key, row.language, row.variant))
            if old is not None and old.text == row.text:
                unchanged += 1
                continue
            if old is not None:
                raise ValidationError(
                    f"{file_name}: {row.revision.case.external_id} {row.key} [{row.language}/{row.variant}] "
                    "already has a different translation; import it under another variant."
                )
            row.file_name, row.created_by = file_name, user if user is not None and user.is_authenticated else None
            invalid += row.status == TextTranslation.Status.INVALID
            new.append(row)
        TextTranslation.objects.bulk_create(new)
        created = len(new)
    return TranslationImportResult(created=created, unchanged=unchanged, invalid=invalid, issues=issues.items)
