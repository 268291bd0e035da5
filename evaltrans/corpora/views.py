"""Corpus pages: thin views over selectors (reads) and services (writes)."""

from __future__ import annotations

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from evaltrans.roles import admin_required, browser_required, can_browse, is_judge

from .formats import FORMATS
from .formats.base import CorpusFormatError
from .forms import CorpusImportForm
from .import_jobs import corpus_import_create, corpus_import_start
from .models import CorpusImport, TestSet
from .selectors import (
    corpus_import_progress,
    corpus_imports_recent,
    testset_list,
    testset_reference_labels,
    testset_segment_page,
)
from .services import CorpusImportError, testset_export_archive

EXPORT_REFUSED = "This test set cannot be exported as {format}: {error}"
EXPORT_BLOCK_BYTES = 64 * 1024


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    if can_browse(request.user):
        return redirect("corpora:test_set_list")
    if is_judge(request.user):
        return redirect("judging:my_assignments")
    return render(request, "corpora/no_role_home.html")


@browser_required
@require_GET
def test_set_list(request: HttpRequest) -> HttpResponse:
    return render(request, "corpora/test_set_list.html", {"test_sets": testset_list()})


@browser_required
@require_GET
def test_set_detail(request: HttpRequest, pk: int) -> HttpResponse:
    test_set = get_object_or_404(TestSet, pk=pk)
    all_systems = list(test_set.systems.all())
    chosen_names = request.GET.getlist("system")
    shown = [system for system in all_systems if system.name in chosen_names] or all_systems
    query = request.GET.get("q", "").strip()
    page = testset_segment_page(
        test_set=test_set,
        query=query,
        systems=shown,
        page_number=request.GET.get("page", 1),
        after=_cursor(request.GET.get("after")),
        before=_cursor(request.GET.get("before")),
    )
    context = {
        "test_set": test_set,
        "systems": all_systems,
        "shown_names": {system.name for system in shown} if chosen_names else set(),
        "reference_labels": testset_reference_labels(test_set=test_set),
        "other_versions": TestSet.objects.filter(name=test_set.name).exclude(pk=pk),
        "export_formats": [name for name, spec in FORMATS.items() if spec.write is not None],
        "query": query,
        "page": page,
        "rows": page.rows,
    }
    return render(request, "corpora/test_set_detail.html", context)


def _cursor(value: str | None) -> int | None:
    """A keyset cursor of the browser (a segment index), or None when absent or not a number."""
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


@admin_required
@require_http_methods(["GET", "POST"])
def test_set_import(request: HttpRequest) -> HttpResponse:
    """Small uploads are imported in the request; large ones by a worker, with a progress page
    (``import_jobs``: the same service does the work in both cases)."""
    form = CorpusImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        job = corpus_import_create(
            name=form.cleaned_data["name"],
            import_format=form.cleaned_data["format"],
            options=form.options(),
            uploads=form.uploads(),
            user=request.user,
        )
        job = corpus_import_start(corpus_import=job)
        if job.background:
            return redirect(job)
        if job.status == CorpusImport.Status.DONE:
            messages.success(request, job.message)
            return redirect(job.test_set)
        form.add_error(None, job.message)
    context = {"form": form, "imports": corpus_imports_recent()}
    return render(request, "corpora/test_set_import.html", context)


@admin_required
@require_GET
def import_detail(request: HttpRequest, pk: int) -> HttpResponse:
    job = get_object_or_404(CorpusImport.objects.select_related("test_set", "created_by"), pk=pk)
    progress = corpus_import_progress(corpus_import=job)
    context = {"job": job, "progress": progress, "progress_data": progress}
    return render(request, "corpora/import_detail.html", context)


@admin_required
@require_GET
def import_progress(request: HttpRequest, pk: int) -> JsonResponse:
    job = get_object_or_404(CorpusImport.objects.select_related("test_set"), pk=pk)
    return JsonResponse(corpus_import_progress(corpus_import=job))


@admin_required
@require_GET
def test_set_export(request: HttpRequest, pk: int, export_format: str) -> HttpResponse:
    """A zip of the export, streamed from a temporary file; a corpus the format cannot hold
    is refused with a message on the test set page before anything is sent."""
    test_set = get_object_or_404(TestSet, pk=pk)
    if export_format not in FORMATS or FORMATS[export_format].write is None:
        raise Http404("unknown export format")
    try:
        archive = testset_export_archive(test_set=test_set, export_format=export_format)
    except (CorpusFormatError, CorpusImportError) as error:
        messages.error(request, EXPORT_REFUSED.format(format=export_format, error=error))
        return redirect(test_set)
    filename = f"{test_set.name}-v{test_set.version}-{export_format}.zip"
    response = FileResponse(archive, as_attachment=True, filename=filename)
    response.block_size = EXPORT_BLOCK_BYTES
    return response
