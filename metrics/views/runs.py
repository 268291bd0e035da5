"""Run pages: list, start, progress (live), results, sentence scores, cancel.

Who may do what: admins and viewers browse runs and results; only admins start and cancel
runs (a run takes worker time, which is the admins' to spend). Judges see none of it, as
results would bias their judgments.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evaltrans.corpora.models import TestSet
from evaltrans.corpora.selectors import testset_list
from evaltrans.roles import admin_required, browser_required
from metrics.core.presets import PRESETS
from metrics.forms import RunForm, option_field_name
from metrics.measure_choices import RunError
from metrics.models import MetricRun
from metrics.selectors import runs as selectors
from metrics.selectors.correlation import correlation_sources_for
from metrics.services.dispatch import BrokerUnavailable
from metrics.services.runs import metric_run_cancel, metric_run_start

SENTENCES_PER_PAGE = 100


@browser_required
@require_GET
def run_list(request: HttpRequest) -> HttpResponse:
    test_set = None
    if request.GET.get("test_set", "").isdigit():
        test_set = get_object_or_404(TestSet, pk=int(request.GET["test_set"]))
    rows = selectors.run_list_rows(test_set=test_set)
    return render(request, "metrics/run_list.html", {"rows": rows, "test_set": test_set})


@admin_required
@require_http_methods(["GET", "POST"])
def run_create(request: HttpRequest) -> HttpResponse:
    raw = request.POST.get("test_set") or request.GET.get("test_set", "")
    if not raw.isdigit():
        return render(request, "metrics/run_pick_test_set.html", {"test_sets": testset_list()})
    test_set = get_object_or_404(TestSet, pk=int(raw))
    form = RunForm(request.POST or None, request.FILES or None, test_set=test_set)
    if request.method == "POST" and form.is_valid():
        try:
            run = metric_run_start(
                test_set=test_set,
                systems=form.cleaned_data["systems"],
                measures=form.cleaned_data["choices"],
                preset=form.cleaned_data["preset"],
                comment=form.cleaned_data["comment"],
                user=request.user,
            )
        except BrokerUnavailable as error:
            messages.error(request, str(error))
            return redirect(error.run)
        except RunError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Run {run.pk} started.")
            return redirect(run)
    preset_values = {
        name: {
            measure: {option_field_name(measure, key): value for key, value in values.items()}
            for measure, values in measures.items()
        }
        for name, measures in PRESETS.items()
    }
    context = {"form": form, "test_set": test_set, "preset_values": preset_values}
    return render(request, "metrics/run_form.html", context)


@browser_required
@require_GET
def run_detail(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(MetricRun.objects.select_related("test_set", "created_by"), pk=pk)
    progress = selectors.run_progress(run=run)
    table = selectors.run_results(run=run) if run.status == MetricRun.Status.DONE else None
    context = {
        "run": run,
        "progress": progress,
        "progress_data": progress.as_dict(),
        "table": table,
        "measures": selectors.run_measures(run=run),
        "systems": selectors.run_systems(run=run),
        "correlation_sources": correlation_sources_for(test_set=run.test_set),
    }
    return render(request, "metrics/run_detail.html", context)


@browser_required
@require_GET
def run_progress(request: HttpRequest, pk: int) -> JsonResponse:
    run = get_object_or_404(MetricRun, pk=pk)
    return JsonResponse(selectors.run_progress(run=run).as_dict())


@admin_required
@require_POST
def run_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(MetricRun, pk=pk)
    try:
        metric_run_cancel(run=run)
    except RunError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Run {run.pk} cancelled.")
    return redirect(run)


@browser_required
@require_GET
def run_sentences(request: HttpRequest, pk: int) -> HttpResponse:
    run = get_object_or_404(MetricRun.objects.select_related("test_set"), pk=pk)
    systems = selectors.run_systems(run=run)
    measures = selectors.run_measures(run=run)
    system = _pick(systems, request.GET.get("system"), "pk") or systems[0]
    measure = _pick(measures, request.GET.get("measure"), "position") or measures[0]
    order = request.GET.get("order", "index")
    rows = selectors.sentence_rows(
        test_set=run.test_set, system=system, signature=measure.signature
    )
    if order in ("score", "-score"):
        undefined = [row for row in rows if row.score is None]
        defined = sorted(
            (row for row in rows if row.score is not None),
            key=lambda row: row.score,
            reverse=order == "-score",
        )
        rows = defined + undefined
    page = Paginator(rows, SENTENCES_PER_PAGE).get_page(request.GET.get("page", 1))
    context = {
        "run": run,
        "systems": systems,
        "measures": measures,
        "system": system,
        "measure": measure,
        "order": order,
        "page": page,
        "computed": bool(rows),
    }
    return render(request, "metrics/run_sentences.html", context)


def _pick(items: list, raw: str | None, attribute: str):  # noqa: ANN202
    if raw is None or not raw.isdigit():
        return None
    return next((item for item in items if getattr(item, attribute) == int(raw)), None)
