"""A judge logs in, scores three items with the keyboard alone, goes back, revises one, and
watches the progress bar move; active time is measured by the page and stored."""

from __future__ import annotations

import re

import pytest

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Judgment
from judging.services import campaign_create
from tests.conftest import make_user
from tests.judging.conftest import toy_corpus

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def progress_width(page) -> float:
    style = page.locator(".progress-fill").first.get_attribute("style")
    return float(re.search(r"width:\s*([\d.]+)%", style).group(1))


def press_and_wait(page, key: str) -> None:
    with page.expect_navigation():
        page.keyboard.press(key)


def test_a_judge_scores_with_the_keyboard_revises_and_sees_progress(live_server, page):
    judge = make_user("kira", group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=toy_corpus(), name="browser-toy", import_format="text"
    ).test_set
    campaign = campaign_create(
        name="Keyboard campaign",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        repeat_share=0.0,
        seed=3,
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judge)

    page.goto(f"{live_server.url}/")
    page.fill("#id_username", "kira")
    page.fill("#id_password", "pw-kira")
    press_and_wait(page, "Enter")
    assert page.locator("h1").inner_text() == "My assignments"
    page.locator("text=Start").focus()
    press_and_wait(page, "Enter")

    widths = [progress_width(page)]
    for level in ("4", "3", "5"):
        # Fluency without the reference, then adequacy with it: a digit and Enter each.
        assert page.locator(".text-block.reference").count() == 0
        page.mouse.move(200, 300)  # input activity keeps the clock running
        page.wait_for_timeout(600)
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
