"""Reads of benchmark data that several pages and the API share. Query counts do not grow with the
data: every list is one query (plus prefetches), every page is paginated."""

from django.db.models import Count, Prefetch, Q, QuerySet

from cases.models import MCQ, Case, CaseRevision, Dataset, Release, RubricCriterion, TaxonomyNode

PICKER_LIMIT = 100


def datasets_with_releases(datasets: QuerySet[Dataset], releases: QuerySet[Release]) -> QuerySet[Dataset]:
    return datasets.annotate(case_count=Count("cases", distinct=True)).prefetch_related(
        Prefetch("releases", queryset=releases.order_by("-imported_at"), to_attr="release_list")
    )


def release_revisions(release: Release) -> QuerySet[CaseRevision]:
    """The case revisions a release brought in (new cases and new texts), with their sizes."""
    return (
        CaseRevision.objects.filter(release=release)
        .select_related("case")
        .annotate(criteria_count=Count("criteria", distinct=True))
        .order_by("case__external_id")
    )


def case_revisions(case: Case) -> list[CaseRevision]:
    """Every revision of a case, newest first, with everything a detail page shows."""
    return list(
        CaseRevision.objects.filter(case=case)
        .select_related("release", "question_set")
        .prefetch_related(
            "specialties", "themes",
            Prefetch("criteria", queryset=RubricCriterion.objects.order_by("order")),
            Prefetch("question_set__mcqs", queryset=MCQ.objects.order_by("order")),
            "responses",
        )
        .order_by("-number")
    )


def taxonomy_nodes_for_picker(
    nodes: QuerySet[TaxonomyNode], *, level: int | None = None, parent: int | None = None, search: str = ""
) -> QuerySet[TaxonomyNode]:
    """What a level picker offers: one level, or the children of one node, optionally filtered by a
    code or a name in either language (case-insensitive), in taxonomy order, at most PICKER_LIMIT."""
    if level is not None:
        nodes = nodes.filter(level=level)
    if parent is not None:
        nodes = nodes.filter(parent_id=parent)
    if search.strip():
        term = search.strip()
        nodes = nodes.filter(Q(code__istartswith=term) | Q(name__icontains=term) | Q(name_zh__icontains=term))
    return nodes.order_by("order")[:PICKER_LIMIT]
