"""Django admin for judging: read-mostly views of campaigns and their judgments."""

from django.contrib import admin

from .models import Aspect, Assignment, Campaign, Judgment, JudgmentRevision


class AspectInline(admin.TabularInline):
    model = Aspect
    extra = 0


@admin.register(Campaign)
class CampaignAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "protocol",
        "test_set",
        "status",
        "judges_per_item",
        "presentation",
        "created_at",
    ]
    list_filter = ["protocol", "status", "presentation"]
    search_fields = ["name"]
    inlines = [AspectInline]
    # Items and assignments come from campaign_create; editing these would break them.
    readonly_fields = [
        "protocol",
        "test_set",
        "seed",
        "judges_per_item",
        "reference_as_system",
        "bad_reference_share",
    ]
    filter_horizontal = ["systems", "judges"]


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    list_display = ["campaign", "judge", "created_at"]
    list_filter = ["campaign"]
    raw_id_fields = ["judge"]


class RevisionInline(admin.TabularInline):
    model = JudgmentRevision
    extra = 0
    readonly_fields = ["score", "active_ms", "judged_at", "replaced_at", "superseded"]


@admin.register(Judgment)
class JudgmentAdmin(admin.ModelAdmin):
    list_display = ["assigned_item", "aspect", "score", "active_ms", "revision_count", "updated_at"]
    list_filter = ["aspect__campaign", "aspect__name"]
    raw_id_fields = ["assigned_item"]
    readonly_fields = ["created_at", "updated_at", "submission_token"]
    inlines = [RevisionInline]
