"""Run downloads: the EvalTrans XML report and the results table as JSON or CSV.

Viewers and admins may download, as they may browse results (see ``metrics.views.runs``).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from evaltrans.roles import browser_required
from metrics.models import MetricRun
from metrics.reports import report_xml, results_csv, results_json
from metrics.selectors.reports import run_report_data
from metrics.selectors.runs import run_results


@browser_required
@require_GET
def run_download(request: HttpRequest, pk: int, file_format: str) -> HttpResponse:
    run = get_object_or_404(MetricRun.objects.select_related("test_set", "created_by"), pk=pk)
    stem = f"run-{run.pk}-{run.test_set.name}-v{run.test_set.version}"
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)
    if file_format == "xml":
        detail = request.GET.get("sentences") == "1"
        data = run_report_data(run=run, sentences_in_detail=detail, include_sentences=detail)
        body, content_type = report_xml(data), "application/xml; charset=utf-8"
    elif file_format == "json":
        body = results_json(
            run_id=run.pk,
            test_set_name=run.test_set.name,
            test_set_version=run.test_set.version,
            test_set_hash=run.test_set.content_hash,
            status=run.status,
            records=run_results(run=run).as_records(),
        )
        content_type = "application/json; charset=utf-8"
    elif file_format == "csv":
        body = results_csv(run_results(run=run).as_records())
        content_type = "text/csv; charset=utf-8"
    else:
        raise Http404("unknown format")
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{stem}.{file_format}"'
    return response
