"""Django admin for benchmark data. Imported text is immutable: cases, criteria and responses are
browsable but never added, edited or deleted here (a changed text is a new revision, made by
importing a release). Grader outputs: graders/admin.py."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponseRedirect
from django.urls import reverse

from cases.models import (
    MCQ,
    AILabel,
    Case,
    CaseRevision,
    Dataset,
    ImportJob,
    ModelResponse,
    QuestionSet,
    Release,
    RubricCriterion,
    Specialty,
    Taxonomy,
    TaxonomyLevel,
    TaxonomyNode,
    TextTranslation,
    Theme,
)
from medreview.admin import ReadOnlyAdmin, ReadOnlyInline


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    """Only the description is editable; the name identifies the dataset in imports."""

    list_display = ["name", "created_at"]
    search_fields = ["name"]
    readonly_fields = ["created_at"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["name", "created_at"] if obj else ["created_at"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Release)
class ReleaseAdmin(ReadOnlyAdmin):
    list_display = ["dataset", "label", "format", "model_name", "file_name", "imported_by", "imported_at", "status"]
    list_filter = ["dataset", "format", "status"]
    search_fields = ["label", "file_name", "sha256", "model_name"]
    list_select_related = ["dataset", "imported_by"]
    actions = ["curate"]

    @admin.action(description="Curate with the final labels of its studies (opens the Curations page)")
    def curate(self, request: HttpRequest, queryset: QuerySet[Release]) -> HttpResponseRedirect | None:
        # By URL name only: the curation lives in `annotation`, above `cases` (docs/curation.md).
        if queryset.count() != 1:
            self.message_user(request, "Choose exactly one release to curate.", level=messages.WARNING)
            return None
        return HttpResponseRedirect(f"{reverse('annotation:curation_list')}?release={queryset.get().pk}")


@admin.register(Specialty, Theme)
class NameAdmin(admin.ModelAdmin):
    list_display = ["name"]
    search_fields = ["name"]


class RevisionInline(ReadOnlyInline):
    model = CaseRevision
    fields = ["number", "release", "language", "content_hash", "created_at"]
    readonly_fields = fields  # created_at is not editable: a form field for it is a FieldError


@admin.register(Case)
class CaseAdmin(ReadOnlyAdmin):
    list_display = ["external_id", "dataset", "current_revision", "created_at"]
    list_filter = ["dataset"]
    search_fields = ["external_id"]
    list_select_related = ["dataset", "current_revision__case__dataset"]
    inlines = [RevisionInline]


class CriterionInline(ReadOnlyInline):
    model = RubricCriterion
    fields = ["order", "points", "axis", "text"]


@admin.register(CaseRevision)
class CaseRevisionAdmin(ReadOnlyAdmin):
    list_display = ["case", "number", "release", "language", "difficulty", "register", "post_time"]
    list_filter = ["case__dataset", "language", "difficulty", "register", "release", "specialties", "themes"]
    search_fields = ["case__external_id", "narrative", "core_request"]
    list_select_related = ["case__dataset", "release__dataset"]
    inlines = [CriterionInline]


@admin.register(RubricCriterion)
class RubricCriterionAdmin(ReadOnlyAdmin):
    list_display = ["revision", "order", "points", "axis", "text"]
    list_filter = ["axis", "revision__case__dataset"]
    search_fields = ["text", "revision__case__external_id"]
    list_select_related = ["revision__case__dataset"]


class MCQInline(ReadOnlyInline):
    model = MCQ
    fields = ["order", "stage", "question", "correct_answer"]


@admin.register(QuestionSet)
class QuestionSetAdmin(ReadOnlyAdmin):
    list_display = ["revision"]
    search_fields = ["revision__case__external_id", "scenario"]
    list_select_related = ["revision__case__dataset"]
    inlines = [MCQInline]


@admin.register(MCQ)
class MCQAdmin(ReadOnlyAdmin):
    list_display = ["question_set", "order", "stage", "correct_answer"]
    list_filter = ["stage"]
    search_fields = ["question", "question_set__revision__case__external_id"]
    list_select_related = ["question_set__revision__case__dataset"]


@admin.register(ModelResponse)
class ModelResponseAdmin(ReadOnlyAdmin):
    list_display = ["revision", "model_name", "finish_reason", "release", "created_at"]
    list_filter = ["model_name", "finish_reason", "revision__case__dataset"]
    search_fields = ["revision__case__external_id", "model_name", "text"]
    list_select_related = ["revision__case__dataset", "release__dataset"]


@admin.register(ImportJob)
class ImportJobAdmin(ReadOnlyAdmin):
    list_display = ["file_name", "format", "dataset_name", "release_label", "status", "created_by", "created_at"]
    list_filter = ["status", "format"]
    search_fields = ["file_name", "dataset_name", "release_label", "sha256"]
    list_select_related = ["created_by"]


@admin.register(TextTranslation)
class TextTranslationAdmin(ReadOnlyAdmin):
    """Translations are never edited (a rating points at the one read); a better one is a new variant."""

    list_display = ["revision", "key", "language", "variant", "source", "status", "engine", "created_at"]
    list_filter = ["language", "source", "status", "field"]
    search_fields = ["revision__case__external_id", "text"]


class TaxonomyLevelInline(ReadOnlyInline):
    model = TaxonomyLevel
    fields = ["depth", "name", "name_zh", "generated_from"]
    show_change_link = False


@admin.register(Taxonomy)
class TaxonomyAdmin(ReadOnlyAdmin):
    """Loaded with `manage.py load_taxonomy`; a loaded version never changes (labels point at its nodes)."""

    list_display = ["key", "version", "name", "counts", "imported_by", "imported_at"]
    search_fields = ["key", "name", "name_zh"]
    list_select_related = ["imported_by"]
    inlines = [TaxonomyLevelInline]


@admin.register(TaxonomyNode)
class TaxonomyNodeAdmin(ReadOnlyAdmin):
    list_display = ["code", "name", "name_zh", "level", "parent", "code_range", "taxonomy"]
    list_filter = ["taxonomy", "level"]
    search_fields = ["code", "name", "name_zh", "parent__code"]
    list_select_related = ["taxonomy", "parent"]
    ordering = ["taxonomy", "order"]


@admin.register(AILabel)
class AILabelAdmin(ReadOnlyAdmin):
    list_display = ["revision", "target", "mcq", "position", "kind", "level", "value", "node", "model_name", "release"]
    list_filter = ["kind", "target", "model_name", "level", "revision__case__dataset"]
    search_fields = ["value", "revision__case__external_id", "node__code", "node__name"]
    list_select_related = ["revision__case__dataset", "mcq", "node", "release__dataset"]
