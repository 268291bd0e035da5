"""A viewer opens a segment of the demo from the test-set browser in Chromium, picks a candidate
with the keyboard, opens its alignment grids, switches measure, CDER direction and reference
without a reload, goes on to the next segment with → and opens the two-system comparison;
screenshots are kept as test artifacts."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from evaltrans.corpora.management.commands.load_demo_corpus import demo_test_set
from evaltrans.corpora.models import Reference
from evaltrans.corpora.selectors import segment_browser_url
from evaltrans.roles import VIEWERS_GROUP
from tests.conftest import make_user

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEGMENT = 248
"""“Das hier ist Arum maculatum, der Gefleckte Aronstab.”: Online-W puts “Aronstab” first."""
SYSTEM = "Online-W"
SECOND_REFERENCE = "Hier ist Arum maculatum, der Gefleckte Aronstab, in diesem Land."


def wait_for_variant(page, key: str) -> None:
    page.wait_for_function(
        "key => document.getElementById('grid-figure').dataset.variant === key", arg=key
    )
    page.wait_for_selector("#grid-figure .main-svg")


def test_a_viewer_reads_a_segment_and_its_alignment_grids(live_server, page):
    call_command("load_demo", "--force", stdout=StringIO())
    call_command("load_demo_runs", stdout=StringIO())
    test_set = demo_test_set()
    segment = test_set.segments.get(index=SEGMENT - 1)
    Reference.objects.create(segment=segment, label="second", text=SECOND_REFERENCE)
    make_user("reader", group=VIEWERS_GROUP)
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "reader")
    page.fill("#id_password", "pw-reader")
    page.click("button[type=submit]")

    # From the test-set browser's page holding the segment, its "scores & alignments" link.
    page.goto(f"{live_server.url}{segment_browser_url(test_set=test_set, index=SEGMENT - 1)}")
    page.click(f"#seg-{SEGMENT} .segment-open")
    page.wait_for_url(f"**/segments/{test_set.pk}/{SEGMENT}/")
    rows = page.locator("#candidates tbody tr.candidate")
    assert rows.count() == test_set.systems.count() == 13
    assert page.locator("#candidates thead th").count() == 2 + 7 + 1  # 7 stored measures
    assert page.locator("#judgments table").count() >= 1
    screenshot(page, "segment-page")

    # ↓ walks the candidates (sorted by system name); Enter opens the chosen one's grids.
    names = [rows.nth(k).locator("th").inner_text().strip() for k in range(rows.count())]
    for _ in range(names.index(SYSTEM) + 1):
        page.keyboard.press("ArrowDown")
    assert "selected" in (rows.nth(names.index(SYSTEM)).get_attribute("class") or "")
    page.keyboard.press("Enter")
    page.wait_for_url("**/grid/?system=*")
    wait_for_variant(page, "wer|ref||")
    assert SYSTEM in page.locator("h1").inner_text()
    assert page.locator("#alignment-text").inner_text().startswith("WER")
    screenshot(page, "segment-grid-wer")

    # Measures, CDER's direction and the reference switch in place (no new request).
    page.click("#measure-switch button[data-measure=cder]")
    wait_for_variant(page, "cder|ref|forward|both")
    assert "cder" in page.url and "UNCOVERED" in page.locator("#alignment-text").inner_text()
    screenshot(page, "segment-grid-cder")
    page.click("#direction-switch button[data-direction=backward]")
    wait_for_variant(page, "cder|ref|backward|both")
    page.select_option("#reference-select", "second")
    wait_for_variant(page, "cder|second|backward|both")
    assert "reference second" in page.locator("#variant-title").inner_text()
    page.click("#measure-switch button[data-measure=invwer]")
    wait_for_variant(page, "invwer|second||")
    screenshot(page, "segment-grid-invwer")
    page.click("#measure-switch button[data-measure=per]")
    wait_for_variant(page, "per|second||")
    screenshot(page, "segment-grid-per")
    page.click("#measure-switch button[data-measure=ter]")
    wait_for_variant(page, "ter|second||")
    screenshot(page, "segment-grid-ter")

    # Back on the segment page, → opens the next segment.
    page.click("#back-to-segment")
    page.wait_for_url(f"**/segments/{test_set.pk}/{SEGMENT}/")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**/segments/{test_set.pk}/{SEGMENT + 1}/")
    assert f"Segment {SEGMENT + 1}" in page.locator("h1").inner_text()
    page.keyboard.press("k")
    page.wait_for_url(f"**/segments/{test_set.pk}/{SEGMENT}/")

    # The two-system comparison, from the segment page.
    page.click("#compare-link")
    page.wait_for_url(f"**/segments/{test_set.pk}/compare/**")
    assert page.locator("table").count() >= 3
    screenshot(page, "segment-compare-systems")
