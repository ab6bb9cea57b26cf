"""Translations of case text: field keys, the language check, the import of translation files and
the reads that show them (docs/i18n.md, docs/formats.md "Translations").

A translation belongs to one field of one revision (`TextTranslation.key`); ratings record the
translation ids the physician read, so a later translation never changes what a rating was about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from cases.importers.base import (
    MCQ_LETTERS,
    ImportIssue,
    Issues,
    Record,
    iter_jsonl,
    json_type,
    load_json_list,
)
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
# Text attributes of a record -> the column each is written to (limits read from the model).
_TEXT_COLUMNS = ("language", "variant", "engine", "prompt_version")


@dataclass(frozen=True)
class TranslationImportResult:
    created: int
    unchanged: int
    invalid: int
    issues: list[ImportIssue]


def parse_translation_file(data: bytes, file_name: str) -> tuple[list[tuple[int, Any]], Issues]:
    """(record number, value) for each record of a JSON list (its position, from 1) or JSON Lines
    (the line number), read through the safe loader: not UTF-8, NUL, lone surrogates, duplicate
    keys, deep nesting and huge numbers are located problems, never an exception."""
    issues = Issues(file_name)
    if data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1] == b"[":
        return list(enumerate(load_json_list(data, issues, what="translation records"), start=1)), issues
    records = list(iter_jsonl(data, issues))
    if not records and not len(issues):
        issues.add(None, None, "no records: expected a JSON list or JSON Lines of translation records")
    return records, issues


def translations_import(
    *, dataset: str, release: str, records: Sequence[Any], file_name: str, user: AbstractBaseUser | None,
    issues: Issues | None = None, numbers: Sequence[int] | None = None, dry_run: bool = False,
) -> TranslationImportResult:
    """Attach translations to the revisions of `dataset`/`release`. Any error and nothing is written:
    every error is reported with its record and field (`numbers` gives each record's number, from
    the file; by default its position from 1). `dry_run` runs every check the import runs, the
    comparison with translations already stored included, and writes nothing."""
    issues = issues if issues is not None else Issues(file_name)
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
    numbers = numbers if numbers is not None else range(1, len(records) + 1)
    rows = [(n, _resolve(Record(rec, n, issues), revisions, targets)) for n, rec in zip(numbers, records, strict=True)]
    rows = [(n, r) for n, r in rows if r is not None]
    _note_repeats(rows, issues)
    _raise_if_any(issues)
    if file_name_problem := _too_long(file_name, _limit("file_name")):
        raise ValidationError({"file": f"the file name has {file_name_problem}"})
    if dry_run:
        return _compare(rows=rows, file_name=file_name, user=user, issues=issues, write=False)
    # One file is one transaction: nothing is written unless every record is.
    with transaction.atomic():
        return _compare(rows=rows, file_name=file_name, user=user, issues=issues, write=True)


def _raise_if_any(issues: Issues) -> None:
    if len(issues):
        raise ValidationError([str(i) for i in issues.items], code="import")


@dataclass(frozen=True)
class _Targets:
    criteria: dict[tuple[int, object], RubricCriterion]
    mcqs: dict[tuple[int, object], MCQ]


def _limit(column: str) -> int:
    return TextTranslation._meta.get_field(column).max_length  # type: ignore[return-value]


def _too_long(value: str, limit: int) -> str:
    return f"{len(value)} characters; at most {limit} fit" if len(value) > limit else ""


def _position(rec: Record, key: str) -> int | None:
    """A 1-based position (criterion, MCQ) given as a whole number; None with the problem noted."""
    value = rec.obj.get(key)
    if value is None:
        rec.error(key, "missing required field: its position from 1")
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        rec.error(key, f"wrong type: expected a whole number from 1, got {json_type(value)}")
        return None
    return value


def _texts(rec: Record) -> dict[str, str] | None:
    """language, variant, engine and prompt_version as text that fits its column; None if any is wrong."""
    before = len(rec.issues)
    values = {
        "language": rec.text("language", required=True, non_empty=True).strip(),
        "variant": rec.text("variant").strip() or "default",
        "engine": rec.text("engine"),
        "prompt_version": rec.text("prompt_version"),
    }
    for column in _TEXT_COLUMNS:
        if problem := _too_long(values[column], _limit(column)):
            rec.error(column, problem)
    return values if len(rec.issues) == before else None


def _resolve(rec: Record, revisions: dict[str, CaseRevision], targets: _Targets) -> TextTranslation | None:
    if not rec.ok:
        return None
    before = len(rec.issues)
    unknown = sorted(set(rec.obj) - RECORD_KEYS)
    if unknown:
        rec.error(unknown[0], f"unknown key {unknown[0]!r}")
    case_id = rec.identifier("case_id")
    revision = revisions.get(case_id) if case_id else None
    if case_id and revision is None:
        rec.error("case_id", f"unknown case {case_id!r} in this release")
    key = _field_key(rec, revision, targets) if revision is not None else None
    texts = _texts(rec)
    text = rec.text("text", required=True)
    source = rec.text("source") or TextTranslation.Source.IMPORTED
    if source not in SOURCES:
        rec.error("source", f"one of {', '.join(sorted(SOURCES))}")
    if key is None or texts is None or len(rec.issues) > before:
        return None
    problem = language_problem(text, texts["language"])
    return TextTranslation(
        revision=revision, field=key[0], key=key[1], text=text, source=source, **texts,
        status=TextTranslation.Status.INVALID if problem else TextTranslation.Status.VALID, problem=problem,
    )


def _field_key(rec: Record, revision: CaseRevision, targets: _Targets) -> tuple[str, str] | None:
    field = rec.text("field", required=True)
    if field in {f.value for f in WHOLE_FIELDS} | {TranslatableField.SCENARIO.value}:
        if field == TranslatableField.SCENARIO and not hasattr(revision, "question_set"):
            rec.error("field", "scenario: this case has no question set")
            return None
        return field, field
    if field == TranslatableField.CRITERION:
        position = _position(rec, "criterion")
        criterion = targets.criteria.get((revision.pk, position))
        if criterion is None and position is not None:
            rec.error("criterion", f"no criterion {position!r} (1-based) in this case")
        return None if criterion is None else (field, criterion_key(criterion))
    if field in (TranslatableField.MCQ_STEM, TranslatableField.MCQ_OPTION):
        return _mcq_key(rec, field, revision, targets)
    if "field" in rec.obj and isinstance(rec.obj["field"], str):
        rec.error("field", f"unknown field {field!r}: one of {', '.join(TranslatableField.values)}")
    return None


def _mcq_key(rec: Record, field: str, revision: CaseRevision, targets: _Targets) -> tuple[str, str] | None:
    position = _position(rec, "mcq")
    mcq = targets.mcqs.get((revision.pk, position))
    if mcq is None:
        if position is not None:
            rec.error("mcq", f"no MCQ {position!r} (1-based) in this case")
        return None
    if field == TranslatableField.MCQ_STEM:
        return field, mcq_stem_key(mcq)
    letter = rec.text("option", required=True).strip()
    if letter not in MCQ_LETTERS or letter not in (mcq.options or {}):
        rec.error("option", f"no option {letter!r} in MCQ {mcq.order}")
        return None
    return field, mcq_option_key(mcq, letter)


def _note_repeats(rows: list[tuple[int, TextTranslation]], issues: Issues) -> None:
    """One translation per (field, language, variant) in a file: a second one would otherwise meet
    the unique constraint at the write."""
    first: dict[tuple[int, str, str, str], int] = {}
    for n, row in rows:
        identity = (row.revision_id, row.key, row.language, row.variant)
        if identity in first:
            issues.add(n, "variant", f"{row.revision.case.external_id} {row.key} [{row.language}/{row.variant}] "
                                     f"also at record {first[identity]}; give each translation its own variant")
        first.setdefault(identity, n)


def _compare(
    *, rows: list[tuple[int, TextTranslation]], file_name: str, user: AbstractBaseUser | None, issues: Issues,
    write: bool,
) -> TranslationImportResult:
    """Compare with what is stored (inside the import's transaction when `write`) and write the new
    rows. Translations are never edited: an existing (revision, key, language, variant) with the
    same text is a no-op, with another text an error."""
    existing = {
        (t.revision_id, t.key, t.language, t.variant): t
        for t in TextTranslation.objects.filter(revision_id__in={r.revision_id for _, r in rows})
    }
    new, unchanged = [], 0
    for n, row in rows:
        old = existing.get((row.revision_id, row.key, row.language, row.variant))
        if old is not None and old.text == row.text:
            unchanged += 1
        elif old is not None:
            issues.add(n, "text", f"{row.revision.case.external_id} {row.key} [{row.language}/{row.variant}] "
                                  "already has a different translation; import it under another variant")
        else:
            row.file_name, row.created_by = file_name, user if user is not None and user.is_authenticated else None
            new.append(row)
    _raise_if_any(issues)
    if write:
        try:
            TextTranslation.objects.bulk_create(new)
        except IntegrityError:  # the same translations imported by someone else at this moment
            raise ValidationError(f"{file_name}: another import wrote these translations meanwhile; "
                                  "import the file again") from None
    invalid = sum(row.status == TextTranslation.Status.INVALID for row in new)
    return TranslationImportResult(created=len(new), unchanged=unchanged, invalid=invalid, issues=issues.items)
