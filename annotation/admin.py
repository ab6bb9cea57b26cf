"""Physician review in the Django admin (accounts and their Profile: accounts/admin.py).

Ratings, review events, inspections and final labels are the audit trail: readable, never editable.
Assignments, items and a study's status are review state: they change only through the services,
which write the events that explain each change (issue 22: an admin edit here wrote none).
"""

from django.contrib import admin

from annotation.models import (
    Assignment,
    Curation,
    FinalLabel,
    Inspection,
    Item,
    Rating,
    ReviewEvent,
    Scale,
    ScaleCategory,
    Study,
    StudyMember,
    TaskType,
)
from medreview.admin import ReadOnlyAdmin


class ScaleCategoryInline(admin.TabularInline):
    model = ScaleCategory
    extra = 0


@admin.register(Scale)
class ScaleAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "ordered"]
    inlines = [ScaleCategoryInline]


@admin.register(TaskType)
class TaskTypeAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "target", "item_kind", "scale", "requires_explanation", "order"]
    list_filter = ["target", "item_kind"]


class StudyMemberInline(admin.TabularInline):
    model = StudyMember
    extra = 0
    autocomplete_fields = ["user"]


@admin.register(Study)
class StudyAdmin(admin.ModelAdmin):
    list_display = ["name", "status", "raters_per_item", "inspect_all", "inspect_disagreements", "inspect_share",
                    "deadline", "created_at"]
    list_filter = ["status"]
    search_fields = ["name"]
    filter_horizontal = ["tasks"]
    inlines = [StudyMemberInline]
    # status: started and closed through the study page (services that write the events).
    readonly_fields = ["status", "seed", "selection", "created_by", "created_at"]
    # hourly_rate and currency (effort and cost, docs/curation.md) are editable here like the rest.


@admin.register(Item)
class ItemAdmin(ReadOnlyAdmin):
    list_display = ["key", "study", "kind", "status", "sampled_for_inspection"]
    list_filter = ["status", "kind", "study"]
    search_fields = ["key"]
    list_select_related = ["study"]
    raw_id_fields = ["revision", "response", "response_b", "question_set"]


@admin.register(Assignment)
class AssignmentAdmin(ReadOnlyAdmin):
    list_display = ["pk", "item", "rater", "state", "round", "lease_expires_at", "submitted_at"]
    list_filter = ["state", "item__study"]
    list_select_related = ["item", "rater"]
    raw_id_fields = ["item", "rater"]
    readonly_fields = ["draft", "draft_saved_at", "claimed_at", "submitted_at", "seconds_spent", "pair_order"]


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["assignment", "task", "field_key", "round", "label", "seconds_spent", "created_at"]
    list_filter = ["task", "round"]
    list_select_related = ["assignment", "task"]


@admin.register(ReviewEvent)
class ReviewEventAdmin(ReadOnlyAdmin):
    # Append-only (the model refuses too): no add, change or delete, hence no "delete selected" either.
    list_display = ["study", "seq", "created_at", "kind", "item", "actor", "reason", "hash"]
    list_filter = ["kind"]
    list_select_related = ["study", "item", "actor"]


@admin.register(Inspection)
class InspectionAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "action", "item", "inspector", "comment"]
    list_filter = ["action"]
    list_select_related = ["item", "inspector"]


@admin.register(FinalLabel)
class FinalLabelAdmin(ReadOnlyAdmin):
    list_display = ["item", "task", "field_key", "label", "source", "decided_by", "created_at"]
    list_filter = ["source", "task"]
    list_select_related = ["item", "task", "decided_by"]


@admin.register(Curation)
class CurationAdmin(ReadOnlyAdmin):
    """Curations are made on the Curations page (annotation:curation_list); here they are read."""

    list_display = ["name", "release", "format", "created_by", "created_at"]
    list_select_related = ["release__dataset", "created_by"]
    search_fields = ["name"]
