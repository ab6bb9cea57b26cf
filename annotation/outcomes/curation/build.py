"""From a release and the final labels of chosen studies to the curated release's files.

Validation first, then pure computation: nothing is written here (the service writes the files and
records the curation), so a refused curation writes nothing by construction.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from annotation.models import Item, Study, TaskTarget
from annotation.outcomes.audit import chain_head
from annotation.outcomes.final_labels import RULE_INSPECTOR, RULE_UNANIMOUS, RULE_UNRESOLVED
from annotation.outcomes.histories import review_histories, set_rejections
from annotation.outcomes.selectors import FieldOutcome, field_outcomes
from cases import exporters
from cases.exporters import CaseReview, CurationRules, SourceRelease, StudyRef
from cases.exporters import FieldOutcome as ExportOutcome
from cases.models import Release
from cases.release_data import release_cases

NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_STRENGTH = {RULE_INSPECTOR: 2, RULE_UNANIMOUS: 1, RULE_UNRESOLVED: 0}


@dataclass(frozen=True)
class CurationBuild:
    files: dict[str, bytes]
    manifest: dict
    counts: dict
    notes: tuple[exporters.Note, ...]


def software_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("medreview")
    except PackageNotFoundError:  # a source checkout that was never installed
        return "unknown"


def _name(release: Release) -> str:
    return f"{release.dataset.name} {release.label}"


def check_name(name: str) -> str:
    name = (name or "").strip()
    if not NAME_PATTERN.match(name):
        raise ValidationError({"name": [
            _("a curation name is 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit "
              "(e.g. v202601-reviewed)")]})
    return name


def check_release(release: Release) -> None:
    if release.format not in exporters.WRITERS:
        raise ValidationError({"release": [
            _("release %(release)s is a %(format)s file; only case releases can be curated (%(formats)s)") % {
                "release": _name(release), "format": release.get_format_display(),
                "formats": ", ".join(exporters.WRITERS)}]})


def check_studies(release: Release, studies: Sequence[Study]) -> None:
    """Every chosen study must review this release's revisions, and only them."""
    if not studies:
        raise ValidationError({"studies": [_("choose at least one study whose final labels to apply")]})
    for study in studies:
        others = sorted({
            f"{dataset} {label}" for dataset, label in Item.objects.filter(study=study)
            .exclude(revision__release=release)
            .values_list("revision__release__dataset__name", "revision__release__label").distinct()
        })
        if others or not Item.objects.filter(study=study).exists():
            found = ", ".join(others) if others else _("no items")
            raise ValidationError({"studies": [
                _("study '%(study)s' (id %(study_id)s) reviews %(found)s, not release %(release)s (id %(release_id)s); "
                  "curate each release with its own studies") % {
                    "study": study.name, "study_id": study.pk, "found": found, "release": _name(release),
                    "release_id": release.pk}]})


def check_resolved(outcomes: Sequence[FieldOutcome], studies: Sequence[Study]) -> None:
    unresolved = [o for o in outcomes if not o.decision.resolved]
    if not unresolved:
        return
    names = {s.pk: s.name for s in studies}
    first = unresolved[0]
    where = f"case '{first.case}' {first.task} {first.field_key or ''}".strip()
    items = len({o.item_id for o in unresolved})
    raise ValidationError({"resolved_only": [
        ngettext("resolved only: %(n)s field of %(items)s item(s) has no final label (first: %(where)s in study "
                 "'%(study)s'); resolve it by inspection, or curate without 'resolved only'",
                 "resolved only: %(n)s fields of %(items)s item(s) have no final label (first: %(where)s in study "
                 "'%(study)s'); resolve them by inspection, or curate without 'resolved only'", len(unresolved))
        % {"n": len(unresolved), "items": items, "where": where, "study": names[first.study_id]}]})


def _stronger(old: ExportOutcome | None, new: ExportOutcome) -> ExportOutcome:
    """Two studies may review the same field: the stronger rule wins; a tie that disagrees is unresolved."""
    if old is None or _STRENGTH[new.rule] > _STRENGTH[old.rule]:
        return new
    if _STRENGTH[new.rule] == _STRENGTH[old.rule] and new.label != old.label:
        return ExportOutcome(label=None, rule=RULE_UNRESOLVED, source="conflict", history=old.history)
    return old


def case_reviews(
    outcomes: Sequence[FieldOutcome], history_url: Callable[[int], str],
    histories: Mapping[int, list[dict]] | None = None, rejections: Mapping[int, str] | None = None,
) -> dict[str, CaseReview]:
    """Final decisions per case, in the exporters' terms (criterion / MCQ positions, not ids), with
    the review events of the case's items and an inspector's rejection of a whole question set."""
    histories, rejections = histories or {}, rejections or {}
    slots: dict[str, dict] = {}
    for o in outcomes:
        entry = slots.setdefault(o.case, {"narrative": None, "advice": None, "criteria": {}, "mcqs": {},
                                          "history": set(), "items": set()})
        url = history_url(o.item_id)
        entry["history"].add(url)
        entry["items"].add(o.item_id)
        outcome = ExportOutcome(label=o.decision.label, rule=o.decision.rule, source=o.decision.source, history=url)
        if o.target == TaskTarget.NARRATIVE:
            entry["narrative"] = _stronger(entry["narrative"], outcome)
        elif o.target == TaskTarget.ADVICE:
            entry["advice"] = _stronger(entry["advice"], outcome)
        elif o.target == TaskTarget.CRITERION and o.position is not None:
            entry["criteria"][o.position] = _stronger(entry["criteria"].get(o.position), outcome)
        elif o.target == TaskTarget.MCQ and o.position is not None:
            checks = entry["mcqs"].setdefault(o.position, {})
            checks[o.task] = _stronger(checks.get(o.task), outcome)
    return {
        case: CaseReview(
            narrative=e["narrative"], advice=e["advice"], criteria=e["criteria"], mcqs=e["mcqs"],
            history=tuple(sorted(e["history"])),
            events=tuple(sorted((ev for i in sorted(e["items"]) for ev in histories.get(i, [])), key=lambda ev: ev["at"])),
            set_rejection="; ".join(rejections[i] for i in sorted(e["items"]) if i in rejections),
        )
        for case, e in slots.items()
    }


def study_refs(studies: Sequence[Study], outcomes: Sequence[FieldOutcome]) -> list[StudyRef]:
    refs = []
    for study in studies:
        mine = [o for o in outcomes if o.study_id == study.pk]
        items = {o.item_id for o in mine}
        unresolved = {o.item_id for o in mine if not o.decision.resolved}
        tasks = tuple(sorted({o.task for o in mine} | set(study.tasks.values_list("slug", flat=True))))
        head = chain_head(study)
        refs.append(StudyRef(id=study.pk, name=study.name, tasks=tasks,
                             items=Item.objects.filter(study=study).count(), resolved_items=len(items - unresolved),
                             audit_chain={k: head[k] for k in ("seq", "hash", "sealed_at")}))
    return refs


def build_curation(
    *, name: str, release: Release, studies: Sequence[Study], rules: CurationRules,
    history_url: Callable[[int], str],
) -> CurationBuild:
    """Validate, then compute every file of the curated release (nothing is written)."""
    name = check_name(name)
    check_release(release)
    studies = sorted(studies, key=lambda s: s.pk)
    check_studies(release, studies)
    outcomes = field_outcomes(studies)
    if rules.resolved_only:
        check_resolved(outcomes, studies)
    item_ids = {o.item_id for o in outcomes}
    reviews = case_reviews(outcomes, history_url, review_histories(item_ids), set_rejections(item_ids))
    output = exporters.curate(fmt=release.format, name=name, cases=release_cases(release), reviews=reviews,
                              rules=rules)
    source = SourceRelease(id=release.pk, dataset=release.dataset.name, label=release.label, format=release.format,
                           file_name=release.file_name, sha256=release.sha256)
    files = exporters.release_files(output, source=source, studies=study_refs(studies, outcomes), rules=rules,
                                    version=software_version())
    manifest = json.loads(files[exporters.MANIFEST_NAME])
    return CurationBuild(files=files, manifest=manifest, counts=output.counts, notes=output.notes)
