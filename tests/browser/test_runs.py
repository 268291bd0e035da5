"""An admin starts a run in the browser; the progress bar reaches 100 % and the results table
shows, with the best score per measure marked; a running run's page follows its progress
live. Tasks run eagerly here (test settings), and the live test stores chunks itself while the
page is open; real workers are covered by tests/metrics/test_worker_integration.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from metrics.models import MetricRun, SegmentStatistics
from metrics.selectors.runs import chunk_layout
from metrics.services import computation, runs
from tests.metrics.run_helpers import choices, make_test_set

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_admin_runs_measures_and_sees_results(live_server, page):
    User.objects.create_user("boss", password="pw-boss", is_staff=True)
    test_set = make_test_set(
        "browser-runs", outputs={"<i>sys</i>": ["the cat"] * 8, "b": ["x"] * 8}
    )
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("form button[type=submit] >> text=Log in")
    page.click("nav >> text=Runs")
    page.click("text=Start the first run")
    page.select_option("#id_test_set", str(test_set.pk))
    page.click("form.form-card button[type=submit]")
    page.check("input[name=measures][value=wer]")
    page.check("input[name=measures][value=per]")
    page.click("details[data-measure=wer] summary")
    page.select_option("select[name='opt__wer__ref-length-rule']", "average")
    screenshot(page, "run-form")
    page.click("#run-form button[type=submit]")

    page.wait_for_selector("#results-table")
    bar = page.locator("#overall-bar")
    assert bar.get_attribute("aria-valuenow") == "100"
    assert page.locator("#overall-text").inner_text() == "100.0%"
    assert page.locator("#run-status").inner_text() == "Done"
    headers = page.locator("#results-table thead th")
    assert headers.count() == 3
    assert "reflen:average" in headers.nth(1).get_attribute("title")
    # The system name is user data, shown as text.
    assert page.locator("#results-table tbody td").first.inner_text() in ("<i>sys</i>", "b")
    assert page.locator("td.best").count() == 2
    page.click("#results-table thead th:nth-child(2)")
    screenshot(page, "run-results")
    page.click("#results-table tbody tr:first-child td:nth-child(2) a")
    page.wait_for_selector(".sentences-table")
    assert page.locator(".sentences-table tbody tr").count() == 8


def test_progress_updates_live_without_reload(live_server, page):
    """Chunks stored while the page is open move the bars and the per-measure times; the page
    reloads only once the run is done, to show its results."""
    User.objects.create_user("boss", password="pw-boss", is_staff=True)
    test_set = make_test_set("browser-live")
    run = runs.metric_run_create(
        test_set=test_set,
        systems=test_set.systems.all(),
        measures=choices("wer", "per"),
        chunk_size=4,
    )
    MetricRun.objects.filter(pk=run.pk).update(
        status=MetricRun.Status.RUNNING, started_at=timezone.now()
    )
    systems = list(test_set.systems.order_by("name"))
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("form button[type=submit] >> text=Log in")
    page.goto(f"{live_server.url}{run.get_absolute_url()}")
    assert page.locator("#overall-count").inner_text() == "0 / 32"
    page.evaluate("window.stillTheSamePage = true")

    # 8 segments in chunks of 4: a chunk of 5 segments and the half-length last one of 3.
    layout = chunk_layout(run.segment_count, run.chunk_size)
    assert layout == [(0, 5), (5, 8)]
    computation.metric_chunk_compute(run_id=run.pk, system_id=systems[0].pk, start=0, stop=5)
    # Tiny chunks take milliseconds: give them a computing time the page shows in seconds.
    SegmentStatistics.objects.filter(test_set=test_set).update(seconds=3.0)
    page.wait_for_function(
        "document.querySelectorAll('tr[data-signature] .times')[1].textContent.length > 0",
        timeout=10_000,
    )
    assert page.locator("#overall-count").inner_text() == "10 / 32"
    rows = page.locator("tr[data-signature]")
    assert [rows.nth(n).locator(".count").inner_text() for n in range(2)] == ["5 / 16"] * 2
    # 3 s for 5 segments; 11 segments missing per measure: 6.6 s more.
    assert [rows.nth(n).locator(".times").inner_text() for n in range(2)] == [
        "3 s computing · about 7 s left"
    ] * 2
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.locator("#overall-bar").get_attribute("aria-valuenow") == "31"
    screenshot(page, "run-live-progress")

    for system in systems:
        for start, stop in layout:
            computation.metric_chunk_compute(
                run_id=run.pk, system_id=system.pk, start=start, stop=stop
            )
    page.wait_for_selector("#results-table", timeout=15_000)
    assert page.locator("#run-status").inner_text() == "Done"
    assert page.evaluate("window.stillTheSamePage === undefined")  # reloaded for the results
    # Chunks of a few milliseconds still show a computing time.
    SegmentStatistics.objects.filter(test_set=test_set).update(seconds=0.004)
    page.reload()
    assert page.locator("tr[data-signature] .times").nth(1).inner_text() == "< 1 s computing"
