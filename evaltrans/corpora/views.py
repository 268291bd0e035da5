"""Corpus pages: thin views over selectors (reads) and services (writes)."""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path

from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from evaltrans.roles import admin_required, browser_required, can_browse, is_judge

from .formats import FORMATS
from .formats.base import CorpusFormatError
from .forms import CorpusImportForm
from .models import TestSet
from .parsing import CorpusInputError, parse_corpus
from .selectors import testset_list, testset_reference_labels, testset_segment_page
from .services import CorpusImportError, testset_export, testset_import


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
    page, rows = testset_segment_page(
        test_set=test_set, query=query, systems=shown, page_number=request.GET.get("page", 1)
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
        "rows": rows,
    }
    return render(request, "corpora/test_set_detail.html", context)


@admin_required
@require_http_methods(["GET", "POST"])
def test_set_import(request: HttpRequest) -> HttpResponse:
    form = CorpusImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            corpus = parse_corpus(form.cleaned_data["format"], form.corpus_inputs())
            result = testset_import(
                corpus=corpus,
                name=form.cleaned_data["name"],
                import_format=form.cleaned_data["format"],
                user=request.user,
            )
        except (CorpusFormatError, CorpusInputError, CorpusImportError) as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, result.summary)
            return redirect(result.test_set)
    return render(request, "corpora/test_set_import.html", {"form": form})


@admin_required
@require_GET
def test_set_export(request: HttpRequest, pk: int, export_format: str) -> HttpResponse:
    test_set = get_object_or_404(TestSet, pk=pk)
    if export_format not in FORMATS or FORMATS[export_format].write is None:
        raise Http404("unknown export format")
    buffer = io.BytesIO()
    with tempfile.TemporaryDirectory() as folder:
        out_dir = Path(folder)
        files = testset_export(test_set=test_set, export_format=export_format, out_dir=out_dir)
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, path.relative_to(out_dir).as_posix())
    buffer.seek(0)
    filename = f"{test_set.name}-v{test_set.version}-{export_format}.zip"
    return FileResponse(buffer, as_attachment=True, filename=filename)
