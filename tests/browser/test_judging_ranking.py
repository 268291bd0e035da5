"""Relative ranking in Chromium at 1280×720: a judge ranks five anonymous candidates side by
side with the keyboard alone (digits, Tab, arrow keys, Enter) and the ranks are stored as
given; a second judge uses the mouse alone."""

from __future__ import annotations

import pytest

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, Judgment
from judging.services import campaign_create
from tests.conftest import make_user
from tests.judging.test_ranking import SYSTEMS, ranking_corpus

from .conftest import screenshot
from .test_judging import (
    MAX_TABS,
    click_and_wait,
    focused_text,
    log_in_with_the_mouse,
    press_and_wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def ranking_assignment(username: str) -> Assignment:
    """Two sources, five systems with distinct outputs: two screens of five candidates."""
    judge = make_user(username, group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=ranking_corpus(2), name=f"rank-{username}", import_format="text"
    ).test_set
    campaign = campaign_create(
        name=f"Ranking of {username}",
        test_set=test_set,
        systems=list(test_set.systems.exclude(name="bravomt")),
        judges=[judge],
        judges_per_item=1,
        protocol=Campaign.Protocol.RANKING,
        repeat_share=0.0,
        seed=5,
    )
    return Assignment.objects.get(campaign=campaign, judge=judge)


def current_label(page) -> str:
    return page.locator(".rank-entry:has(.cell.current) .text-label").inner_text()


def stored_ranks(assignment: Assignment, screen: int) -> list[int]:
    return list(
        Judgment.objects.filter(assigned_item__assignment=assignment, assigned_item__screen=screen)
        .order_by("assigned_item__position")
        .values_list("score", flat=True)
    )


def test_a_ranking_is_given_with_the_keyboard_alone(live_server, small_page):
    page = small_page
    assignment = ranking_assignment("rhea")
    page.goto(f"{live_server.url}/")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'id_username'")
    page.keyboard.type("rhea")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-rhea")
    press_and_wait(page, "Enter")
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if focused_text(page) == "Start":
            break
    press_and_wait(page, "Enter")

    # Five anonymous candidates side by side; the first is highlighted; Enter refuses.
    assert page.locator("h1").inner_text().startswith("Screen 1")
    assert page.locator(".rank-entry").count() == 5
    content = page.content().lower()
    assert not any(name in content for name in SYSTEMS)
    boxes = [page.locator(".rank-entry").nth(k).bounding_box() for k in range(5)]
    assert len({round(box["y"]) for box in boxes}) == 1  # one row at 1280 px
    assert current_label(page) == "TRANSLATION A"
    page.keyboard.press("Enter")
    assert "Rank every translation first" in page.locator("#form-hint").inner_text()
    page.keyboard.press("7")
    assert "Ranks go from 1 (best) to 5 (worst)" in page.locator("#form-hint").inner_text()

    page.keyboard.press("2")  # A = 2, B is highlighted
    assert current_label(page) == "TRANSLATION B"
    page.keyboard.press("Tab")  # skip B
    assert current_label(page) == "TRANSLATION C"
    page.keyboard.press("1")  # C = 1, D is highlighted
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert current_label(page) == "TRANSLATION B"
    page.keyboard.press("3")  # B = 3, D (the next unranked) is highlighted
    assert current_label(page) == "TRANSLATION D"
    page.keyboard.press("3")  # D = 3: a tie with B
    assert current_label(page) == "TRANSLATION E"
    page.keyboard.press("ArrowRight")  # past the last candidate: the submit button
    assert page.evaluate("document.activeElement.id") == "submit-button"
    page.keyboard.press("ArrowLeft")
    assert current_label(page) == "TRANSLATION E"
    page.keyboard.press("5")
    assert "All ranked" in page.locator("#form-hint").inner_text()
    assert page.evaluate("document.activeElement.id") == "submit-button"
    page.wait_for_timeout(1000)  # let the "missing" highlight of the refused Enter fade
    screenshot(page, "judging-ranking-screen")
    press_and_wait(page, "Enter")

    assert page.locator("h1").inner_text().startswith("Screen 2")
    for key in "11245":
        page.keyboard.press(key)
    press_and_wait(page, "Enter")
    assert page.locator("h1").inner_text().startswith("All done")

    assert stored_ranks(assignment, 0) == [2, 3, 1, 3, 5]
    assert stored_ranks(assignment, 1) == [1, 1, 2, 4, 5]
    assert all(ms > 0 for ms in Judgment.objects.values_list("active_ms", flat=True))


def test_a_ranking_is_given_with_the_mouse_alone(live_server, small_page):
    page = small_page
    assignment = ranking_assignment("milan")
    log_in_with_the_mouse(page, live_server, "milan")
    click_and_wait(page, "a:has-text('Start')")
    entries = page.locator(".rank-entry")
    for number, rank in enumerate([4, 1, 2, 2, 5]):
        entries.nth(number).locator(f".rank-level:has(input[value='{rank}'])").click()
    checked = page.locator(".rank-level:has(input:checked)")
    assert [checked.nth(k).inner_text().strip() for k in range(5)] == ["4", "1", "2", "2", "5"]
    click_and_wait(page, "#submit-button")
    assert page.locator("h1").inner_text().startswith("Screen 2")
    assert stored_ranks(assignment, 0) == [4, 1, 2, 2, 5]


def test_an_admin_sees_expected_wins_on_the_campaign_page(live_server, small_page):
    page = small_page
    assignment = ranking_assignment("ines")
    log_in_with_the_mouse(page, live_server, "ines")
    click_and_wait(page, "a:has-text('Start')")
    for ranks in ([1, 2, 3, 4, 5], [1, 1, 2, 4, 5]):
        entries = page.locator(".rank-entry")
        for number, rank in enumerate(ranks):
            entries.nth(number).locator(f".rank-level:has(input[value='{rank}'])").click()
        click_and_wait(page, "#submit-button")
    assert page.locator("h1").inner_text().startswith("All done")
    make_user("boss", staff=True)
    page.context.clear_cookies()
    log_in_with_the_mouse(page, live_server, "boss")
    page.goto(f"{live_server.url}/judging/campaigns/{assignment.campaign.pk}/")
    wins = page.locator("#expected-wins-table")
    assert wins.is_visible()
    text = wins.inner_text()
    assert sum(name in text for name in SYSTEMS) == 5  # admins see the systems by name
    screenshot(page, "judging-ranking-campaign")
