"""Evaluation settings in Chromium at 1280×720: a DA screen with document context (two
sentences before, one after, source side and the same system's translations) and the comment
box. A judge types a comment with digits, m/M and Enter in it: none of them touches the score
or submits; Ctrl+Enter submits, and the comment is stored with the judgment."""

from __future__ import annotations

import pytest
from django.urls import reverse

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import AssignedItem, Assignment, Campaign, Judgment
from judging.services import campaign_create
from tests.conftest import make_user
from tests.judging.test_direct_assessment import da_corpus

from .conftest import screenshot
from .test_judging import log_in_with_the_mouse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

COMMENT = "Segment 3: 2 words missing, I'd say 45"


def test_a_comment_with_digits_keeps_the_score_and_is_stored(live_server, small_page):
    page = small_page
    judge = make_user("clara", group=JUDGES_GROUP)
    test_set = testset_import(corpus=da_corpus(12), name="da-settings", import_format="text")
    campaign = campaign_create(
        name="DA with context",
        test_set=test_set.test_set,
        systems=list(test_set.test_set.systems.filter(name="good")),
        judges=[judge],
        judges_per_item=1,
        protocol=Campaign.Protocol.DIRECT_ASSESSMENT,
        repeat_share=0.0,
        bad_reference_share=0.0,
        show_context=True,
        context_before=2,
        context_after=1,
        comment_box=True,
        seed=5,
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judge)
    # Segment 3 of document d0 (segments 0-5): two sentences before, one after.
    row = AssignedItem.objects.get(assignment=assignment, item__segment__index=3)
    log_in_with_the_mouse(page, live_server, "clara")
    url = reverse("judging:judge_screen", args=[assignment.pk, row.screen + 1])
    page.goto(f"{live_server.url}{url}")

    before = page.locator("[data-context=before] p")
    assert before.all_inner_texts() == ["Quelle 1 .", "Quelle 2 ."]
    assert page.locator("[data-context=after] p").all_inner_texts() == ["Quelle 4 ."]
    assert page.locator("[data-context=target-before] p").count() == 2
    assert page.locator("[data-context=target-after] p").count() == 1
    # Subdued context, highlighted current sentence.
    muted = page.locator("[data-context=before]").evaluate("e => getComputedStyle(e).color")
    current = page.locator(".context-current").evaluate("e => getComputedStyle(e).backgroundColor")
    assert muted != "rgb(0, 0, 0)" and current not in ("rgba(0, 0, 0, 0)", "transparent")

    slider = page.locator("input[type=range]")
    slider.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    score = int(slider.input_value())
    assert score == 53

    # Typing in the comment box: digits, m/M, Backspace and Enter stay text there.
    page.click("[data-comment]")
    page.keyboard.type(COMMENT)
    page.keyboard.press("Enter")
    page.keyboard.type("m M 7")
    page.keyboard.press("Backspace")
    page.keyboard.type("8")
    assert int(slider.input_value()) == score
    assert page.url.endswith(url)
    assert page.locator("[data-comment]").input_value() == COMMENT + "\nm M 8"
    shot = screenshot(page, "judging-settings-context-comment")
    assert shot.exists()

    with page.expect_navigation():
        page.keyboard.press("Control+Enter")
    row.refresh_from_db()
    assert row.comment == COMMENT + "\nm M 8"
    assert Judgment.objects.get(assigned_item=row).score == score
