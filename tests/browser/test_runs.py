"""An admin starts a run in the browser; the progress bar reaches 100 % and the results table
shows, with the best score per measure marked. Tasks run eagerly here (test settings); real
workers are covered by tests/metrics/test_worker_integration.py."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from tests.metrics.run_helpers import make_test_set

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
