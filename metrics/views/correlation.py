"""Correlation dashboards: how well each stored measure setting agrees with a human source.

Thin views: selectors give plain data (cached per human-score fingerprint and stored results),
``metrics.charts.correlation`` turns it into figures. Admins and viewers see them; judges never
do (scores would bias their judgments).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from evaltrans.roles import browser_required, is_admin
from judging.humanscores.models import JudgmentSet
from judging.humanscores.selectors import SOURCE_KINDS, HumanSource, human_source_get
from judging.models import Campaign
from metrics.charts import correlation as charts
from metrics.core import METRICS
from metrics.core.correlation import COEFFICIENTS, GROUPINGS
from metrics.correlation_exports import correlation_csv, correlation_latex, scatter_csv
from metrics.measure_choices import RunError
from metrics.models import MetricRun
from metrics.selectors import combination as combination_selectors
from metrics.selectors import correlation as selectors
from metrics.selectors import scatter as scatter_selectors
from metrics.selectors import sweep as sweep_selectors
from metrics.selectors.correlation import AGGREGATIONS, LEVELS, MetaEvaluationError
from metrics.selectors.preferences import SEGMENT_COEFFICIENTS, correlation_aspects
from metrics.services.sweeps import sweep_run_start

DOWNLOAD_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
    "tex": "text/x-tex; charset=utf-8",
}


def _source(kind: str, pk: int) -> HumanSource:
    if kind not in SOURCE_KINDS:
        raise Http404("unknown kind of human scores")
    try:
        return human_source_get(kind=kind, pk=pk)
    except (JudgmentSet.DoesNotExist, Campaign.DoesNotExist):
        raise Http404("no such judgment set or campaign") from None


def _choice(request: HttpRequest, name: str, choices: Any, default: str) -> str:
    value = request.GET.get(name, default)
    return value if value in choices else default


def _default_coefficient(source: HumanSource) -> str:
    """Pearson, or for a ranking campaign the one coefficient its segment level has."""
    return SEGMENT_COEFFICIENTS[0] if source.is_ranking else "pearson"


def _matrix_options(request: HttpRequest, source: HumanSource) -> dict[str, Any]:
    return {
        "coefficient": _choice(request, "coefficient", COEFFICIENTS, _default_coefficient(source)),
        "grouping": _choice(request, "grouping", GROUPINGS, "none"),
        "aggregation": _choice(request, "aggregation", AGGREGATIONS, "corpus"),
        "significance": request.GET.get("significance", "auto"),
    }


@browser_required
@require_GET
def correlation_index(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "metrics/correlation_index.html",
        {"sources": selectors.correlatable_sources()},
    )


@browser_required
@require_GET
def correlation_matrix(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    options = _matrix_options(request, source)
    context: dict[str, Any] = {
        "source": source,
        "options": options,
        "coefficients": COEFFICIENTS,
        "groupings": GROUPINGS,
        "aggregations": AGGREGATIONS,
        "live": kind == "campaign",
    }
    try:
        matrix = selectors.cached_correlation_matrix(source=source, **options)
    except MetaEvaluationError as error:
        context["error"] = str(error)
        return render(request, "metrics/correlation_matrix.html", context)
    data = selectors.matrix_display(matrix)
    context.update(matrix=matrix, table=data, figure=charts.matrix_figure(data))
    template = "metrics/_correlation_matrix_body.html" if request.GET.get("partial") else None
    return render(request, template or "metrics/correlation_matrix.html", context)


@browser_required
@require_GET
def correlation_matrix_download(
    request: HttpRequest, kind: str, pk: int, file_format: str
) -> HttpResponse:
    if file_format not in DOWNLOAD_TYPES:
        raise Http404("unknown download format")
    source = _source(kind, pk)
    options = _matrix_options(request, source)
    try:
        matrix = selectors.cached_correlation_matrix(source=source, **options)
    except MetaEvaluationError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    if file_format == "json":
        body = json.dumps(matrix.as_dict(), indent=2)
    elif file_format == "csv":
        body = correlation_csv(matrix)
    else:
        body = correlation_latex(matrix)
    response = HttpResponse(body, content_type=DOWNLOAD_TYPES[file_format])
    name = f"correlation-{kind}-{pk}-{options['coefficient']}.{file_format}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@browser_required
@require_GET
def correlation_state(request: HttpRequest, kind: str, pk: int) -> JsonResponse:
    """What the live dashboards poll: a change of fingerprint means new judgments."""
    source = _source(kind, pk)
    return JsonResponse({"fingerprint": source.fingerprint, "judgments": len(source.records)})


def _scatter_request(
    request: HttpRequest, source: HumanSource, default_signature: str = ""
) -> scatter_selectors.ScatterRequest:
    aspects = correlation_aspects(source)
    return scatter_selectors.ScatterRequest(
        signature=request.GET.get("signature") or default_signature,
        aspect=_choice(request, "aspect", aspects, aspects[0] if aspects else ""),
        view=_choice(request, "view", ("raw", "normalized"), "raw"),
        aggregation=_choice(request, "aggregation", AGGREGATIONS, "corpus"),
    )


@browser_required
@require_GET
def correlation_scatter(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    measures = selectors.stored_measures(source=source)
    scatter_request = _scatter_request(request, source, measures[0].signature if measures else "")
    level = _choice(request, "level", LEVELS, "system")
    context: dict[str, Any] = {
        "measures": measures,
        "source": source,
        "request_options": scatter_request,
        "level": level,
        "aggregations": AGGREGATIONS,
        "live": kind == "campaign",
        "system_filter": request.GET.get("system", ""),
    }
    try:
        page = scatter_selectors.scatter_page(
            source=source, request=scatter_request, level=level, system=context["system_filter"]
        )
    except MetaEvaluationError as error:
        context["error"] = str(error)
        return render(request, "metrics/correlation_scatter.html", context)
    context.update(page=page)
    if level == "system":
        context["figure"] = charts.system_scatter_figure(page["scatter"])
        context["ranking_figure"] = charts.ranking_slope_figure(page["rankings"])
    else:
        context["figure"] = charts.segment_scatter_figure(page["scatter"])
    return render(request, "metrics/correlation_scatter.html", context)


@browser_required
@require_GET
def correlation_scatter_download(
    request: HttpRequest, kind: str, pk: int, file_format: str
) -> HttpResponse:
    if file_format not in ("csv", "json"):
        raise Http404("unknown download format")
    source = _source(kind, pk)
    measures = selectors.stored_measures(source=source)
    scatter_request = _scatter_request(request, source, measures[0].signature if measures else "")
    level = _choice(request, "level", LEVELS, "system")
    try:
        page = scatter_selectors.scatter_page(source=source, request=scatter_request, level=level)
    except MetaEvaluationError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    if file_format == "json":
        body = json.dumps(scatter_selectors.scatter_numbers(page), indent=2)
    else:
        body = scatter_csv(scatter_selectors.scatter_numbers(page))
    response = HttpResponse(body, content_type=DOWNLOAD_TYPES[file_format])
    response["Content-Disposition"] = (
        f'attachment; filename="scatter-{kind}-{pk}-{level}.{file_format}"'
    )
    return response


def _column_options(request: HttpRequest, source: HumanSource) -> dict[str, str]:
    aspects = correlation_aspects(source)
    return {
        "aspect": _choice(request, "aspect", aspects, aspects[0] if aspects else ""),
        "view": _choice(request, "view", ("raw", "normalized"), "raw"),
        "level": _choice(request, "level", LEVELS, "segment"),
        "aggregation": _choice(request, "aggregation", AGGREGATIONS, "corpus"),
    }


@browser_required
@require_http_methods(["GET", "POST"])
def correlation_sweep(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """One option of one measure, every value: computed where missing (admins start the run),
    correlated with one human column, plotted with intervals."""
    source = _source(kind, pk)
    params = request.POST if request.method == "POST" else request.GET
    measure = params.get("measure") if params.get("measure") in METRICS else "bleu"
    options = list(sweep_selectors.sweepable_options(measure))
    option = params.get("option") if params.get("option") in options else options[0]
    values = [v for v in params.get("values", "").split(",") if v.strip()]
    columns = _column_options(request, source)
    context: dict[str, Any] = {
        "source": source,
        "measure": measure,
        "option": option,
        "measure_options": {name: sweep_selectors.sweepable_options(name) for name in METRICS},
        "values_text": ",".join(values),
        "columns": columns,
        "coefficient": _choice(request, "coefficient", COEFFICIENTS, _default_coefficient(source)),
        "grouping": _choice(request, "grouping", GROUPINGS, "none"),
        "coefficients": COEFFICIENTS,
        "groupings": GROUPINGS,
        "run": None,
        "live": kind == "campaign",
    }
    if request.method == "POST":
        if not is_admin(request.user):
            raise PermissionDenied
        try:
            run = sweep_run_start(
                source=source, measure=measure, option=option, values=values, user=request.user
            )
        except (MetaEvaluationError, RunError) as error:
            messages.error(request, str(error))
            return redirect(request.get_full_path())
        query = request.GET.copy()
        query.update({"measure": measure, "option": option, "run": str(run.pk)})
        if values:
            query["values"] = ",".join(values)
        return redirect(f"{request.path}?{query.urlencode()}")
    run_id = request.GET.get("run", "")
    if run_id.isdigit():
        context["run"] = MetricRun.objects.filter(pk=int(run_id)).first()
    try:
        data = sweep_selectors.sweep(
            source=source,
            measure=measure,
            option=option,
            values=values,
            aspect=columns["aspect"],
            view=columns["view"],
            level=columns["level"],
            grouping=context["grouping"],
            coefficient=context["coefficient"],
            aggregation=columns["aggregation"],
        )
    except MetaEvaluationError as error:
        context["error"] = str(error)
        return render(request, "metrics/correlation_sweep.html", context)
    if request.GET.get("format") == "json":
        return _json_download(sweep_selectors.sweep_numbers(data), f"sweep-{measure}-{option}")
    context.update(data=data, figure=charts.sweep_figure(data, context["coefficient"]))
    return render(request, "metrics/correlation_sweep.html", context)


def _json_download(data: dict[str, Any], name: str) -> HttpResponse:
    response = HttpResponse(json.dumps(data, indent=2), content_type=DOWNLOAD_TYPES["json"])
    response["Content-Disposition"] = f'attachment; filename="{name}.json"'
    return response


@browser_required
@require_GET
def correlation_combination(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    columns = _column_options(request, source)
    chosen = request.GET.getlist("signature")
    context: dict[str, Any] = {
        "source": source,
        "columns": columns,
        "measures": selectors.stored_measures(source=source),
        "chosen": chosen,
        "live": kind == "campaign",
    }
    if chosen:
        try:
            data = combination_selectors.combination(
                source=source,
                signatures=chosen,
                aspect=columns["aspect"],
                view=columns["view"],
                level=columns["level"],
                aggregation=columns["aggregation"],
            )
        except MetaEvaluationError as error:
            context["error"] = str(error)
        else:
            if request.GET.get("format") == "json":
                return _json_download(data, "combination")
            context["data"] = data
            if data["curve"]:
                context["figure"] = charts.combination_curve_figure(data)
    return render(request, "metrics/correlation_combination.html", context)
