"""Human-score pages: judgment sets and campaigns, the judge-bias, agreement and ranking panels,
and the judgments import.

Thin views: a selector gives plain data, ``charts`` turns it into figures. Admins and viewers
only (``browser_required``); judges get 403, as they must not see others' scores. Importing is
for admins only (``admin_required``).
"""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from evaltrans.corpora.formats.base import CorpusFormatError
from evaltrans.plotting import system_colors
from evaltrans.roles import admin_required, browser_required
from judging.models import Campaign
from judging.selectors import ranking_wins_panel
from metrics.core.human_scores import HumanScoresError

from . import charts
from .forms import JudgmentImportForm
from .models import JudgmentSet
from .selectors import (
    SOURCE_KINDS,
    HumanSource,
    agreement_panel,
    human_source_get,
    human_source_list,
    judge_bias_panel,
    judge_judgments,
    link_judgments_to_segments,
    ranking_panel,
    ranking_rows,
)
from .services import JudgmentImportError, judgmentset_import_file

VIEWS = ("raw", "normalized")
JUDGMENTS_PER_PAGE = 100
JUDGES_PER_PAGE = 200


def _source(kind: str, pk: int) -> HumanSource:
    if kind not in SOURCE_KINDS:
        raise Http404("unknown kind of judgment source")
    try:
        return human_source_get(kind=kind, pk=pk)
    except (JudgmentSet.DoesNotExist, Campaign.DoesNotExist):
        raise Http404("no such judgment set or campaign") from None


def _ranking_campaign(request: HttpRequest, source: HumanSource, tab: str) -> HttpResponse:
    """The three panels of a relative-ranking campaign: Expected Wins and the win table, the
    judges' share and ties, the agreement on pairs (its ranks are no absolute scores)."""
    campaign = Campaign.objects.select_related("test_set").get(pk=source.pk)
    context = {
        "source": source,
        "campaign": campaign,
        "tab": tab,
        "panel": ranking_wins_panel(campaign=campaign),
    }
    return render(request, "judging/ranking_scores.html", context)


def _choice(request: HttpRequest, name: str, choices: list[str], default: str) -> str:
    value = request.GET.get(name, "")
    return value if value in choices else default


def _context(request: HttpRequest, source: HumanSource, tab: str, aspects: list[str]):
    aspect = _choice(request, "aspect", aspects, aspects[0] if aspects else "")
    view = _choice(request, "view", list(VIEWS), "raw")
    return {
        "source": source,
        "tab": tab,
        "aspects": aspects,
        "aspect": aspect,
        "view": view,
    }


@browser_required
@require_GET
def source_list(request: HttpRequest) -> HttpResponse:
    return render(request, "humanscores/source_list.html", {"sources": human_source_list()})


@admin_required
@require_http_methods(["GET", "POST"])
def judgment_set_import(request: HttpRequest) -> HttpResponse:
    form = JudgmentImportForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            result = judgmentset_import_file(
                import_format=form.cleaned_data["format"],
                file=form.judgments_file(),
                name=form.cleaned_data["name"],
                test_set=form.cleaned_data["test_set"],
                judge_stats=form.judge_stats_file(),
                user=request.user,
            )
        except (CorpusFormatError, JudgmentImportError) as error:
            form.add_error(None, str(error))
        else:
            # The summary ends with the attachment note: a warning when the test set asked
            # for was refused, as the import command prints it; the panels style it as their
            # notices.
            if result.attachment_refused:
                messages.warning(request, result.summary)
            else:
                messages.success(request, result.summary)
            return redirect(result.judgment_set)
    context = {"form": form, "max_bytes": settings.CORPUS_UPLOAD_MAX_BYTES}
    return render(request, "humanscores/import.html", context)


@browser_required
@require_GET
def judge_bias(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    if source.is_ranking:
        return _ranking_campaign(request, source, "judges")
    context = _context(request, source, "judges", source.aspects)
    if not source.records:
        return render(request, "humanscores/judge_bias.html", context)
    panel = judge_bias_panel(source=source, aspect=context["aspect"])
    base = reverse("humanscores:judge_detail", args=[kind, pk])
    links = [
        f"{base}?{urlencode({'judge': row['judge'], 'aspect': context['aspect']})}"
        for row in panel["judges"]
    ]
    # A WMT year has thousands of judges: the figures show them all, the table a page.
    page = Paginator(list(zip(panel["judges"], links, strict=True)), JUDGES_PER_PAGE).get_page(
        request.GET.get("page", 1)
    )
    context.update(
        panel=panel,
        figure_levels=charts.judge_levels_figure(panel) if panel["has_raw"] else None,
        figure_z=charts.judge_z_figure(panel),
        judge_links=links,
        page=page,
        pager_query=urlencode({"aspect": context["aspect"], "view": context["view"]}),
    )
    if not panel["has_raw"]:
        context["view"] = "normalized"
    return render(request, "humanscores/judge_bias.html", context)


@browser_required
@require_GET
def judge_detail(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    judge = request.GET.get("judge", "")
    rows = judge_judgments(source=source, judge=judge)
    if not rows:
        raise Http404("no such judge in this set")
    aspect = _choice(request, "aspect", source.aspects, "")
    if aspect:
        rows = [row for row in rows if row["aspect"] == aspect]
    page = Paginator(rows, JUDGMENTS_PER_PAGE).get_page(request.GET.get("page", 1))
    link_judgments_to_segments(source=source, rows=page.object_list)
    context = _context(request, source, "judges", source.aspects)
    context.update(
        judge=judge,
        page=page,
        aspect=aspect,
        total=len(rows),
        pager_query=urlencode({"judge": judge, "aspect": aspect}),
    )
    return render(request, "humanscores/judge_detail.html", context)


@browser_required
@require_GET
def agreement(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    if source.is_ranking:
        return _ranking_campaign(request, source, "agreement")
    context = _context(request, source, "agreement", source.aspects)
    # MQM/ESA campaigns: the judges' agreement on the error spans themselves, beside the
    # agreement on their scores (the campaign page's figure, the same function).
    context["span_agreement"] = source.span_agreement
    if not source.records:
        return render(request, "humanscores/agreement.html", context)
    unit = request.GET.get("unit") if request.GET.get("unit") in ("candidate", "system") else None
    panel = agreement_panel(source=source, aspect=context["aspect"], unit=unit)
    result = panel["agreement"]
    figures = {
        name: charts.agreement_figure(
            result.judges,
            matrix,
            result.n_common,
            aspect=context["aspect"],
            normalized=name == "normalized",
            unit=result.unit,
        )
        for name, matrix in (("raw", result.r_raw), ("normalized", result.r_normalized))
        if result.r_normalized  # none beyond analysis.MAX_MATRIX_JUDGES judges
    }
    if not panel["has_raw"]:
        context["view"] = "normalized"
    context.update(panel=panel, result=result, figures=figures, unit=result.unit)
    return render(request, "humanscores/agreement.html", context)


@browser_required
@require_GET
def ranking(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    source = _source(kind, pk)
    if source.is_ranking:
        return _ranking_campaign(request, source, "ranking")
    context = _context(request, source, "ranking", source.score_aspects)
    weightings = ["reference", "none"] if source.test_set is not None else ["none"]
    weighting = _choice(request, "weighting", weightings, source.default_weighting)
    context.update(weightings=weightings, weighting=weighting)
    if not source.records:
        return render(request, "humanscores/ranking.html", context)
    try:
        panel = ranking_panel(source=source, aspect=context["aspect"], weighting=weighting)
    except HumanScoresError as error:
        context["error"] = str(error)
        return render(request, "humanscores/ranking.html", context)
    scores = panel["scores"]
    colors = system_colors([row.system for row in scores.systems])
    views = {}
    for name in VIEWS:
        rows = ranking_rows(scores.systems, name, panel[f"tests_{name}"])
        if not rows:
            continue
        order = [row["system"] for row in rows]
        views[name] = {
            "rows": rows,
            "figure": charts.ranking_figure(
                rows, aspect=context["aspect"], normalized=name == "normalized", colors=colors
            ),
            "significance": charts.significance_figure(
                order,
                panel[f"tests_{name}"],
                aspect=context["aspect"],
                normalized=name == "normalized",
            ),
        }
    if "raw" not in views:
        context["view"] = "normalized"
    context.update(panel=panel, scores=scores, views=views, colors=colors)
    return render(request, "humanscores/ranking.html", context)
