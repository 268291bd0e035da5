"""The judging page in Chromium: a judge scores with the keyboard alone, or with the mouse
alone, goes back and revises, and watches the progress bar move; the page's clock counts active
time only (idle gaps and hidden stretches are left out) and the server stores it."""

from __future__ import annotations

import re
import time

import pytest

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, Judgment
from judging.services import campaign_create
from tests.conftest import make_user
from tests.judging.conftest import toy_corpus

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Tab presses allowed to reach a control: the top bar has a handful of links.
MAX_TABS = 20


def progress_width(page) -> float:
    style = page.locator(".progress-fill").first.get_attribute("style")
    return float(re.search(r"width:\s*([\d.]+)%", style).group(1))


def press_and_wait(page, key: str) -> None:
    with page.expect_navigation():
        page.keyboard.press(key)


def click_and_wait(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def focused_text(page) -> str:
    return page.evaluate("(document.activeElement.textContent || '').trim()")


def stay_active(page, milliseconds: int) -> None:
    """Keep the page's activity clock alive with a key that does nothing (Shift)."""
    for _ in range(milliseconds // 250):
        page.keyboard.press("Shift")
        page.wait_for_timeout(250)


def judge_campaign(username: str, **options) -> Assignment:
    judge = make_user(username, group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=toy_corpus(), name=f"browser-{username}", import_format="text"
    ).test_set
    campaign = campaign_create(
        name=f"Campaign of {username}",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        repeat_share=0.0,
        seed=3,
        **options,
    )
    return Assignment.objects.get(campaign=campaign, judge=judge)


def log_in_with_the_mouse(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/")
    page.fill("#id_username", username)
    page.fill("#id_password", "pw-" + username)
    click_and_wait(page, "button:has-text('Log in')")


def screen_active_ms(assignment: Assignment, screen: int) -> int:
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    return sum(judgments.filter(assigned_item__screen=screen).values_list("active_ms", flat=True))


def test_a_judge_scores_with_the_keyboard_alone_revises_and_sees_progress(live_server, page):
    assignment = judge_campaign("kira")

    # Log in: the user name field has the focus; Tab to the password, Enter to log in.
    page.goto(f"{live_server.url}/")
    # Browsers apply autofocus at a rendering step that may come after the load event.
    page.wait_for_function("document.activeElement && document.activeElement.id === 'id_username'")
    page.keyboard.type("kira")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-kira")
    press_and_wait(page, "Enter")
    assert page.locator("h1").inner_text() == "My assignments"
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if focused_text(page) == "Start":
            break
    assert focused_text(page) == "Start"
    press_and_wait(page, "Enter")

    widths = [progress_width(page)]
    for level in ("4", "3", "5"):
        # Fluency without the reference, then adequacy with it: a digit and Enter each.
        assert page.locator(".text-block.reference").count() == 0
        stay_active(page, 750)
        page.keyboard.press(level)
        assert page.locator(".level:has(input:checked)").inner_text().startswith(level)
        press_and_wait(page, "Enter")
        assert page.locator(".text-block.reference").count() == 1
        page.keyboard.press(level)
        press_and_wait(page, "Enter")
        widths.append(progress_width(page))
    assert widths == sorted(widths) and widths[-1] > widths[0]
    assert page.locator("#progress-done").inner_text() == "3"
    screenshot(page, "judging-after-three-items")

    # Back to the third item and revise its fluency from 5 to 2 (adequacy stays 5).
    press_and_wait(page, "Backspace")
    assert page.locator(".pill.revising").is_visible()
    page.keyboard.press("2")
    page.keyboard.press("5")
    page.wait_for_timeout(300)  # let the level colours finish their transition
    screenshot(page, "judging-revising")
    press_and_wait(page, "Enter")
    assert page.locator("#progress-done").inner_text() == "3"

    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert judgments.count() == 6
    revised = judgments.get(revision_count=1)
    assert revised.aspect.name == "fluency" and revised.score == 2
    assert list(revised.revisions.values_list("score", flat=True)) == [5]
    fluency_times = judgments.filter(aspect__name="fluency").values_list("active_ms", flat=True)
    assert all(ms >= 400 for ms in fluency_times), fluency_times
    screenshot(page, "judging-next-screen")


def test_a_judge_scores_with_the_mouse_alone_goes_back_and_revises(live_server, page):
    assignment = judge_campaign("milo")
    log_in_with_the_mouse(page, live_server, "milo")
    click_and_wait(page, "a:has-text('Start')")
    assert page.locator("h1").inner_text().startswith("Screen 1")

    page.mouse.move(300, 300)
    page.click(".level:has-text('Good')")  # fluency 4
    assert page.locator(".level:has(input:checked)").inner_text().startswith("4")
    click_and_wait(page, "#submit-button")  # "Next: adequacy"
    assert page.locator(".text-block.reference").count() == 1
    assert page.locator(".locked").inner_text().endswith("Good")
    page.click(".level:has-text('Most of the meaning')")  # adequacy 4
    click_and_wait(page, "#submit-button")
    assert page.locator("h1").inner_text().startswith("Screen 2")
    assert page.locator("#progress-done").inner_text() == "1"

    click_and_wait(page, "#back-link")
    assert page.locator("h1").inner_text().startswith("Screen 1")
    assert page.locator(".pill.revising").is_visible()
    checked = page.locator(".level:has(input:checked)")
    assert [text.split()[0] for text in checked.all_inner_texts()] == ["4", "4"]
    page.click(".level:has-text('Disfluent')")  # fluency 2
    page.click(".level:has-text('Little meaning')")  # adequacy 2
    page.wait_for_timeout(300)  # let the level colours finish their transition
    screenshot(page, "judging-mouse-revising")
    click_and_wait(page, "#submit-button")
    assert page.locator("h1").inner_text().startswith("Screen 2")

    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    assert sorted(judgments.values_list("aspect__name", "score")) == [
        ("adequacy", 2),
        ("fluency", 2),
    ]
    for judgment in judgments:
        assert judgment.revision_count == 1
        assert list(judgment.revisions.values_list("score", flat=True)) == [4]
        assert judgment.active_ms > 0


def test_idle_gaps_and_hidden_stretches_are_not_counted(live_server, page, settings):
    settings.JUDGING_IDLE_MS = 1000
    idle_ms = settings.JUDGING_IDLE_MS
    assignment = judge_campaign("ines", aspect_order=Campaign.AspectOrder.TOGETHER)
    log_in_with_the_mouse(page, live_server, "ines")

    # Screen 1: one second of activity, then 3.5 s without any input.
    started = time.monotonic()
    page.goto(f"{live_server.url}{assignment.get_absolute_url()}")
    assert page.locator("#judging").get_attribute("data-idle-ms") == str(idle_ms)
    stay_active(page, 1000)
    assert page.locator("#timer-state").is_hidden()
    gap_ms = 3500
    page.wait_for_timeout(gap_ms)
    assert page.locator("#timer-state").is_visible()  # "timer paused"
    screenshot(page, "judging-timer-paused")
    page.keyboard.press("4")
    page.keyboard.press("4")
    wall_ms = (time.monotonic() - started) * 1000
    press_and_wait(page, "Enter")
    active = screen_active_ms(assignment, 0)
    # Counted: the activity, plus at most one idle window after the last input.
    assert active >= 1000 - 250, active
    assert active <= wall_ms - (gap_ms - idle_ms) + 250, (active, wall_ms)

    # Screen 2: keys pressed while the page is hidden (another tab in front) do not count.
    started = time.monotonic()
    stay_active(page, 500)
    page.evaluate(
        """() => {
        Object.defineProperty(document, "visibilityState", {configurable: true, get: () => "hidden"});
        document.dispatchEvent(new Event("visibilitychange"));
    }"""
    )
    hidden_ms = 3000
    stay_active(page, hidden_ms)
    assert page.locator("#timer-state").is_visible()
    page.evaluate(
        """() => {
        delete document.visibilityState;
        document.dispatchEvent(new Event("visibilitychange"));
    }"""
    )
    assert page.evaluate("document.visibilityState") == "visible"
    stay_active(page, 500)
    assert page.locator("#timer-state").is_hidden()
    page.keyboard.press("3")
    page.keyboard.press("3")
    wall_ms = (time.monotonic() - started) * 1000
    press_and_wait(page, "Enter")
    active = screen_active_ms(assignment, 1)
    assert active >= 1000 - 250, active
    assert active <= wall_ms - hidden_ms + 250, (active, wall_ms)
