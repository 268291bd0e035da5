"""The practice phase in Chromium at 1280×720: a DA judge practises with the keyboard alone
(slider keys, Enter to submit, Enter on the feedback page to go on) and then reaches the real
items; an MQM judge marks the pasted words of a known-bad text with the keyboard alone; a
ranking judge practises with the mouse alone and skips the rest of an offered practice."""

from __future__ import annotations

import re

import pytest

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, Judgment
from judging.practice import BAD, GOOD
from judging.services import campaign_create
from judging.services.practice import practice_plan_for
from tests.conftest import make_user
from tests.judging.test_practice import practice_corpus

from .conftest import screenshot
from .test_judging import (
    click_and_wait,
    log_in_with_the_mouse,
    press_and_wait,
)
from .test_judging_mqm import open_first_screen_by_keyboard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The judging page's word tokens (judging_spans.js), for Latin text.
TOKEN = re.compile(r"[^\W_]+(?:['’\-][^\W_]+)*|\S")


def practice_assignment(username: str, protocol: str, practice: str = "required") -> Assignment:
    judge = make_user(username, group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=practice_corpus(), name=f"practice-{username}", import_format="text"
    ).test_set
    campaign = campaign_create(
        name=f"Practice of {username}",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        protocol=protocol,
        reference_label="A",
        repeat_share=0.0,
        segment_sample=3,
        seed=4,
    )
    Campaign.objects.filter(pk=campaign.pk).update(practice=practice, practice_screens=3)
    return Assignment.objects.select_related("campaign").get(campaign=campaign, judge=judge)


def verdict(page) -> str:
    return page.locator("#verdict").inner_text()


def test_da_practice_with_the_keyboard_alone_then_the_real_items(live_server, small_page):
    page = small_page
    assignment = practice_assignment("pia", Campaign.Protocol.DIRECT_ASSESSMENT)
    plan = practice_plan_for(assignment.campaign)
    assert [screen.kind for screen in plan].count(BAD) == 2
    open_first_screen_by_keyboard(page, live_server, "pia")
    shots: set[str] = set()

    for number, screen in enumerate(plan, start=1):
        assert page.locator("h1").inner_text().startswith(f"Practice {number}")
        assert page.evaluate("document.activeElement.type") == "range"
        assert page.locator(".practice-banner").is_visible()
        if number == 1:
            # The protocol's instructions are open at the start of practice.
            assert page.locator("#instructions").get_attribute("open") is not None
            assert page.locator("#skip-practice").count() == 0  # required
            page.keyboard.press("Enter")
            assert "Move every slider first" in page.locator("#form-hint").inner_text()
        if screen.kind == GOOD:
            page.keyboard.press("End")  # 100
            page.keyboard.press("Shift+ArrowLeft")  # 90
        else:
            page.keyboard.press("Home")
            page.keyboard.press("PageUp")  # 10
            if number == 3:
                page.keyboard.press("PageUp")
                page.keyboard.press("PageUp")
                page.keyboard.press("PageUp")
                page.keyboard.press("PageUp")
                page.keyboard.press("PageUp")  # 60: too high for pasted words
        if number == 1:
            page.wait_for_timeout(1000)  # the refused Enter's highlight fades
            screenshot(page, "judging-practice-da-screen")
        press_and_wait(page, "Enter")
        # Feedback: what was answered, what was expected, why; Next has the focus.
        assert page.locator("h1").inner_text().startswith(f"Practice {number}")
        assert page.evaluate("document.activeElement.id") == "next-button"
        table = page.locator(".feedback-table").inner_text()
        if screen.kind == BAD:
            assert page.locator("mark.pasted").count() == 1
            start, end = screen.texts[0].replaced
            assert page.locator("mark.pasted").inner_text() == screen.texts[0].text[start:end]
            assert "50 or less" in table
        else:
            assert "60 or more" in table and "90 of 100" in table
        expected_match = not (screen.kind == BAD and number == 3)
        assert verdict(page).endswith("As expected" if expected_match else "Not what was expected")
        shot = "miss" if not expected_match else screen.kind
        if shot not in shots:
            shots.add(shot)
            page.mouse.move(5, 5)
            screenshot(page, f"judging-practice-da-feedback-{shot}")
        press_and_wait(page, "Enter")

    assert page.locator("h1").inner_text().startswith("Screen 1")
    assert Judgment.objects.count() == 0
    assignment.refresh_from_db()
    assert assignment.practice_done_at is not None
    assert assignment.practice_matched == 2 and len(assignment.practice_answers) == 3
    page.keyboard.press("End")
    press_and_wait(page, "Enter")
    assert Judgment.objects.get().score == 100


def test_mqm_practice_marks_the_pasted_words_with_the_keyboard_alone(live_server, small_page):
    page = small_page
    assignment = practice_assignment("maja", Campaign.Protocol.MQM)
    plan = practice_plan_for(assignment.campaign)
    open_first_screen_by_keyboard(page, live_server, "maja")

    for number, screen in enumerate(plan, start=1):
        assert page.locator("h1").inner_text().startswith(f"Practice {number}")
        assert page.evaluate("document.activeElement.hasAttribute('data-span-text')")
        if number == 1:
            assert page.locator("#instructions").get_attribute("open") is not None
            assert "How to mark errors" in page.locator("#instructions summary").inner_text()
        (text,) = screen.texts
        if text.kind == BAD:
            start, end = text.replaced
            spans = [m.span() for m in TOKEN.finditer(text.text)]
            before = sum(1 for s, _ in spans if s < start)
            inside = sum(1 for s, e in spans if s < end and e > start and s >= start)
            for _ in range(before):
                page.keyboard.press("ArrowRight")
            for _ in range(inside - 1):
                page.keyboard.press("Shift+ArrowRight")
            page.keyboard.press("Shift+M")  # major: the category list takes the focus
            for _ in range(2):  # Accuracy/Addition -> Omission -> Mistranslation
                page.keyboard.press("ArrowDown")
            page.keyboard.press("Enter")  # adds the error
            assert page.locator(".span-item").count() == 1
        press_and_wait(page, "Enter")
        assert verdict(page).endswith("As expected"), page.locator(".feedback-table").inner_text()
        if text.kind == BAD:
            assert "a major error on" in page.locator(".feedback-table").inner_text()
            page.mouse.move(5, 5)
            screenshot(page, "judging-practice-mqm-feedback")
        press_and_wait(page, "Enter")

    assert page.locator("h1").inner_text().startswith("Screen 1")
    assignment.refresh_from_db()
    assert assignment.practice_matched == 3 and Judgment.objects.count() == 0


def test_ranking_practice_with_the_mouse_alone_and_skipping_the_rest(live_server, small_page):
    page = small_page
    assignment = practice_assignment("rita", Campaign.Protocol.RANKING, practice="offered")
    plan = practice_plan_for(assignment.campaign)
    log_in_with_the_mouse(page, live_server, "rita")
    click_and_wait(page, "a:has-text('Start')")
    assert page.locator("h1").inner_text().startswith("Practice 1")
    assert page.locator("#instructions").get_attribute("open") is not None
    assert page.locator("#skip-practice").is_visible()

    ranks = {GOOD: 1, "candidate": 2, BAD: 3}
    entries = page.locator(".rank-entry")
    assert entries.count() == len(plan[0].texts) == 3
    for place, text in enumerate(plan[0].texts):
        assert entries.nth(place).locator(".candidate-text").inner_text() == text.text
        entries.nth(place).locator(f".rank-level:has(input[value='{ranks[text.kind]}'])").click()
    page.mouse.move(5, 5)
    screenshot(page, "judging-practice-ranking-screen")
    click_and_wait(page, "#submit-button")
    assert verdict(page).endswith("As expected")
    assert page.locator("mark.pasted").count() == 1
    page.mouse.move(5, 5)
    screenshot(page, "judging-practice-ranking-feedback")
    click_and_wait(page, "#next-button")

    assert page.locator("h1").inner_text().startswith("Practice 2")
    click_and_wait(page, "#skip-practice")
    assert page.locator("h1").inner_text().startswith("Screen 1")
    assignment.refresh_from_db()
    assert assignment.practice_skipped and assignment.practice_matched == 1
    assert Judgment.objects.count() == 0


def test_the_campaign_form_words_one_reference_tickbox_per_protocol(live_server, small_page):
    page = small_page
    make_user("boss", staff=True)
    test_set = testset_import(
        corpus=practice_corpus(), name="form-set", import_format="text"
    ).test_set
    log_in_with_the_mouse(page, live_server, "boss")
    page.goto(f"{live_server.url}/judging/campaigns/new/{test_set.pk}/")
    box = page.locator("input[name=show_reference]")
    label = page.locator("label[for=id_show_reference]")
    assert not box.is_visible()  # categorical: no such choice
    page.check("input[name=protocol][value=ranking]")
    assert box.is_visible() and box.is_checked()
    assert label.inner_text() == "Show the reference while ranking:"
    page.check("input[name=protocol][value=mqm]")
    assert not box.is_checked() and label.inner_text() == "Show the reference while marking errors:"
    assert "source only" in page.locator("[data-show-reference-help]").inner_text()
    box.check()  # the admin's choice stays when the protocol changes
    page.check("input[name=protocol][value=post-edit]")
    assert box.is_checked() and label.inner_text() == "Show the reference while post-editing:"
    assert page.locator("select[name=practice]").input_value() == "offered"
    assert page.locator("[data-practice-screens]").is_visible()
    page.select_option("select[name=practice]", "off")
    assert not page.locator("[data-practice-screens]").is_visible()
    page.select_option("select[name=practice]", "required")
    page.locator(".practice-settings").scroll_into_view_if_needed()
    screenshot(page, "judging-practice-campaign-form")


def test_esa_practice_fits_a_tablet(live_server, browser):
    context = browser.new_context(viewport={"width": 768, "height": 1024})
    page = context.new_page()
    page.set_default_timeout(15_000)
    practice_assignment("tess", Campaign.Protocol.ESA, practice="offered")
    log_in_with_the_mouse(page, live_server, "tess")
    click_and_wait(page, "a:has-text('Start')")
    no_scroll = "document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    assert page.locator("h1").inner_text().startswith("Practice 1")
    assert page.evaluate(no_scroll)
    assert page.locator("#skip-practice").is_visible()
    box = page.locator("input[type=range]").bounding_box()
    page.mouse.click(box["x"] + box["width"] * 0.3, box["y"] + box["height"] / 2)
    page.mouse.move(5, 5)
    screenshot(page, "judging-practice-esa-tablet")
    click_and_wait(page, "#submit-button")
    assert page.locator("#verdict").is_visible() and page.evaluate(no_scroll)
    screenshot(page, "judging-practice-esa-feedback-tablet")
    context.close()
