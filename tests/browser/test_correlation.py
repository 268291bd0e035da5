"""A viewer opens the correlation matrix of the demo in Chromium, switches coefficient and
grouping, opens a scatter plot from a value, switches to segment level and clicks a point,
which opens that segment in the test-set browser; screenshots are kept as test artifacts."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from evaltrans.roles import VIEWERS_GROUP
from judging.humanscores.models import JudgmentSet
from judging.humanscores.services import DEMO_RATINGS_NAME
from tests.conftest import make_user

from .conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIRST_POINT = """(element) => {
  const layout = element._fullLayout, trace = element._fullData.find(t => t.x && t.x.length);
  const xa = layout.xaxis, ya = layout.yaxis;
  for (let k = 0; k < trace.x.length; k++) {
    const x = xa.d2p(trace.x[k]), y = ya.d2p(trace.y[k]);
    if (x >= 0 && x <= xa._length && y >= 0 && y <= ya._length) {
      return {x: xa._offset + x, y: ya._offset + y};
    }
  }
  return null;
}"""


def test_a_viewer_explores_the_matrix_and_opens_a_segment_from_the_scatter(live_server, page):
    call_command("load_demo", "--force", stdout=StringIO())
    call_command("load_demo_runs", stdout=StringIO())
    make_user("reader", group=VIEWERS_GROUP)
    assert JudgmentSet.objects.filter(name=DEMO_RATINGS_NAME).exists()
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "reader")
    page.fill("#id_password", "pw-reader")
    page.click("button[type=submit]")

    page.click("nav >> text=Correlation")
    page.click(f"#correlation-sources >> text={DEMO_RATINGS_NAME}")
    page.wait_for_selector("#matrix-figure .main-svg")
    assert page.locator("#matrix-table tbody tr").count() == 7
    assert page.locator("#matrix-table td.best").count() >= 12
    screenshot(page, "correlation-matrix-pearson")

    page.select_option("select[name=coefficient]", "kendall-b")
    page.wait_for_url("**coefficient=kendall-b**")
    page.wait_for_selector("#matrix-figure .main-svg")
    page.select_option("select[name=grouping]", "item")
    page.wait_for_url("**grouping=item**")
    page.wait_for_selector("#matrix-figure .main-svg")
    screenshot(page, "correlation-matrix-kendall-item")

    # Sorting by a column puts its best value first.
    page.click("#matrix-table thead th >> nth=1")
    first = page.locator("#matrix-table tbody tr >> nth=0 >> td >> nth=0")
    assert "best" in (first.get_attribute("class") or "")

    # A value opens its scatter plot at that level.
    page.click("#matrix-table tbody tr >> nth=0 >> td >> nth=0 >> a")
    page.wait_for_selector("#scatter-figure .main-svg")
    page.wait_for_selector("#ranking-figure .main-svg")
    assert page.locator("#ranking-table tbody tr").count() == 13
    screenshot(page, "correlation-scatter-system")

    page.click("text=Segments: scatter & disagreements")
    page.wait_for_selector("#scatter-figure .main-svg")
    assert page.locator("#disagreement-table tbody tr").count() == 25
    screenshot(page, "correlation-scatter-segment")
    figure = page.locator("#scatter-figure")
    point = figure.evaluate(FIRST_POINT)
    box = figure.bounding_box()
    page.mouse.click(box["x"] + point["x"], box["y"] + point["y"])
    page.wait_for_url("**/segments/**")
    assert page.locator("#candidates tbody tr").count() >= 13
    screenshot(page, "correlation-point-opens-segment")


def test_an_admin_runs_a_settings_sweep_and_sees_every_value(live_server, page):
    call_command("load_demo", "--force", stdout=StringIO())
    call_command("load_demo_runs", stdout=StringIO())
    make_user("boss", staff=True)
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "boss")
    page.fill("#id_password", "pw-boss")
    page.click("button[type=submit]")
    page.click("nav >> text=Correlation")
    page.click(f"#correlation-sources >> text={DEMO_RATINGS_NAME}")
    page.click("text=Settings sweep")
    page.select_option("#sweep-measure", "cder")
    page.wait_for_url("**measure=cder**")
    page.select_option("select[name=option]", "pad-rule")
    page.wait_for_url("**option=pad-rule**")
    assert page.locator("#sweep-missing").is_visible()
    page.click("#sweep-start button")
    page.wait_for_url("**run=**")
    page.wait_for_selector("#sweep-figure .main-svg")
    assert page.locator("#sweep-missing").count() == 0
    assert page.locator("#sweep-table tbody tr").count() == 4
    assert page.locator("#sweep-table >> text=not computed").count() == 0
    screenshot(page, "correlation-sweep-cder-pad-rule")


def _judge_screens(username: str, screens: int | None) -> None:
    """Judge ``screens`` screens (None: all) of a demo judge's assignment, levels varying by
    candidate so that the correlations are defined."""
    from judging.models import Assignment
    from judging.selectors import screen_next
    from tests.judging.test_services import submit_screen

    assignment = Assignment.objects.get(judge__username=username)
    done = 0
    while (screens is None or done < screens) and (
        screen := screen_next(assignment=assignment)
    ) is not None:
        submit_screen(assignment, screen, [1 + (screen + k) % 5 for k in range(8)])
        done += 1


def test_a_campaigns_matrix_updates_live_as_judgments_arrive(live_server, page):
    call_command("load_demo", "--force", stdout=StringIO())
    call_command("load_demo_runs", stdout=StringIO())
    call_command("load_demo_campaign", stdout=StringIO())
    from judging.management.commands.load_demo_campaign import DEMO_CAMPAIGN
    from judging.models import Campaign

    _judge_screens("judge1", None)
    make_user("reader", group=VIEWERS_GROUP)
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", "reader")
    page.fill("#id_password", "pw-reader")
    page.click("button[type=submit]")
    campaign = Campaign.objects.get(name=DEMO_CAMPAIGN)
    page.goto(f"{live_server.url}/correlation/campaign/{campaign.pk}/")
    page.wait_for_selector("#matrix-figure .main-svg")
    assert page.locator("#live-badge").is_visible()
    before = int(page.locator("#judgment-count").inner_text())
    page.evaluate("window.notReloaded = true")

    _judge_screens("judge2", 3)  # judgments arrive while the viewer watches
    page.wait_for_function(
        f"document.getElementById('judgment-count').textContent !== '{before}'", timeout=20_000
    )
    after = int(page.locator("#judgment-count").inner_text())
    assert after > before
    # The matrix was swapped in place (no reload) and its figure drawn again.
    assert page.evaluate("window.notReloaded") is True
    page.wait_for_selector("#matrix-figure .main-svg")
    assert page.locator("#matrix-table tbody tr").count() >= 1
    screenshot(page, "correlation-matrix-live")
    # The sweep and combination pages of a campaign poll the same state.
    for tab in ("sweep", "combination"):
        page.goto(f"{live_server.url}/correlation/campaign/{campaign.pk}/{tab}/")
        assert page.locator("#dashboard-body[data-live]").count() == 1
