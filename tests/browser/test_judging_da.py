"""Direct assessment in Chromium at 1280×720: a judge scores a DA campaign end to end with the
keyboard alone (arrow keys, Shift+arrow, PageUp/PageDown, End, Enter), bad references
included; scoring them as high as the rest gets the judge flagged on the campaign page. A
second judge uses the mouse alone."""

from __future__ import annotations

import pytest

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import AssignedItem, Assignment, Campaign, Item, Judgment
from judging.qc import FLAG_BAD_REF_NOT_DETECTED
from judging.services import campaign_create
from tests.conftest import make_user
from tests.judging.test_direct_assessment import da_corpus

from .conftest import screenshot
from .test_judging import (
    MAX_TABS,
    click_and_wait,
    focused_text,
    log_in_with_the_mouse,
    press_and_wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def da_assignment(username: str, **options) -> Assignment:
    judge = make_user(username, group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=da_corpus(10), name=f"da-{username}", import_format="text"
    ).test_set
    campaign = campaign_create(
        name=f"DA of {username}",
        test_set=test_set,
        systems=list(test_set.systems.filter(name="good")),
        judges=[judge],
        judges_per_item=1,
        protocol=Campaign.Protocol.DIRECT_ASSESSMENT,
        repeat_share=0.0,
        seed=5,
        **options,
    )
    return Assignment.objects.get(campaign=campaign, judge=judge)


def slider_value(page) -> int:
    return int(page.locator("input[type=range]").input_value())


def test_a_da_campaign_is_judged_with_the_keyboard_alone_and_the_careless_judge_flagged(
    live_server, small_page, browser
):
    page = small_page
    assignment = da_assignment("dana", bad_reference_share=0.5)
    bad_screens = set(
        AssignedItem.objects.filter(
            assignment=assignment, item__kind=Item.Kind.BAD_REFERENCE
        ).values_list("screen", flat=True)
    )
    screens = AssignedItem.objects.filter(assignment=assignment).count()
    assert len(bad_screens) == 5 and screens == 15

    page.goto(f"{live_server.url}/")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'id_username'")
    page.keyboard.type("dana")
    page.keyboard.press("Tab")
    page.keyboard.type("pw-dana")
    press_and_wait(page, "Enter")
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if focused_text(page) == "Start":
            break
    press_and_wait(page, "Enter")

    # The slider has the focus, starts in the middle and says it is not set; Enter refuses.
    slider = page.locator("input[type=range]")
    assert page.evaluate("document.activeElement.type") == "range"
    assert slider.get_attribute("aria-valuetext") == "not set"
    assert slider.get_attribute("aria-valuemin") is None  # implicit from min/max
    assert page.locator("#instructions").get_attribute("open") is not None
    page.keyboard.press("Enter")
    assert "Move every slider first" in page.locator("#form-hint").inner_text()
    assert page.locator("h1").inner_text().startswith("Screen 1")
    # Arrow: 1; Shift+arrow and PageUp/PageDown: 10; End/Home: the ends.
    page.keyboard.press("ArrowRight")
    assert slider_value(page) == 51 and slider.get_attribute("aria-valuetext") == "51 of 100"
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("PageUp")
    assert slider_value(page) == 71
    page.keyboard.press("PageDown")
    page.keyboard.press("Shift+ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert slider_value(page) == 50
    assert page.locator(".slider-value").inner_text() == "50"
    page.wait_for_timeout(1000)  # let the "missing" highlight of the refused Enter fade
    screenshot(page, "judging-da-screen")
    press_and_wait(page, "Enter")

    # The rest: a careless judge, whose score does not depend on the text.
    given = {0: 50}
    for number in range(1, screens):
        assert page.locator("h1").inner_text().startswith(f"Screen {number + 1}")
        page.keyboard.press("End")
        for _ in range(number % 4):
            page.keyboard.press("Shift+ArrowLeft")
        for _ in range(number % 3):
            page.keyboard.press("ArrowLeft")
        given[number] = slider_value(page)
        if number in bad_screens and "judging-da-bad-reference" not in given:
            shown = page.locator(".candidate-text").inner_text()
            item = AssignedItem.objects.get(assignment=assignment, screen=number).item
            assert shown == item.text and shown != item.degraded_from.text
            screenshot(page, "judging-da-bad-reference")
            given["judging-da-bad-reference"] = number
        press_and_wait(page, "Enter")
    assert page.locator("h1").inner_text().startswith("All done")

    stored = dict(
        Judgment.objects.filter(assigned_item__assignment=assignment).values_list(
            "assigned_item__screen", "score"
        )
    )
    assert stored == {k: v for k, v in given.items() if isinstance(k, int)}
    assert all(ms > 0 for ms in Judgment.objects.values_list("active_ms", flat=True))

    # The admin's campaign page flags the judge: bad references were not scored lower.
    make_user("boss", staff=True)
    admin = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    log_in_with_the_mouse(admin, live_server, "boss")
    admin.goto(f"{live_server.url}{assignment.campaign.get_absolute_url()}")
    row = admin.locator("#judge-table tbody tr", has_text="dana")
    assert FLAG_BAD_REF_NOT_DETECTED in row.inner_text()
    assert "5 · p =" in row.inner_text()
    screenshot(admin, "judging-da-campaign-flagged")
    admin.context.close()


def test_a_da_screen_works_with_the_mouse_alone(live_server, small_page):
    page = small_page
    assignment = da_assignment("mona", bad_reference_share=0.0)
    log_in_with_the_mouse(page, live_server, "mona")
    click_and_wait(page, "a:has-text('Start')")
    # Submit with an untouched slider: refused with a hint, nothing stored.
    page.click("#submit-button")
    assert "Move every slider first" in page.locator("#form-hint").inner_text()
    assert Judgment.objects.count() == 0
    box = page.locator("input[type=range]").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2)
    value = slider_value(page)
    assert 70 <= value <= 90
    click_and_wait(page, "#submit-button")
    assert page.locator("h1").inner_text().startswith("Screen 2")
    assert Judgment.objects.get(assigned_item__assignment=assignment).score == value
