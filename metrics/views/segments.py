"""The segment page and its grid view (issue 18): why did each measure score this sentence as
it did?

Thin views: the ``metrics.selectors.segments`` modules read (stored scores, judgments,
alignments), the ``metrics.charts.alignment`` modules draw. Admins and viewers see them; judges
never do.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from evaltrans.corpora.models import Segment, TestSet
from evaltrans.roles import browser_required, is_admin
from metrics.charts.alignment import grid, ter_shifts, text
from metrics.selectors.segments import grid_page, measures, segment_page


def _segment(test_set_pk: int, number: int) -> tuple[TestSet, Segment]:
    try:
        return segment_page.testset_segment(test_set_pk=test_set_pk, number=number)
    except (TestSet.DoesNotExist, Segment.DoesNotExist):
        raise Http404("no such test set or segment") from None


def grid_url(test_set_pk: int, number: int, **query: str) -> str:
    url = reverse("segments:grid", args=[test_set_pk, number])
    return f"{url}?{urlencode(query)}" if query else url


@browser_required
@require_GET
def segment_detail(request: HttpRequest, test_set_pk: int, number: int) -> HttpResponse:
    test_set, segment = _segment(test_set_pk, number)
    page = segment_page.segment_page(
        test_set=test_set, segment=segment, reveal_judges=is_admin(request.user)
    )
    grid_links = {
        row.system.pk: grid_url(test_set.pk, number, system=row.system.name) for row in page.rows
    }
    cell_links = {
        (row.system.pk, column.signature): grid_url(
            test_set.pk,
            number,
            system=row.system.name,
            measure=column.measure,
            **{f"{grid_page.OPTION_PREFIX}{k}": v for k, v in column.grid_options.items()},
        )
        for row in page.rows
        for column in page.columns
        if column.grid_options is not None
    }
    rows = [
        {
            "row": row,
            "grid_url": grid_links[row.system.pk],
            "cells": [
                {"cell": cell, "url": cell_links.get((row.system.pk, column.signature))}
                for cell, column in zip(row.scores, page.columns, strict=True)
            ],
        }
        for row in page.rows
    ]
    return render(request, "metrics/segment_detail.html", {"page": page, "rows": rows})


@browser_required
@require_GET
def segment_grid(request: HttpRequest, test_set_pk: int, number: int) -> HttpResponse:
    test_set, segment = _segment(test_set_pk, number)
    page = grid_page.grid_page(test_set=test_set, segment=segment, query=request.GET.dict())
    panels: dict[str, Any] = {}
    for key, view in page.views.items():
        heading = grid_page.variant_title(
            view, system=page.request.system, reference=key.split("|")[1]
        )
        panels[key] = {
            "title": heading,
            "figure": grid.alignment_figure(view),
            "shifts": ter_shifts.shift_figure(view),
            "text": text.alignment_text(view, heading),
            "summary": text.summary_line(view),
            "notes": view["notes"] + ([view["grid_note"]] if view["grid_note"] else []),
            "measure": view["measure"],
        }
    data = {"variants": page.variants, "panels": panels, "initial": page.initial}
    neighbours = {
        name: grid_url(test_set.pk, other, **request.GET.dict())
        for name, other in (("previous", number - 1), ("next", number + 1))
        if 1 <= other <= page.count
    }
    return render(
        request,
        "metrics/segment_grid.html",
        {
            "page": page,
            "data": data,
            "neighbours": neighbours,
            "measures": [(name, measures.MEASURE_NAMES[name]) for name in measures.GRID_MEASURES],
            "directions": grid_page.CDER_DIRECTIONS,
            "pads": page.pads,
        },
    )
