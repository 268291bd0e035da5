"""The "import metric scores" page: scores of a measure computed elsewhere, admins only.

Thin: the form checks the fields, ``external_scores_import`` parses and stores; bad input is
shown above the form (escaped) and stores nothing; success returns to the correlation index.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from evaltrans.corpora.formats.base import CorpusFormatError
from evaltrans.roles import admin_required
from metrics.external_scores import ExternalScoresError
from metrics.forms_external import ExternalScoresForm
from metrics.services.external import external_scores_import


@admin_required
@require_http_methods(["GET", "POST"])
def import_scores(request: HttpRequest) -> HttpResponse:
    form = ExternalScoresForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = external_scores_import(
                test_set=form.cleaned_data["test_set"],
                name=form.cleaned_data["name"],
                declared_signature=form.cleaned_data["signature"],
                higher_is_better=form.higher_is_better,
                seg_file=form.upload("seg_file"),
                sys_file=form.upload("sys_file"),
                tsv_file=form.upload("tsv_file"),
                user=request.user,
            )
        except (CorpusFormatError, ExternalScoresError) as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, result.summary)
            return redirect("correlation:index")
    context = {"form": form, "max_bytes": settings.CORPUS_UPLOAD_MAX_BYTES}
    return render(request, "metrics/import_scores.html", context)
