"""Grader configurations, prompts and jobs, and the grader output they produce."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from graders.models import (
    GraderConfig,
    GraderDecision,
    GraderRun,
    GradingChunk,
    GradingJob,
    JudgeScore,
    PairwiseJudgement,
    PromptTemplate,
    TranslationJob,
)
from medreview.admin import ReadOnlyAdmin


@admin.register(PromptTemplate)
class PromptTemplateAdmin(admin.ModelAdmin):
    list_display = ["kind", "version", "created_at", "created_by"]
    list_filter = ["kind"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # Versions are immutable: a saved prompt can be read, never edited (add a new version instead).
        return ["kind", "version", "text", "created_by", "created_at"] if obj is not None else ["created_by"]

    def save_model(self, request: HttpRequest, obj: PromptTemplate, form: Any, change: bool) -> None:
        if not change:
            obj.created_by = request.user
            super().save_model(request, obj, form, change)


@admin.register(GraderConfig)
class GraderConfigAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "model", "base_url", "concurrency", "api_key_env", "prompt"]
    list_filter = ["kind"]
    readonly_fields = ["structured_output_rejected", "created_at", "updated_at"]


class GradingChunkInline(admin.TabularInline):
    model = GradingChunk
    fields = ["index", "status", "claimed_by", "claims", "heartbeat_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False


@admin.register(GradingJob)
class GradingJobAdmin(admin.ModelAdmin):
    list_display = ["pk", "config", "selection_label", "status", "done", "total", "invalid", "failed", "created_at"]
    list_filter = ["status"]
    inlines = [GradingChunkInline]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # Jobs change only through their services (start, cancel, resume); the admin shows them.
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


# Grader output, imported or made by jobs: browsable, never edited.


@admin.register(GraderRun)
class GraderRunAdmin(ReadOnlyAdmin):
    list_display = ["name", "kind", "grader_model", "prompt_version", "release", "created_at"]
    list_filter = ["kind", "grader_model"]
    search_fields = ["name", "grader_model"]
    list_select_related = ["release__dataset"]


@admin.register(GraderDecision)
class GraderDecisionAdmin(ReadOnlyAdmin):
    list_display = ["run", "response", "criterion", "verdict", "created_at"]
    list_filter = ["verdict", "run"]
    search_fields = ["response__revision__case__external_id", "criterion__text", "reasoning"]
    list_select_related = ["run", "response__revision__case__dataset", "criterion"]


@admin.register(JudgeScore)
class JudgeScoreAdmin(ReadOnlyAdmin):
    list_display = ["run", "response", "axis", "status", "raw_score", "normalized_score"]
    list_filter = ["status", "axis", "run"]
    search_fields = ["response__revision__case__external_id"]
    list_select_related = ["run", "response__revision__case__dataset"]


@admin.register(PairwiseJudgement)
class PairwiseJudgementAdmin(ReadOnlyAdmin):
    list_display = ["run", "response_a", "response_b", "order", "verdict"]
    list_filter = ["verdict", "order", "run"]
    list_select_related = ["run", "response_a__revision__case__dataset", "response_b__revision__case__dataset"]


@admin.register(TranslationJob)
class TranslationJobAdmin(ReadOnlyAdmin):
    """Machine-translation jobs (`manage.py translate_cases`); the key is never stored, only its variable."""

    list_display = ["pk", "selection_label", "language", "model", "status", "done", "total", "invalid", "failed",
                    "created_at"]
    list_filter = ["status", "language"]
