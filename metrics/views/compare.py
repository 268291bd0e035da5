"""The two-system comparison page: thin, ``metrics.selectors.compare`` reads. Admins and
viewers see it; judges never do."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from evaltrans.corpora.models import TestSet
from evaltrans.roles import browser_required
from metrics.selectors.compare import compare_page


@browser_required
@require_GET
def compare_systems(request: HttpRequest, test_set: int) -> HttpResponse:
    try:
        found = TestSet.objects.get(pk=test_set)
    except TestSet.DoesNotExist:
        raise Http404("no such test set") from None
    page = compare_page(test_set=found, query=request.GET.dict())
    return render(
        request,
        "metrics/compare_systems.html",
        {
            "page": page,
            "sections": [
                {"id": "b-better", "name": page.b, "side": "b", "rows": page.b_better},
                {"id": "a-better", "name": page.a, "side": "a", "rows": page.a_better},
            ],
        },
        status=400 if page.error else 200,
    )
