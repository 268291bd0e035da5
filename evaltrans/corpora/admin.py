from django.contrib import admin

from .models import Candidate, CorpusImport, RawEvaluation, Reference, Segment, System, TestSet


@admin.register(TestSet)
class TestSetAdmin(admin.ModelAdmin):
    list_display = ["name", "version", "source_lang", "target_lang", "import_format", "created_at"]
    list_filter = ["source_lang", "target_lang", "import_format"]
    search_fields = ["name"]
    readonly_fields = ["content_hash", "created_at"]


@admin.register(Segment)
class SegmentAdmin(admin.ModelAdmin):
    list_display = ["test_set", "index", "doc_id", "seg_id", "source"]
    list_filter = ["test_set"]
    search_fields = ["source", "doc_id"]
    list_select_related = ["test_set"]


@admin.register(Reference)
class ReferenceAdmin(admin.ModelAdmin):
    list_display = ["segment", "label", "text"]
    search_fields = ["text"]
    raw_id_fields = ["segment"]


@admin.register(System)
class SystemAdmin(admin.ModelAdmin):
    list_display = ["name", "test_set"]
    list_filter = ["test_set"]
    search_fields = ["name"]


@admin.register(Candidate)
class CandidateAdmin(admin.ModelAdmin):
    list_display = ["system", "segment", "text"]
    list_filter = ["system__test_set"]
    search_fields = ["text", "system__name"]
    raw_id_fields = ["segment", "system"]
    list_select_related = ["system", "segment__test_set"]


@admin.register(RawEvaluation)
class RawEvaluationAdmin(admin.ModelAdmin):
    list_display = ["segment", "target_kind", "target_name", "aspect", "value"]
    raw_id_fields = ["segment"]


@admin.register(CorpusImport)
class CorpusImportAdmin(admin.ModelAdmin):
    list_display = ["name", "import_format", "status", "done", "total", "created_by", "created_at"]
    list_filter = ["status", "import_format"]
    search_fields = ["name"]
    raw_id_fields = ["test_set"]
    readonly_fields = ["files", "options", "created_at", "started_at", "finished_at"]
