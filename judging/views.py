"""Judging pages: thin function views over the judging selectors and services.

A judge reaches only their own assignments: any other assignment id is a 404, for admins too
(nobody scores on someone else's behalf). Campaign set-up, progress and export are admin-only.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import tempfile
from collections.abc import Callable
from functools import wraps
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, InterfaceError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evaltrans.corpora.models import TestSet
from evaltrans.errors import RETRY_AFTER_S
from evaltrans.roles import admin_required
from evaltrans.spreadsheets import spreadsheet_safe

from .exports import (
    campaign_mqm_tsv_export,
    campaign_wmt_da_export,
    campaign_wmt_ranking_export,
)
from .forms import CampaignForm, ScreenForm
from .models import Assignment, Campaign
from .practice import Answer, PracticeError, PracticeScreen
from .selectors import (
    assignment_list_for_judge,
    assignment_progress,
    campaign_corpus,
    campaign_judgment_rows,
    campaign_list,
    campaign_practice,
    campaign_progress,
    campaign_span_agreement,
    campaign_span_judgments,
    postedit_panel,
    ranking_wins_panel,
    screen_detail,
    screen_next,
)
from .services import CampaignError, JudgingError, campaign_create, screen_submit
from .services.practice import (
    practice_answer_record,
    practice_finish,
    practice_pending,
    practice_plan_for,
    practice_screen_detail,
)

EXPORT_COLUMNS = [
    "protocol",
    "system",
    "doc_id",
    "seg_id",
    "segment_index",
    "kind",
    "text",
    "judge",
    "aspect",
    "score",
    "active_ms",
    "is_repeat",
    "reused",
    "revised",
    "created_at",
    "updated_at",
    "screen",
    "comment",
    "spans",
]
POSTEDIT_COLUMNS = ["postedit", "from_scratch"]

# Silence after which the judging page stops its clock (input activity); settings may change
# it through JUDGING_IDLE_MS.
DEFAULT_IDLE_MS = 30_000

logger = logging.getLogger(__name__)

# OperationalError (SQLite locked past its timeout, PostgreSQL gone) and IntegrityError are
# DatabaseErrors; InterfaceError (a dropped connection) is not. Each is worth retrying: the
# screen token makes a repeated submission change nothing.
DATABASE_FAULTS = (DatabaseError, InterfaceError)
SAVE_FAILED = "Could not save: the database is unavailable. The answer was not stored."


def _own_assignment(request: HttpRequest, pk: int) -> Assignment:
    return get_object_or_404(
        Assignment.objects.select_related("campaign"), pk=pk, judge_id=request.user.pk
    )


@require_GET
def my_assignments(request: HttpRequest) -> HttpResponse:
    rows = assignment_list_for_judge(judge=request.user)
    return render(request, "judging/my_assignments.html", {"rows": rows})


@require_GET
def judge_next(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = _own_assignment(request, pk)
    if practice_pending(assignment):
        return redirect("judging:practice", pk=assignment.pk)
    screen = screen_next(assignment=assignment)
    if screen is None:
        progress = assignment_progress(assignment=assignment)
        return render(
            request, "judging/done.html", {"assignment": assignment, "progress": progress}
        )
    return redirect("judging:judge_screen", pk=assignment.pk, screen=screen + 1)


def _wants_json(request: HttpRequest) -> bool:
    """The judging page's script asks for JSON; a plain form post (no script) gets pages."""
    return "application/json" in request.headers.get("Accept", "")


def _go(request: HttpRequest, url: str, *, status: int = 200) -> HttpResponse:
    # A fetch() that followed a redirect would load the next screen only to throw it away
    # and load it again; the script navigates to ``location`` itself.
    if _wants_json(request):
        return JsonResponse({"location": url}, status=status)
    return redirect(url)


def _save_failed(request: HttpRequest) -> HttpResponse:
    # No render(request, …): context processors query the database that just failed.
    if _wants_json(request):
        response: HttpResponse = JsonResponse({"error": SAVE_FAILED}, status=503)
    else:
        response = HttpResponse(render_to_string("judging/save_failed.html"), status=503)
    response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def _database_faults_answer_503(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A database fault while a screen is submitted is a 503 the page retries, not a 500."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
        if request.method != "POST":
            return view(request, *args, **kwargs)
        try:
            return view(request, *args, **kwargs)
        except DATABASE_FAULTS:
            logger.exception("judging: a screen could not be saved (%s)", request.path)
            return _save_failed(request)

    return wrapper


@require_http_methods(["GET", "POST"])
@_database_faults_answer_503
def judge_screen(request: HttpRequest, pk: int, screen: int) -> HttpResponse:
    """Screens are numbered from 1 in URLs (from 0 in the database)."""
    assignment = _own_assignment(request, pk)
    if practice_pending(assignment):
        # The practice phase comes first (required, or offered and not skipped).
        return _go(request, reverse("judging:practice", args=[assignment.pk]))
    if request.method == "POST":
        return _screen_post(request, assignment, screen)
    view = screen_detail(assignment=assignment, screen=screen - 1)
    if view is None:
        raise Http404("no such screen")
    idle_ms = getattr(settings, "JUDGING_IDLE_MS", DEFAULT_IDLE_MS)
    return render(request, "judging/screen.html", {"screen": view, "idle_ms": idle_ms})


def _screen_post(request: HttpRequest, assignment: Assignment, screen: int) -> HttpResponse:
    here = reverse("judging:judge_screen", args=[assignment.pk, screen])
    form = ScreenForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The page sent an incomplete form; score again.")
        return _go(request, here, status=400)
    try:
        screen_submit(
            assignment=assignment,
            screen=screen - 1,
            scores=form.scores(),
            active_ms=form.cleaned_data["active_ms"],
            token=form.cleaned_data["token"],
            spans=form.spans(),
            postedits=form.postedits(),
            comments=form.comments(),
        )
    except JudgingError as error:
        messages.error(request, str(error))
        return _go(request, here, status=400)
    # Straight to the next open screen: one request less per answer than via judge_next.
    following = screen_next(assignment=assignment)
    if following is None:
        return _go(request, reverse("judging:judge_next", args=[assignment.pk]))
    return _go(request, reverse("judging:judge_screen", args=[assignment.pk, following + 1]))


# ---------------------------------------------------------------- practice phase


@require_GET
def practice_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The first practice screen not yet answered; the real items when there is none (the
    phase done, skipped, off, or no practice screen in the campaign's data)."""
    assignment = _own_assignment(request, pk)
    if not practice_pending(assignment):
        return redirect("judging:judge_next", pk=assignment.pk)
    plan = practice_plan_for(assignment.campaign)
    answered = len(assignment.practice_answers or [])
    if answered >= len(plan):
        practice_finish(assignment=assignment)
        return redirect("judging:judge_next", pk=assignment.pk)
    return redirect("judging:practice_screen", pk=assignment.pk, screen=answered + 1)


@require_http_methods(["GET", "POST"])
@_database_faults_answer_503
def practice_screen(request: HttpRequest, pk: int, screen: int) -> HttpResponse:
    """A practice screen (numbered from 1): the real screen's template and scripts; the answer
    is graded, never stored as a judgment, and the feedback page follows."""
    assignment = _own_assignment(request, pk)
    start = reverse("judging:practice", args=[assignment.pk])
    if not practice_pending(assignment):
        return _go(request, start)
    plan = practice_plan_for(assignment.campaign)
    number = screen - 1
    if not 0 <= number < len(plan):
        raise Http404("no such practice screen")
    answered = len(assignment.practice_answers or [])
    if request.method == "POST":
        return _practice_post(request, assignment, number, plan)
    if number < answered:
        return redirect("judging:practice_feedback", pk=assignment.pk, screen=screen)
    if number > answered:
        return redirect(start)
    view = practice_screen_detail(assignment=assignment, number=number, plan=plan)
    idle_ms = getattr(settings, "JUDGING_IDLE_MS", DEFAULT_IDLE_MS)
    return render(request, "judging/screen.html", {"screen": view, "idle_ms": idle_ms})


def _practice_post(
    request: HttpRequest, assignment: Assignment, number: int, plan: list[PracticeScreen]
) -> HttpResponse:
    here = reverse("judging:practice_screen", args=[assignment.pk, number + 1])
    form = ScreenForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The page sent an incomplete form; answer again.")
        return _go(request, here, status=400)
    answer = Answer(scores=form.scores(), spans=form.spans(), postedits=form.postedits())
    try:
        practice_answer_record(assignment=assignment, number=number, answer=answer, plan=plan)
    except PracticeError as error:
        messages.error(request, str(error))
        return _go(request, here, status=400)
    return _go(request, reverse("judging:practice_feedback", args=[assignment.pk, number + 1]))


@require_GET
def practice_feedback(request: HttpRequest, pk: int, screen: int) -> HttpResponse:
    """What the judge answered on a practice screen, what was expected and why; Next."""
    assignment = _own_assignment(request, pk)
    answers = assignment.practice_answers or []
    number = screen - 1
    if assignment.campaign.practice == Campaign.Practice.OFF or not 0 <= number < len(answers):
        return redirect("judging:practice", pk=assignment.pk)
    plan = practice_plan_for(assignment.campaign)
    if number >= len(plan):
        raise Http404("no such practice screen")
    last = number + 1 >= len(plan)
    following = (
        reverse("judging:judge_next", args=[assignment.pk])
        if last
        else reverse("judging:practice_screen", args=[assignment.pk, screen + 1])
    )
    context = {
        "assignment": assignment,
        "campaign": assignment.campaign,
        "practice": plan[number],
        "position": screen,
        "count": len(plan),
        "feedback": answers[number],
        "last": last,
        "following": following,
        "matched": assignment.practice_matched,
        "show_source": assignment.campaign.show_source,
    }
    return render(request, "judging/practice_feedback.html", context)


@require_POST
def practice_skip(request: HttpRequest, pk: int) -> HttpResponse:
    """Skip the practice phase (campaigns offering it); on to the real items."""
    assignment = _own_assignment(request, pk)
    if assignment.campaign.practice == Campaign.Practice.OFF:
        return redirect("judging:judge_next", pk=assignment.pk)
    try:
        practice_finish(assignment=assignment, skipped=True)
    except PracticeError as error:
        messages.error(request, str(error))
        return redirect("judging:practice", pk=assignment.pk)
    return redirect("judging:judge_next", pk=assignment.pk)


@admin_required
@require_GET
def campaign_index(request: HttpRequest) -> HttpResponse:
    context = {"campaigns": campaign_list(), "test_sets": TestSet.objects.order_by("name")}
    return render(request, "judging/campaign_list.html", context)


@admin_required
@require_http_methods(["GET", "POST"])
def campaign_new(request: HttpRequest, test_set_pk: int) -> HttpResponse:
    test_set = get_object_or_404(TestSet, pk=test_set_pk)
    form = CampaignForm(request.POST or None, test_set=test_set)
    if request.method == "POST" and form.is_valid():
        try:
            campaign = campaign_create(
                test_set=test_set, created_by=request.user, **form.cleaned_data
            )
        except CampaignError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"Campaign {campaign.name} created.")
            return redirect(campaign)
    return render(request, "judging/campaign_form.html", {"form": form, "test_set": test_set})


@admin_required
@require_GET
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("test_set"), pk=pk)
    progress = campaign_progress(campaign=campaign)
    context = {"progress": progress, "campaign": campaign}
    if campaign.protocol == Campaign.Protocol.RANKING:
        context["ranking"] = ranking_wins_panel(campaign=campaign)
    if campaign.has_spans:
        context["span_agreement"] = campaign_span_agreement(campaign=campaign)
    if campaign.is_postedit:
        context["postedit"] = postedit_panel(campaign=campaign)
    return render(request, "judging/campaign_detail.html", context)


@admin_required
@require_GET
def campaign_spans(request: HttpRequest, pk: int) -> HttpResponse:
    """MQM/ESA: every judge's error spans, highlighted in the judged text (escaped). Another
    protocol marks no spans: its campaign page instead."""
    campaign = get_object_or_404(Campaign.objects.select_related("test_set"), pk=pk)
    if not campaign.has_spans:
        return redirect(campaign)
    try:
        page = int(request.GET.get("page", "1"))
    except ValueError:
        page = 1
    listing = campaign_span_judgments(campaign=campaign, page=page)
    return render(
        request, "judging/campaign_spans.html", {"campaign": campaign, "listing": listing}
    )


@admin_required
@require_GET
def campaign_export(request: HttpRequest, pk: int, export_format: str) -> HttpResponse:
    campaign = get_object_or_404(Campaign.objects.select_related("test_set"), pk=pk)
    stem = f"campaign-{campaign.pk}-judgments"
    if export_format == "csv":
        buffer = io.StringIO()
        columns = EXPORT_COLUMNS + (POSTEDIT_COLUMNS if campaign.is_postedit else [])
        writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(
            {column: spreadsheet_safe(value) for column, value in _csv_row(row).items()}
            for row in campaign_judgment_rows(campaign=campaign)
        )
        response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{stem}.csv"'
        return response
    if export_format == "json":
        document = {
            "campaign": _campaign_record(campaign),
            "judgments": campaign_judgment_rows(campaign=campaign),
        }
        body = json.dumps(document, cls=DjangoJSONEncoder, ensure_ascii=False, indent=1)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{stem}.json"'
        return response
    if export_format == "evaltrans-xml":
        return _evaltrans_xml_response(campaign, stem)
    if export_format == "wmt-mqm" and campaign.has_spans:
        body = campaign_mqm_tsv_export(campaign=campaign)
        pair = f"{campaign.test_set.source_lang}{campaign.test_set.target_lang}"
        response = HttpResponse(body, content_type="text/tab-separated-values; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="mqm_{stem}_{pair}.tsv"'
        return response
    ranking = campaign.protocol == Campaign.Protocol.RANKING
    no_da = ranking or campaign.protocol == Campaign.Protocol.MQM or campaign.is_postedit
    if export_format in ("wmt-da", "wmt-da-stats") and not no_da:
        # A rank is no absolute score: its z-scores would mean nothing (ranking has its own);
        # MQM penalties have their own format (wmt-mqm); a post-edit has no score.
        return _wmt_da_response(request, campaign, export_format)
    if export_format == "wmt-ranking" and ranking:
        body = campaign_wmt_ranking_export(campaign=campaign)
        pair = f"{campaign.test_set.source_lang}-{campaign.test_set.target_lang}"
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{stem}-wmt-rnk-{pair}.csv"'
        return response
    raise Http404("unknown export format")


def _csv_row(row: dict) -> dict:
    """A judgment row for the CSV: its error spans (MQM, ESA) as a JSON list in one cell."""
    if "spans" not in row:
        return row
    return {**row, "spans": json.dumps(row["spans"], ensure_ascii=False)}


def _wmt_da_response(request: HttpRequest, campaign: Campaign, export_format: str) -> HttpResponse:
    """WMT's DA files of one aspect (``?aspect=``; default: the campaign's first)."""
    first = campaign.aspects.values_list("name", flat=True).first() or ""
    aspect = request.GET.get("aspect") or first
    try:
        export = campaign_wmt_da_export(campaign=campaign, aspect=aspect)
    except LookupError as error:
        raise Http404(str(error)) from error
    pair = f"{campaign.test_set.source_lang}{campaign.test_set.target_lang}"
    if export_format == "wmt-da":
        body, name = export.rows, f"ad-{pair}-good-stnd-{campaign.pk}-{aspect}.csv"
    else:
        body, name = export.judge_stats, f"ad-{pair}-trk-mean-sd-{campaign.pk}-{aspect}.txt"
    response = HttpResponse(body, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _campaign_record(campaign: Campaign) -> dict:
    """What a reader needs to reproduce the campaign: test set, options, seed and scales."""
    return {
        "name": campaign.name,
        "protocol": campaign.protocol,
        "test_set": str(campaign.test_set),
        "test_set_hash": campaign.test_set.content_hash,
        "systems": sorted(campaign.systems.values_list("name", flat=True)),
        "reference_label": campaign.reference_label,
        "reference_as_system": campaign.reference_as_system,
        "judges_per_item": campaign.judges_per_item,
        "presentation": campaign.presentation,
        "candidates_per_screen": campaign.candidates_per_screen,
        "aspect_order": campaign.aspect_order,
        "show_source": campaign.show_source,
        "show_context": campaign.show_context,
        "context_before": campaign.context_before,
        "context_after": campaign.context_after,
        "comment_box": campaign.comment_box,
        "repeat_share": campaign.repeat_share,
        "bad_reference_share": campaign.bad_reference_share,
        "reuse_judgments": campaign.reuse_judgments,
        "seed": campaign.seed,
        "error_categories": campaign.error_categories,
        "scratch_share": campaign.scratch_share,
        "practice": campaign.practice,
        "practice_screens": campaign.practice_screens,
        "practice_results": [
            {"judge": judge, **practice.as_dict()}
            for judge, practice in campaign_practice(campaign=campaign).items()
        ],
        "aspects": [
            {
                "name": a.name,
                "label": a.label,
                "kind": a.kind,
                "needs_reference": a.needs_reference,
                "levels": a.levels,
                "perfect": a.perfect,
            }
            for a in campaign.aspects.all()
        ],
    }


def _evaltrans_xml_response(campaign: Campaign, stem: str) -> HttpResponse:
    # Imported here: the corpus formats package is large and only this export needs it.
    from evaltrans.corpora.formats.evaltrans_xml import write_evaltrans_xml

    corpus = campaign_corpus(campaign=campaign)
    with tempfile.TemporaryDirectory() as folder:
        (path,) = write_evaltrans_xml(corpus, Path(folder))
        data = path.read_bytes()
    response = HttpResponse(data, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{stem}.xml"'
    return response
