"""Saving a judging screen while the server fails: the page keeps the answer, says so, retries
with back-off (or at once on "Retry now"), and the answer is stored exactly once."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from judging.models import Campaign, Judgment, JudgmentRevision

from .conftest import screenshot
from .test_judging import judge_campaign, log_in_with_the_mouse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Like the browser fixture: without Playwright the module skips instead of failing to import.
expect = pytest.importorskip("playwright.sync_api").expect

SCREEN_POSTS = "**/judging/assignments/*/screens/*/"
START = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)  # the page's clock: any fixed time


class FlakyServer:
    """Routes the judging page's POSTs: the first ones fail as listed, later ones go through.

    ``"abort"``: the request never reaches the server (network error). ``"503"``: the server
    answers 503, as the judging view does when the database fails. ``"lost"``: the server
    stores the answer but its response is lost on the way back.
    """

    def __init__(self, failures: list[str]) -> None:
        self.failures = list(failures)
        self.posts = 0
        self.reached_server = 0

    def __call__(self, route) -> None:
        request = route.request
        if request.method != "POST":
            route.continue_()
            return
        self.posts += 1
        failure = self.failures.pop(0) if self.failures else None
        if failure == "abort":
            route.abort("connectionreset")
        elif failure == "503":
            route.fulfill(status=503, content_type="application/json", body='{"error": "down"}')
        elif failure == "lost":
            self.reached_server += 1
            route.fetch()
            route.abort("connectionreset")
        else:
            self.reached_server += 1
            route.continue_()


def open_first_screen(page, live_server, username: str):
    """Log in and open the first screen with the page's clock stopped: timers (the retry
    back-off among them) fire only when the test moves the clock on."""
    assignment = judge_campaign(username, aspect_order=Campaign.AspectOrder.TOGETHER)
    log_in_with_the_mouse(page, live_server, username)
    page.clock.install(time=START)
    page.goto(f"{live_server.url}{assignment.get_absolute_url()}")
    page.clock.pause_at(START + timedelta(minutes=1))
    expect(page.locator("h1")).to_contain_text("Screen 1")
    return assignment


def test_a_failed_save_is_kept_retried_with_back_off_and_stored_once(live_server, page):
    assignment = open_first_screen(page, live_server, "rhea")
    server = FlakyServer(["abort", "503"])
    page.route(SCREEN_POSTS, server)
    status = page.locator("#save-status-text")

    page.keyboard.press("4")  # fluency
    page.keyboard.press("2")  # adequacy
    page.keyboard.press("Enter")
    expect(status).to_have_text(re.compile(r"^Could not save — retrying in 1 s…"))
    expect(page.locator("#retry-now")).to_be_visible()
    # The answer is still on the page, and nothing was stored.
    checked = page.locator(".level:has(input:checked)").all_inner_texts()
    assert [text.split()[0] for text in checked] == ["4", "2"]
    assert not Judgment.objects.filter(assigned_item__assignment=assignment).exists()
    screenshot(page, "judging-save-failed")

    # Back-off: nothing is sent before the second is up; then the server answers 503.
    page.clock.run_for(900)
    expect(status).to_have_text(re.compile(r"^Could not save — retrying in 1 s…"))
    assert server.posts == 1
    page.clock.run_for(100)
    expect(status).to_have_text(re.compile(r"^Could not save — retrying in 2 s…"))
    assert server.posts == 2

    # Twice as long this time; then the save goes through and the page moves on.
    page.clock.run_for(1900)
    expect(status).to_have_text(re.compile(r"^Could not save — retrying in 1 s…"))
    assert server.posts == 2
    with page.expect_navigation():
        page.clock.run_for(100)
    expect(page.locator("h1")).to_contain_text("Screen 2")
    assert server.posts == 3 and server.reached_server == 1
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert sorted(judgments.values_list("aspect__name", "score")) == [
        ("adequacy", 2),
        ("fluency", 4),
    ]
    assert page.locator("#progress-done").inner_text() == "1"


def test_an_answer_saved_but_not_confirmed_is_not_counted_twice(live_server, page):
    assignment = open_first_screen(page, live_server, "theo")
    # The server stores the answer, but the page hears nothing back: it must send it again.
    server = FlakyServer(["lost"])
    page.route(SCREEN_POSTS, server)

    page.click(".level:has-text('Good') >> nth=0")  # fluency 4
    page.click(".level:has-text('Most of the meaning')")  # adequacy 4
    page.click("#submit-button")
    expect(page.locator("#save-status")).to_be_visible()
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    stored = {j.aspect.name: (j.score, j.active_ms) for j in judgments.select_related("aspect")}
    assert set(stored) == {"fluency", "adequacy"}

    with page.expect_navigation():
        page.click("#retry-now")
    expect(page.locator("h1")).to_contain_text("Screen 2")
    assert server.posts == 2 and server.reached_server == 2
    again = {j.aspect.name: (j.score, j.active_ms) for j in judgments.select_related("aspect")}
    assert again == stored  # neither a second row nor the active time added twice
    assert judgments.filter(revision_count__gt=0).count() == 0
    assert not JudgmentRevision.objects.exists()
    assert page.locator("#progress-done").inner_text() == "1"
