"""Post-editing in Chromium at 1280×720: a judge edits the machine translation with the
keyboard alone (the box has the focus; Enter adds no line break and does not submit; Esc puts
the machine translation back; Ctrl+Enter submits) and the post-edit is stored with its active
time; an empty box is refused on the page; a second judge post-edits with the mouse alone, and
an item from scratch shows no machine translation."""

from __future__ import annotations

import pytest
from django.urls import reverse

from judging.models import Assignment, Campaign, Judgment, PostEdit
from judging.postedit import is_from_scratch
from tests.conftest import make_user

from .conftest import screenshot
from .test_judging import click_and_wait, log_in_with_the_mouse, press_and_wait
from .test_judging_mqm import one_document_assignment, open_first_screen_by_keyboard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

CANDIDATE = "The fast brown fox jump over the lazy dog."
FIXED = "The quick brown fox jumps over the lazy dog."
SECOND = "It sleeps all day."


def postedit_assignment(username: str, **options) -> Assignment:
    """Two segments of one document, one system, one judge; the source shown."""
    settings = {"protocol": Campaign.Protocol.POST_EDIT, **options}
    return one_document_assignment(username, f"Post-editing of {username}", SECOND, **settings)


def box_value(page) -> str:
    return page.locator("textarea[data-postedit]").input_value()


def test_a_postedit_is_made_with_the_keyboard_alone(live_server, small_page):
    page = small_page
    assignment = postedit_assignment("paula")
    open_first_screen_by_keyboard(page, live_server, "paula")
    assert page.locator("h1").inner_text().startswith("Screen 1")
    first = assignment.items.get(screen=0).item.text
    # The box has the focus, pre-filled with the machine translation, the caret at the end.
    assert page.evaluate("document.activeElement.hasAttribute('data-postedit')")
    assert box_value(page) == first
    assert page.evaluate("document.activeElement.selectionStart") == len(first)

    page.keyboard.press("Control+a")
    page.keyboard.type("Something else entirely")
    page.keyboard.press("Escape")  # back to the machine translation
    assert box_value(page) == first
    page.keyboard.press("Enter")  # no line break, no submission
    assert box_value(page) == first
    assert page.locator("h1").inner_text().startswith("Screen 1")
    assert "Ctrl+Enter" in page.locator("#form-hint").inner_text()

    target = FIXED if first == CANDIDATE else "It sleeps the whole day."
    page.keyboard.press("Control+a")
    page.keyboard.type(target)
    page.wait_for_timeout(600)  # some active time
    page.mouse.move(5, 5)
    screenshot(page, "judging-postedit-screen")
    press_and_wait(page, "Control+Enter")

    judgment = Judgment.objects.get(assigned_item__screen=0, assigned_item__assignment=assignment)
    assert (judgment.protocol, judgment.score) == ("post-edit", 0)
    assert judgment.postedit.text == target and judgment.active_ms > 0

    # An empty box is refused on the page; then the candidate as it is (no change needed).
    assert page.locator("h1").inner_text().startswith("Screen 2")
    second = assignment.items.get(screen=1).item.text
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.press("Control+Enter")
    assert "empty post-edit" in page.locator("#form-hint").inner_text()
    assert page.locator("h1").inner_text().startswith("Screen 2")
    page.keyboard.press("Escape")
    press_and_wait(page, "Control+Enter")
    assert page.locator("h1").inner_text().startswith("All done")
    stored = PostEdit.objects.get(judgment__assigned_item__screen=1)
    assert stored.text == second and stored.judgment.active_ms > 0


def test_a_postedit_is_made_with_the_mouse_alone(live_server, small_page):
    page = small_page
    assignment = postedit_assignment("moira")
    log_in_with_the_mouse(page, live_server, "moira")
    click_and_wait(page, "a:has-text('Start')")
    first = assignment.items.get(screen=0).item.text
    page.locator("textarea[data-postedit]").click()
    page.locator("textarea[data-postedit]").fill(first.replace(".", "!"))
    click_and_wait(page, "#submit-button")
    assert PostEdit.objects.get().text == first.replace(".", "!")


def test_an_item_from_scratch_shows_no_machine_translation(live_server, small_page):
    page = small_page
    assignment = postedit_assignment("fritz", scratch_share=0.5)
    row = assignment.items.select_related("item").get(screen=0)
    # The draw depends on (seed, assigned item id): pick a seed that makes screen 1 scratch.
    seed = next(
        s for s in range(1000) if is_from_scratch(seed=s, assigned_item_id=row.pk, share=0.5)
    )
    Campaign.objects.filter(pk=assignment.campaign_id).update(seed=seed)
    log_in_with_the_mouse(page, live_server, "fritz")
    page.goto(live_server.url + reverse("judging:judge_screen", args=[assignment.pk, 1]))
    assert box_value(page) == ""
    assert row.item.text not in page.content()
    assert "No machine translation is shown" in page.locator(".postedit-entry").inner_text()
    page.keyboard.type("My own translation.")
    page.mouse.move(5, 5)
    screenshot(page, "judging-postedit-scratch")
    press_and_wait(page, "Control+Enter")
    stored = PostEdit.objects.get()
    assert stored.from_scratch and stored.text == "My own translation."


def test_the_campaign_page_reports_hter_and_efficiency(live_server, small_page):
    page = small_page
    assignment = postedit_assignment("greta", scratch_share=0.5)
    campaign = assignment.campaign
    rows = list(assignment.items.order_by("screen"))
    seed = next(
        s
        for s in range(1000)
        if is_from_scratch(seed=s, assigned_item_id=rows[0].pk, share=0.5)
        and not is_from_scratch(seed=s, assigned_item_id=rows[1].pk, share=0.5)
    )
    Campaign.objects.filter(pk=campaign.pk).update(seed=seed)
    from judging.services import screen_submit
    from tests.judging.test_services import rendered_token

    for row, text, ms in ((rows[0], "He sleeps all day long.", 9000), (rows[1], "", 2000)):
        screen_submit(
            assignment=assignment,
            screen=row.screen,
            scores={},
            active_ms=ms,
            token=rendered_token(assignment, row.screen),
            postedits={row.pk: text or row.item.text.replace("fast", "quick")},
        )
    make_user("boss", staff=True)
    log_in_with_the_mouse(page, live_server, "boss")
    page.goto(live_server.url + campaign.get_absolute_url())
    table = page.locator("#postedit-table").inner_text()
    assert "sys" in table
    screenshot(page, "judging-postedit-campaign")


def test_an_hter_run_started_in_the_browser_equals_sacrebleu(live_server, small_page):
    """The judge post-edits both screens; an admin starts a run of HTER against the campaign on
    the run form; the results table shows sacreBLEU's TER of the candidates against the
    post-edits."""
    from sacrebleu.metrics import TER as SacreTER

    from metrics.models import SystemScore

    page = small_page
    assignment = postedit_assignment("hanna")
    log_in_with_the_mouse(page, live_server, "hanna")
    click_and_wait(page, "a:has-text('Start')")
    edits = [FIXED, "He sleeps the whole day ."]
    for text in edits:
        page.locator("textarea[data-postedit]").fill(text)
        click_and_wait(page, "#submit-button")
    assert sorted(PostEdit.objects.values_list("text", flat=True)) == sorted(edits)

    page.context.clear_cookies()
    make_user("boss", staff=True)
    log_in_with_the_mouse(page, live_server, "boss")
    test_set = assignment.campaign.test_set
    page.goto(f"{live_server.url}{reverse('metrics:run_create')}?test_set={test_set.pk}")
    page.check("input[name=measures][value=hter]")
    page.click("details[data-measure=hter] summary")
    chosen = page.locator("select[name='opt__hter__post-edits']")
    assert chosen.input_value() == assignment.campaign.name
    screenshot(page, "run-form-hter")
    click_and_wait(page, "#run-form button[type=submit]")
    page.wait_for_selector("#results-table")
    shown = page.locator("#results-table tbody td").nth(1).inner_text()
    expected = SacreTER().corpus_score([CANDIDATE, SECOND], [edits]).score
    stored = SystemScore.objects.get(measure="hter")
    assert stored.score == pytest.approx(expected, abs=1e-9)
    assert float(shown) == pytest.approx(expected, abs=0.01)
    screenshot(page, "run-results-hter")
