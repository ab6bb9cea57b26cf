"""A release's cases read back as the importers' dataclasses, for the curation writers.

A release's cases are the revisions it brought (`CaseRevision.release`), in the order they were
written, which is the order of the source file. The rebuilt `ParsedCase` hashes to the revision's
`content_hash` (checked by the tests), so a writer sees exactly what the importer saw.
"""

from __future__ import annotations

from django.db.models import Prefetch

from cases.importers.base import ParsedCase, ParsedCriterion, ParsedMCQ, ParsedQuestionSet
from cases.models import MCQ, CaseRevision, QuestionSet, Release, RubricCriterion


def _question_set(revision: CaseRevision) -> ParsedQuestionSet | None:
    try:
        qs: QuestionSet = revision.question_set
    except QuestionSet.DoesNotExist:
        return None
    mcqs = tuple(
        ParsedMCQ(stage=m.stage, question=m.question, options=m.options, correct_answer=m.correct_answer,
                  image_details=m.image_details, table_details=m.table_details)
        for m in qs.mcqs.all()
    )
    return ParsedQuestionSet(scenario=qs.scenario, scenario_images=qs.scenario_images,
                             scenario_tables=qs.scenario_tables, mcqs=mcqs, case_report=qs.case_report,
                             report_source=qs.report_source, captions=tuple(qs.captions))


def parsed_case(revision: CaseRevision, record: int = 0) -> ParsedCase:
    return ParsedCase(
        record=record,
        external_id=revision.case.external_id,
        narrative=revision.narrative,
        core_request=revision.core_request,
        doctor_advice=revision.doctor_advice,
        language=revision.language,
        post_time=revision.post_time,
        conversation=revision.conversation,
        specialties=tuple(s.name for s in revision.specialties.all()),
        themes=tuple(t.name for t in revision.themes.all()),
        difficulty=revision.difficulty,
        register=revision.register,
        icd_chapter=revision.icd_chapter,
        disease_cluster=revision.disease_cluster,
        rarity=revision.rarity,
        source=revision.source,
        extra=revision.extra,
        raw=revision.raw,
        criteria=tuple(ParsedCriterion(text=c.text, points=c.points, axis=c.axis, tags=tuple(c.tags))
                       for c in revision.criteria.all()),
        question_set=_question_set(revision),
    )


def release_cases(release: Release) -> list[ParsedCase]:
    """Every case revision the release brought, as parsed cases, in file order (5 queries)."""
    revisions = (
        CaseRevision.objects.filter(release=release)
        .select_related("case", "question_set")
        .prefetch_related(
            "specialties", "themes",
            Prefetch("criteria", queryset=RubricCriterion.objects.order_by("order")),
            Prefetch("question_set__mcqs", queryset=MCQ.objects.order_by("order")),
        )
        .order_by("pk")
    )
    return [parsed_case(r, n) for n, r in enumerate(revisions, start=1)]
