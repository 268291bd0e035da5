"""Admin pages of judgment sets (read mostly: imports go through import_judgments)."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import ExternalJudgment, JudgmentSet, judgments_changed


@admin.register(JudgmentSet)
class JudgmentSetAdmin(admin.ModelAdmin):
    list_display = ["name", "source_format", "test_set", "created_at"]
    list_filter = ["source_format"]
    search_fields = ["name", "file_name"]
    raw_id_fields = ["test_set", "created_by"]


@admin.register(ExternalJudgment)
class ExternalJudgmentAdmin(admin.ModelAdmin):
    list_display = ["judgment_set", "system", "segment_key", "judge", "aspect", "raw", "kind"]
    list_filter = ["judgment_set", "kind", "aspect"]
    search_fields = ["system", "judge", "segment_key"]
    raw_id_fields = ["judgment_set", "segment"]

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ExternalJudgment]) -> None:
        # A bulk delete skips the model's delete(): the sets' revisions are raised here.
        sets = set(queryset.values_list("judgment_set_id", flat=True))
        super().delete_queryset(request, queryset)
        judgments_changed(sets)
