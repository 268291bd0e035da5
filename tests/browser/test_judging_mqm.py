"""MQM error spans in Chromium at 1280×720: a judge marks errors with the keyboard alone
(arrows move over the words, Shift+arrows extend the selection, m/M give the severity, the
category comes from the list, Enter adds and submits) and the spans are stored at the
offsets selected; "no errors" is Enter alone; a second judge marks a span with the mouse."""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, ErrorSpan, Judgment
from judging.selectors import screen_detail
from judging.services import campaign_create, screen_submit
from tests.conftest import make_user
from tests.judging.test_services import rendered_token

from .conftest import screenshot
from .test_judging import (
    MAX_TABS,
    click_and_wait,
    focused_text,
    log_in_with_the_mouse,
    press_and_wait,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CANDIDATE = "The fast brown fox jump over the lazy dog."
CLEAN = "It sleeps all day."


def mqm_assignment(username: str, **options) -> Assignment:
    """Two segments of one document, one system, one judge; the source shown."""
    settings = {"protocol": Campaign.Protocol.MQM, "repeat_share": 0.0, **options}
    return one_document_assignment(username, f"MQM of {username}", CLEAN, **settings)


def one_document_assignment(username: str, name: str, second: str, **settings) -> Assignment:
    """Two segments of one document (the second candidate ``second``), one system, one judge,
    in a campaign ``name`` of ``settings``."""
    judge = make_user(username, group=JUDGES_GROUP)
    corpus = CorpusData(
        source_lang="de",
        target_lang="en",
        name=f"set-{username}",
        segments=[
            SegmentData(
                source="Der schnelle braune Fuchs springt über den faulen Hund.",
                doc_id="d1",
                seg_id="1",
                references={"A": "The quick brown fox jumps over the lazy dog."},
                candidates={"sys": CANDIDATE},
            ),
            SegmentData(
                source="Er schläft den ganzen Tag.",
                doc_id="d1",
                seg_id="2",
                references={"A": "He sleeps all day long."},
                candidates={"sys": second},
            ),
        ],
    )
    test_set = testset_import(corpus=corpus, name=f"set-{username}", import_format="text").test_set
    campaign = campaign_create(
        name=name,
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        **{"seed": 1, **settings},
    )
    return Assignment.objects.get(campaign=campaign, judge=judge)


def stored_spans(assignment: Assignment) -> list[tuple]:
    return list(
        ErrorSpan.objects.filter(judgment__assigned_item__assignment=assignment)
        .order_by("start")
        .values_list("start", "end", "category", "severity", "note")
    )


def open_first_screen_by_keyboard(page, live_server, username: str) -> None:
    page.goto(f"{live_server.url}/")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'id_username'")
    page.keyboard.type(username)
    page.keyboard.press("Tab")
    page.keyboard.type("pw-" + username)
    press_and_wait(page, "Enter")
    for _ in range(MAX_TABS):
        page.keyboard.press("Tab")
        if focused_text(page) == "Start":
            break
    press_and_wait(page, "Enter")


def selected_text(page) -> str:
    return page.evaluate(
        "Array.from(document.querySelectorAll('.span-text .ch.sel')).map(e => e.textContent).join('')"
    )


def test_errors_are_marked_with_the_keyboard_alone(live_server, small_page):
    page = small_page
    assignment = mqm_assignment("anja")
    open_first_screen_by_keyboard(page, live_server, "anja")
    assert page.locator("h1").inner_text().startswith("Screen 1")
    # The candidate text has the focus, its first word the caret.
    assert page.evaluate("document.activeElement.hasAttribute('data-span-text')")
    assert selected_text(page) == "The"
    assert page.locator("#submit-button").inner_text().startswith("No errors")

    for _ in range(4):
        page.keyboard.press("ArrowRight")
    assert selected_text(page) == "jump"
    page.keyboard.press("Shift+ArrowRight")
    assert selected_text(page) == "jump over"
    page.keyboard.press("Shift+ArrowLeft")
    assert selected_text(page) == "jump"
    page.keyboard.press("Shift+M")  # major: the category list takes the focus
    assert page.locator("[data-span-editor]").is_visible()
    assert page.evaluate("document.activeElement.hasAttribute('data-span-category')")
    for _ in range(4):  # Accuracy/Addition -> … -> Fluency/Grammar
        page.keyboard.press("ArrowDown")
    assert page.locator("[data-span-category]").input_value() == "Fluency/Grammar"
    page.keyboard.press("Enter")  # adds the error, not the screen
    assert page.locator("h1").inner_text().startswith("Screen 1")
    assert page.locator(".span-item").count() == 1

    # The caret moved past the error: "over"; extend to "over the", minor, with a note.
    assert selected_text(page) == "over"
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("m")
    for _ in range(2):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    page.keyboard.type("wrong preposition")
    page.keyboard.press("Enter")
    assert page.locator(".span-item").count() == 2
    assert page.locator(".span-text .ch.err-major").count() == len("jump")

    # A third error is deleted again: Delete with the caret on it.
    page.keyboard.press("ArrowRight")
    page.keyboard.press("m")
    page.keyboard.press("Enter")
    assert page.locator(".span-item").count() == 3
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Delete")
    assert page.locator(".span-item").count() == 2

    # For the record: a selection with the editor open, next to the marked errors.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Shift+ArrowRight")
    assert selected_text(page) == "lazy dog"
    page.keyboard.press("Shift+M")
    page.mouse.move(5, 5)
    screenshot(page, "judging-mqm-screen")
    page.keyboard.press("Escape")
    assert page.locator(".span-item").count() == 2
    assert page.evaluate("document.activeElement.hasAttribute('data-span-text')")
    press_and_wait(page, "Enter")

    assert stored_spans(assignment) == [
        (19, 23, "Fluency/Grammar", "major", ""),
        (24, 32, "Accuracy/Mistranslation", "minor", "wrong preposition"),
    ]
    assert CANDIDATE[19:23] == "jump" and CANDIDATE[24:32] == "over the"
    judgment = Judgment.objects.get(assigned_item__screen=0, assigned_item__assignment=assignment)
    assert judgment.score == -600 and judgment.active_ms > 0

    # No errors: Enter alone.
    assert page.locator("h1").inner_text().startswith("Screen 2")
    press_and_wait(page, "Enter")
    assert page.locator("h1").inner_text().startswith("All done")
    clean = Judgment.objects.get(assigned_item__screen=1, assigned_item__assignment=assignment)
    assert clean.score == 0 and not clean.spans.exists()


def test_an_error_is_marked_with_the_mouse_alone(live_server, small_page):
    page = small_page
    assignment = mqm_assignment("moritz")
    log_in_with_the_mouse(page, live_server, "moritz")
    click_and_wait(page, "a:has-text('Start')")
    first = page.locator(".span-text .ch[data-i='9']").bounding_box()  # "b" of "brown"
    last = page.locator(".span-text .ch[data-i='13']").bounding_box()  # "n" of "brown"
    page.mouse.move(first["x"] + 1, first["y"] + first["height"] / 2)
    page.mouse.down()
    page.mouse.move(last["x"] + last["width"] - 1, last["y"] + last["height"] / 2, steps=5)
    page.mouse.up()
    assert page.locator("[data-span-editor]").is_visible()
    assert page.locator("[data-span-selected]").inner_text() == "brown"
    page.locator(".severity-minor").click()
    page.locator("[data-span-category]").select_option("Style/Awkward")
    page.locator("[data-span-add]").click()
    assert page.locator(".span-item").count() == 1
    click_and_wait(page, "#submit-button")
    assert stored_spans(assignment) == [(9, 14, "Style/Awkward", "minor", "")]


def test_esa_spans_then_the_overall_score_with_the_keyboard(live_server, small_page):
    page = small_page
    assignment = mqm_assignment("esther", protocol=Campaign.Protocol.ESA)
    open_first_screen_by_keyboard(page, live_server, "esther")
    # The errors come first: the text has the focus, not the slider.
    assert page.evaluate("document.activeElement.hasAttribute('data-span-text')")
    for _ in range(4):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+M")  # ESA: no category, added at once
    assert page.locator(".span-item").count() == 1
    assert not page.locator("[data-span-editor]").is_visible()
    page.keyboard.press("Enter")  # refused: the overall score is missing
    assert "Move every slider first" in page.locator("#form-hint").inner_text()
    assert page.evaluate("document.activeElement.type") == "range"
    page.keyboard.press("Shift+ArrowRight")  # 50 -> 60
    page.keyboard.press("ArrowRight")  # 61
    page.mouse.move(5, 5)
    page.wait_for_timeout(1000)  # let the "missing" highlight of the refused Enter fade
    screenshot(page, "judging-esa-screen")
    press_and_wait(page, "Enter")
    judgment = Judgment.objects.get(assigned_item__screen=0, assigned_item__assignment=assignment)
    assert (judgment.protocol, judgment.score) == ("esa", 61)
    assert stored_spans(assignment) == [(19, 23, "", "major", "")]


def test_an_admin_sees_the_spans_highlighted(live_server, small_page):
    page = small_page
    assignment = mqm_assignment("hugo")
    for screen, spans in (
        (0, [{"start": 19, "end": 23, "category": "Fluency/Grammar", "severity": "major"},
             {"start": 4, "end": 8, "category": "Accuracy/Mistranslation", "severity": "minor",
              "note": "schnell = quick"}]),
        (1, []),
    ):  # fmt: skip
        entry = screen_detail(assignment=assignment, screen=screen).entries[0]
        screen_submit(
            assignment=assignment,
            screen=screen,
            scores={},
            active_ms=1000,
            token=rendered_token(assignment, screen),
            spans={entry.assigned.pk: spans},
        )
    make_user("boss", staff=True)
    log_in_with_the_mouse(page, live_server, "boss")
    page.goto(f"{live_server.url}/judging/campaigns/{assignment.campaign_id}/")
    click_and_wait(page, "#span-judgments-link")
    marks = page.locator("#span-judgments mark.err")
    assert [marks.nth(k).inner_text() for k in range(marks.count())] == ["fast", "jump"]
    assert page.locator("#span-judgments tbody tr").count() == 2
    screenshot(page, "judging-mqm-admin-spans")
