"""System names with quotes, ampersands and HTML, as plotly.js really draws them in Chromium.

``tests/test_plotting.py`` checks ``escape_label`` against a Python copy of plotly's text
rendering; this test checks the figures of the ranking page in the real plotly.js: every name
is drawn literally, no entity shows through, and no markup from data is interpreted or run.
"""

from __future__ import annotations

import pytest

from evaltrans.corpora.formats.base import InputFile
from evaltrans.roles import VIEWERS_GROUP
from judging.humanscores.services import judgmentset_import_file
from tests.conftest import make_user
from tests.judging.humanscores.conftest import MQM_HEADER, SOURCES

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ['a"b', "it's", "<b>x</b>", "A&B"]
# An image whose error handler would run if plotly (or the page) turned a name into markup.
TRAP = '<img src=x onerror="window.alerted=1;alert(1)">'
ERRORS = {0: ("No-error", "No-error"), 1: ("Fluency/Grammar", "Minor"),
          2: ("Accuracy/Mistranslation", "Major"), 3: ("Accuracy/Omission", "Major")}  # fmt: skip
FIGURES = ("#figure-ranking-raw", "#figure-significance-raw")


def mqm_file() -> InputFile:
    """Four systems with the awkward names, three segments, two raters; each system makes
    errors of its own weight, so no two tie."""
    rows = [MQM_HEADER]
    for rank, system in enumerate(NAMES):
        for seg, source in enumerate(SOURCES, 1):
            for rater in ("rater1", TRAP):
                category, severity = ERRORS[rank] if seg != 3 or rank == 3 else ERRORS[0]
                rows.append(
                    f"{system}\tdoc1\t1\t{seg}\t{rater}\t{source}\tx {seg}\t{category}\t{severity}\t"
                )
    return InputFile("awkward.tsv", ("\n".join(rows) + "\n").encode())


def drawn_texts(page, selector: str) -> list[str]:
    return page.locator(f"{selector} text").all_text_contents()


def test_ranking_figures_draw_names_literally_and_run_no_markup(live_server, page):
    result = judgmentset_import_file(import_format="mqm-tsv", file=mqm_file(), name="awkward")
    make_user("vic", group=VIEWERS_GROUP)
    page.add_init_script("window.alerted = 0")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))

    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "vic")
    page.fill("#id_password", "pw-vic")
    with page.expect_navigation():
        page.click("button[type=submit]")
    page.goto(f"{live_server.url}/human/set/{result.judgment_set.pk}/?view=raw")
    for selector in FIGURES:
        page.wait_for_selector(f"{selector} .main-svg")

    for selector in FIGURES:
        texts = drawn_texts(page, selector)
        for name in NAMES:
            assert name in texts, (selector, name, texts)
        joined = "\n".join(texts)
        for entity in ("&quot;", "&amp;", "&lt;", "&gt;", "&#"):
            assert entity not in joined, (selector, entity)
        # "<b>x</b>" is text, not bold markup: no <tspan style="font-weight:bold"> holds "x".
        assert page.locator(f"{selector} tspan[style*='bold']").count() == 0
    # Top to bottom, the chart's names read as the ranking table's (which Django escaped).
    ticks = page.locator("#figure-ranking-raw .ytick text")
    tops = {ticks.nth(k).text_content(): ticks.nth(k).bounding_box()["y"] for k in range(4)}
    table = page.locator("#ranking-table-raw tbody td:nth-child(2)").all_text_contents()
    assert sorted(tops, key=tops.get) == [name.strip() for name in table]
    assert sorted(table) == sorted(NAMES)

    # Hover labels go through the same renderer: the best system's point names it literally.
    box = page.locator("#figure-ranking-raw .scatterlayer .trace:first-child .point").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    hover = page.locator("#figure-ranking-raw .hoverlayer text").first
    assert hover.text_content().startswith(table[0].strip())
    screenshot(page, "plot-labels-ranking")

    # The rater's name with an <img> is shown as text on the judges page as well.
    page.goto(f"{live_server.url}/human/set/{result.judgment_set.pk}/judges/?view=raw")
    page.wait_for_selector("#figure-levels .main-svg")
    assert TRAP in page.locator("#figure-levels .xtick text").all_text_contents()
    assert page.locator("img[src=x]").count() == 0

    assert page.evaluate("window.alerted") == 0 and dialogs == []
