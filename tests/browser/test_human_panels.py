"""An admin opens the demo's three human-score panels in Chromium, sees the figures drawn and
toggles raw <-> normalized on each; screenshots are kept as test artifacts."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from judging.humanscores.models import JudgmentSet
from judging.humanscores.services import DEMO_RATINGS_NAME
from tests.conftest import make_user

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PANELS = [("", "ranking", "#figure-ranking"), ("judges/", "judges", "#figure"),
          ("agreement/", "agreement", "#figure-agreement")]  # fmt: skip


def _drawn(page, pane: str) -> int:
    """Plotly figures drawn (with an SVG) inside the visible panes of one view."""
    return page.locator(f"[data-view-pane='{pane}']:visible .js-plotly-plot .main-svg").count()


def test_admin_toggles_raw_and_normalized_on_each_panel(live_server, page):
    call_command("load_demo", "--force", stdout=StringIO())
    make_user("boss", staff=True)
    pk = JudgmentSet.objects.get(name=DEMO_RATINGS_NAME).pk
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("button[type=submit]")
    page.click("text=Human scores")
    page.click(f"text={DEMO_RATINGS_NAME}")

    for path, name, _ in PANELS:
        page.goto(f"{live_server.url}/human/set/{pk}/{path}")
        page.wait_for_selector("[data-view-pane='raw'] .js-plotly-plot .main-svg")
        assert _drawn(page, "raw") >= 1
        assert page.locator("[data-view-pane='normalized']:visible").count() == 0
        screenshot(page, f"human-{name}-raw")

        page.click(".hs-toggle [data-view='normalized']")
        page.wait_for_selector("[data-view-pane='normalized']:visible .js-plotly-plot .main-svg")
        assert _drawn(page, "normalized") >= 1
        assert page.locator("[data-view-pane='raw']:visible").count() == 0
        assert "view=normalized" in page.url
        screenshot(page, f"human-{name}-normalized")

        page.click(".hs-toggle [data-view='raw']")
        assert page.locator("[data-view-pane='normalized']:visible").count() == 0
        assert _drawn(page, "raw") >= 1

    # From the judge table to a judge's judgments.
    page.goto(f"{live_server.url}/human/set/{pk}/judges/")
    page.click("#judge-table a >> nth=0")
    page.wait_for_selector("#judgment-table")
    assert page.locator("#judge-heading").inner_text().startswith("Judgments of rater1")
    screenshot(page, "human-judge-judgments")
