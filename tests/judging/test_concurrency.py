"""Concurrent submissions on PostgreSQL: no judgment lost, none duplicated.

Runs only when the database is PostgreSQL (``DATABASE_URL=postgres://…``): SQLite serialises
every write transaction, so it cannot show a race.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection

from judging.models import Assignment, Campaign, Judgment, JudgmentRevision
from judging.selectors import screen_detail
from judging.services import screen_submit

from .test_services import rendered_token

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="needs PostgreSQL (set DATABASE_URL=postgres://…)"
    ),
]


def run_together(calls: list[Callable[[], object]]) -> list[object]:
    """Run the calls in threads released at the same moment; results or raised errors."""
    barrier = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def worker(index: int) -> None:
        try:
            barrier.wait()
            results[index] = calls[index]()
        except Exception as error:  # reported to the test, which fails on it
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def all_scores(assignment: Assignment, level: int) -> dict[tuple[int, str], int]:
    view = screen_detail(assignment=assignment, screen=0)
    return {
        (entry.assigned.pk, cell.aspect.name): level
        for entry in view.entries
        for cell in entry.cells
    }


@pytest.fixture
def campaign(make_campaign) -> Campaign:
    return make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=3)


def test_judges_submitting_at_once_all_get_stored(campaign):
    assignments = list(campaign.assignments.all())
    calls = []
    for assignment in assignments:
        scores = all_scores(assignment, 4)
        token = rendered_token(assignment, 0)
        calls.append(
            lambda a=assignment, s=scores, t=token: screen_submit(
                assignment=a, screen=0, scores=s, active_ms=3000, token=t
            )
        )
    results = run_together(calls)
    assert not [result for result in results if isinstance(result, Exception)], results
    assert Judgment.objects.count() == 2 * len(assignments)
    for assignment in assignments:
        assert assignment.items.get(screen=0).completed_at is not None


def test_a_double_submit_racing_itself_stores_one_judgment(campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    scores = all_scores(assignment, 5)
    token = rendered_token(assignment, 0)

    def send() -> object:
        return screen_submit(
            assignment=assignment, screen=0, scores=scores, active_ms=2000, token=token
        )

    results = run_together([send] * 6)
    assert not [result for result in results if isinstance(result, Exception)], results
    assert sorted(result.created for result in results) == [0, 0, 0, 0, 0, 2]
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert judgments.count() == 2
    assert sum(judgments.values_list("active_ms", flat=True)) <= 2000
    assert not JudgmentRevision.objects.exists()


def test_two_tabs_racing_store_one_judgment_and_keep_the_other_as_history(campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])

    def tab(level: int) -> Callable[[], object]:
        token = rendered_token(assignment, 0)  # each tab rendered the screen itself
        return lambda: screen_submit(
            assignment=assignment,
            screen=0,
            scores=all_scores(assignment, level),
            active_ms=1000,
            token=token,
        )

    calls = [tab(2), tab(4)]
    results = run_together(calls)
    assert not [result for result in results if isinstance(result, Exception)], results
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert judgments.count() == 2
    final = set(judgments.values_list("score", flat=True))
    assert len(final) == 1  # the later submission wins for every aspect
    assert JudgmentRevision.objects.count() == 2  # the earlier scores are history
