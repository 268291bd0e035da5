"""Admin pages for metric runs and stored results (read-mostly: results come from workers)."""

from django.contrib import admin
from django.http import HttpRequest

from .models import MetricRun, RunMeasure, SegmentStatistics, SystemScore, WorkerHeartbeat


class RunMeasureInline(admin.TabularInline):
    model = RunMeasure
    extra = 0
    fields = ("position", "measure", "signature", "options")
    readonly_fields = fields
    can_delete = False


@admin.register(MetricRun)
class MetricRunAdmin(admin.ModelAdmin):
    list_display = ("pk", "test_set", "status", "preset", "created_by", "created_at", "finished_at")
    list_filter = ("status", "preset")
    search_fields = ("test_set__name", "comment")
    raw_id_fields = ("test_set", "created_by")
    filter_horizontal = ("systems",)
    readonly_fields = ("generation", "dispatched_at", "started_at", "finished_at")
    inlines = [RunMeasureInline]


@admin.register(SystemScore)
class SystemScoreAdmin(admin.ModelAdmin):
    list_display = ("test_set", "system", "measure", "score", "computed_at")
    list_filter = ("measure",)
    search_fields = ("system__name", "signature")
    list_select_related = ("test_set", "system")
    raw_id_fields = ("test_set", "system")


@admin.register(SegmentStatistics)
class SegmentStatisticsAdmin(admin.ModelAdmin):
    list_display = ("test_set", "system", "measure", "start", "stop", "seconds")
    list_filter = ("measure",)
    list_select_related = ("test_set", "system")
    raw_id_fields = ("test_set", "system")
    exclude = ("stats", "sentence_scores")


@admin.register(WorkerHeartbeat)
class WorkerHeartbeatAdmin(admin.ModelAdmin):
    # Written by the workers only; an admin may delete the row of a retired worker.
    list_display = ("hostname", "last_seen")
    ordering = ("-last_seen",)
    readonly_fields = ("hostname", "last_seen")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
