"""Every protocol's judging screen at tablet width (768×1024, portrait) and at 1280×720: no
horizontal scrolling, the submit button and every score control inside the viewport's width
and clickable; revealing the reference (categorical and DA, "fluency first, then adequacy")
leaves the translation where it was; every interactive control has an accessible name (as
Chromium's accessibility tree computes it: what a screen reader announces).

Screenshots: ``test-artifacts/judging-layout-<protocol>-<width>.png``.
"""

from __future__ import annotations

from typing import Any

import pytest

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign
from judging.scales import da_scales
from judging.services import campaign_create
from tests.conftest import make_user

from .conftest import screenshot
from .test_judging import log_in_with_the_mouse

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VIEWPORTS = {"tablet": {"width": 768, "height": 1024}, "desktop": {"width": 1280, "height": 720}}
SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo")
LONG_URL = "https://www.example.org/de/bundesregierung/pressemitteilungen/2024/haushaltsentwurf"

# Two segments of one document; sentences as long as real news sentences, one with a long URL
# (an unbreakable run of characters must wrap, not widen the page).
SEGMENTS = [
    (
        "Die Bundesregierung hat am Mittwoch den Entwurf für den Haushalt des kommenden Jahres "
        "vorgelegt, der deutlich höhere Ausgaben für Bildung und Forschung vorsieht.",
        "On Wednesday the federal government presented the draft budget for next year, which "
        "provides for significantly higher spending on education and research.",
        [
            "On Wednesday, the federal government presented the draft of the budget for the "
            "coming year, which foresees clearly higher expenditure for education and research.",
            "The federal government on Wednesday submitted the draft for the budget of the next "
            "year, that provides much higher spendings for education and research.",
            "Wednesday the federal government has the draft for the household of the coming year "
            "presented, which clearly higher expenses for formation and research foresees.",
            "On Wednesday the government presented next year's draft budget with significantly "
            "more money for education and research.",
            "The federal government presented the budget draft on Wednesday.",
        ],
    ),
    (
        f"Weitere Einzelheiten sind unter {LONG_URL} veröffentlicht.",
        f"Further details are published at {LONG_URL}.",
        [
            f"Further details are published at {LONG_URL}.",
            f"More details have been published under {LONG_URL}.",
            f"Further particulars are under {LONG_URL} published.",
            "Further details are published on the website.",
            f"Details: {LONG_URL}",
        ],
    ),
]

PROTOCOLS = {
    "categorical": {"protocol": Campaign.Protocol.CATEGORICAL},
    "da": {
        "protocol": Campaign.Protocol.DIRECT_ASSESSMENT,
        "scales": da_scales(aspects=("fluency", "adequacy"), basis="reference"),
        "bad_reference_share": 0.0,
    },
    "ranking": {"protocol": Campaign.Protocol.RANKING},
    "categorical-grouped": {
        "protocol": Campaign.Protocol.CATEGORICAL,
        "presentation": Campaign.Presentation.GROUPED,
    },
    "mqm": {"protocol": Campaign.Protocol.MQM},
    "esa": {"protocol": Campaign.Protocol.ESA},
    "post-edit": {"protocol": Campaign.Protocol.POST_EDIT},
}
SIDE_BY_SIDE = ("ranking", "categorical-grouped")
"""Protocols (presentations) with all five systems' translations on one screen."""
REVEALING = ("categorical", "da")
"""Protocols whose screens ask fluency first, then reveal the reference for adequacy."""


def layout_corpus(name: str) -> CorpusData:
    return CorpusData(
        source_lang="de",
        target_lang="en",
        name=name,
        segments=[
            SegmentData(
                source=source,
                doc_id="d1",
                seg_id=str(number),
                references={"A": reference},
                candidates=dict(zip(SYSTEMS, outputs, strict=True)),
            )
            for number, (source, reference, outputs) in enumerate(SEGMENTS, 1)
        ],
    )


def layout_assignment(protocol: str, **options: Any) -> Assignment:
    """One judge, one campaign of ``protocol`` with a comment box and document context (every
    control a screen can have); five systems side by side for ranking and the grouped
    categorical presentation, one otherwise."""
    username = f"judge-{protocol}"
    judge = make_user(username, group=JUDGES_GROUP)
    test_set = testset_import(
        corpus=layout_corpus(f"layout-{protocol}"), name=f"layout-{protocol}", import_format="text"
    ).test_set
    systems = test_set.systems.order_by("name")
    settings = {
        "judges_per_item": 1,
        "repeat_share": 0.0,
        "seed": 11,
        "comment_box": True,
        "show_context": True,
        "context_before": 1,
        "context_after": 1,
        **PROTOCOLS[protocol],
        **options,
    }
    campaign = campaign_create(
        name=f"Layout {protocol}",
        test_set=test_set,
        systems=list(systems if protocol in SIDE_BY_SIDE else systems[:1]),
        judges=[judge],
        **settings,
    )
    return Assignment.objects.get(campaign=campaign, judge=judge)


@pytest.fixture(params=list(VIEWPORTS))
def sized_page(request, browser):
    context = browser.new_context(viewport=VIEWPORTS[request.param])
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.viewport_name = request.param
    yield page
    context.close()


def open_screen(page, live_server, assignment: Assignment, screen: int = 1) -> None:
    log_in_with_the_mouse(page, live_server, assignment.judge.username)
    page.goto(f"{live_server.url}/judging/assignments/{assignment.pk}/screens/{screen}/")
    page.wait_for_selector("#screen-form")


# ---------------------------------------------------------------- geometry


def horizontal_overflow(page) -> dict[str, Any]:
    return page.evaluate(
        """() => ({scrollWidth: document.documentElement.scrollWidth,
                   innerWidth: window.innerWidth,
                   wide: Array.from(document.querySelectorAll('body *'))
                     .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5
                                     && el.getClientRects().length)
                     .slice(0, 5).map((el) => el.tagName + '.' + el.className)})"""
    )


def score_controls(page) -> list:
    """What the judge clicks to answer: the level and rank buttons (their labels; the radio
    inside is visually hidden), sliders, the span text, the post-edit box, the submit button."""
    selectors = [
        "label.level:has(input[type=radio])",
        "input[type=range]",
        "[data-span-text]",
        "textarea[data-postedit]",
        "textarea[data-comment]",
        "#submit-button",
    ]
    found = []
    for selector in selectors:
        locator = page.locator(f"#screen-form {selector} >> visible=true")
        found += [locator.nth(index) for index in range(locator.count())]
    return found


def assert_inside_and_clickable(page, controls: list) -> None:
    width = page.evaluate("window.innerWidth")
    assert controls
    for control in controls:
        control.scroll_into_view_if_needed()
        box = control.bounding_box()
        name = control.evaluate("(el) => el.outerHTML.slice(0, 80)")
        assert box is not None, name
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, (name, box, width)
        # Playwright's actionability checks (visible, stable, enabled, not covered), no click.
        control.click(trial=True, timeout=3000)


def sticking_out(page) -> list[str]:
    """Rendered elements of the screen wider than the card or question box they sit in (a
    long word or URL that does not wrap, a level text wider than its button)."""
    return page.evaluate(
        """() => {
          const found = [];
          for (const box of document.querySelectorAll('#judging .card, #judging .cell, #judging .level')) {
            const edge = box.getBoundingClientRect();
            for (const el of box.querySelectorAll('*')) {
              if (!el.getClientRects().length || getComputedStyle(el).position === 'absolute') continue;
              const r = el.getBoundingClientRect();
              if (r.width && (r.right > edge.right + 0.5 || r.left < edge.left - 0.5)) {
                found.push(el.tagName + '.' + el.className + ' in ' + box.className + ': ' +
                           (el.textContent || '').trim().slice(0, 40));
              }
            }
          }
          return found.slice(0, 10);
        }"""
    )


def assert_no_horizontal_scrolling(page) -> None:
    overflow = horizontal_overflow(page)
    assert overflow["scrollWidth"] <= overflow["innerWidth"], overflow
    assert sticking_out(page) == []


def answer_fluency(page, protocol: str) -> None:
    """Answer fluency with the keyboard (a level's digit, or the slider's End key) and submit:
    the adequacy stage opens with the reference."""
    if protocol == "da":
        page.locator("input[type=range]").first.focus()
        page.keyboard.press("End")
    else:
        page.keyboard.press("4")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector(".text-block.reference")


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_the_screen_fits_the_width_and_every_control_can_be_clicked(
    protocol, live_server, sized_page
):
    page = sized_page
    assignment = layout_assignment(protocol)
    open_screen(page, live_server, assignment)
    assert_no_horizontal_scrolling(page)
    assert_inside_and_clickable(page, score_controls(page))
    if protocol == "mqm":
        open_span_editor(page)
        assert_no_horizontal_scrolling(page)
        editor = page.locator("[data-span-editor]")
        controls = [
            editor.locator("label.level").nth(0),
            editor.locator("label.level").nth(1),
            editor.locator("select"),
            editor.locator("input[type=text]"),
            editor.locator("[data-span-add]"),
            editor.locator("[data-span-cancel]"),
        ]
        assert_inside_and_clickable(page, controls)
        width = VIEWPORTS[page.viewport_name]["width"]
        screenshot(page, f"judging-layout-mqm-editor-{width}")
        page.keyboard.press("Escape")
    width = VIEWPORTS[page.viewport_name]["width"]
    page.evaluate("window.scrollTo(0, 0)")
    screenshot(page, f"judging-layout-{protocol}-{width}")


def open_span_editor(page) -> None:
    """Select the first word of the candidate with the keyboard and press M (major)."""
    page.locator("[data-span-text]").focus()
    page.keyboard.press("Shift+M")
    page.wait_for_selector("[data-span-editor]:not([hidden])")


# ---------------------------------------------------------------- revealing the reference


def candidate_box(page) -> dict[str, float]:
    """The translation's box in page coordinates (the screen scrolls its current question into
    view when it opens, so the viewport's offset is not the layout's)."""
    return page.locator(".entry .candidate-text").first.evaluate(
        """(el) => { const r = el.getBoundingClientRect();
                     return {x: r.left + window.scrollX, y: r.top + window.scrollY,
                             width: r.width, height: r.height}; }"""
    )


@pytest.mark.parametrize("protocol", REVEALING)
def test_revealing_the_reference_leaves_the_translation_in_place(protocol, live_server, sized_page):
    page = sized_page
    assignment = layout_assignment(protocol)
    open_screen(page, live_server, assignment)
    assert page.locator(".text-block.reference").count() == 0  # fluency: no reference yet
    before = candidate_box(page)
    width = VIEWPORTS[page.viewport_name]["width"]
    screenshot(page, f"judging-layout-{protocol}-fluency-{width}")
    answer_fluency(page, protocol)
    assert "Adequacy" in page.locator("#screen-form").inner_text()
    after = candidate_box(page)
    screenshot(page, f"judging-layout-{protocol}-reference-{width}")
    assert after == before, (before, after)
    assert_no_horizontal_scrolling(page)
    screenshot(page, f"judging-layout-{protocol}-reference-{width}")


# ---------------------------------------------------------------- accessible names

INTERACTIVE = "input, button, select, textarea, [role=slider], [tabindex]"


def nameless_controls(page) -> list[str]:
    """The rendered interactive controls whose accessible name (Chromium's accessibility
    tree: aria-labelledby, aria-label, <label>, legend, text content, title) is empty."""
    session = page.context.new_cdp_session(page)
    try:
        document = session.send("DOM.getDocument", {"depth": 0})
        nodes = session.send(
            "DOM.querySelectorAll",
            {"nodeId": document["root"]["nodeId"], "selector": INTERACTIVE},
        )["nodeIds"]
        missing = []
        for node_id in nodes:
            described = session.send("DOM.describeNode", {"nodeId": node_id})["node"]
            attributes = dict(
                zip(described["attributes"][::2], described["attributes"][1::2], strict=True)
            )
            if attributes.get("type") == "hidden":
                continue
            tree = session.send(
                "Accessibility.getPartialAXTree", {"nodeId": node_id, "fetchRelatives": False}
            )["nodes"]
            node = tree[0]
            if node.get("ignored"):
                continue  # not rendered (hidden): nothing to announce
            name = (node.get("name") or {}).get("value", "").strip()
            if not name:
                html = session.send("DOM.getOuterHTML", {"nodeId": node_id})["outerHTML"]
                missing.append(html[:120])
        return missing
    finally:
        session.detach()


def accessible_name(page, selector: str) -> str:
    """Chromium's accessible name of the first element matching ``selector``."""
    session = page.context.new_cdp_session(page)
    try:
        root = session.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node_id = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})
        tree = session.send(
            "Accessibility.getPartialAXTree",
            {"nodeId": node_id["nodeId"], "fetchRelatives": False},
        )["nodes"]
        return (tree[0].get("name") or {}).get("value", "")
    finally:
        session.detach()


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_every_control_has_an_accessible_name(protocol, live_server, small_page):
    page = small_page
    assignment = layout_assignment(protocol)
    open_screen(page, live_server, assignment)
    assert nameless_controls(page) == []
    # The comment box: a short name in words (its label's capitals are CSS), the keys as its
    # description; with several translations on the screen, which one it is about.
    several = protocol in SIDE_BY_SIDE
    expected = "Comment on translation A (optional)" if several else "Comment (optional)"
    assert accessible_name(page, "[data-comment]") == expected
    if protocol == "mqm":
        open_span_editor(page)
        assert nameless_controls(page) == []
        # A marked error's Delete button names the error it deletes.
        page.keyboard.press("Enter")
        page.wait_for_selector(".span-item")
        assert nameless_controls(page) == []
    if protocol == "esa":
        page.locator("[data-span-text]").focus()
        page.keyboard.press("m")  # ESA: the error is added at once
        page.wait_for_selector(".span-item")
        assert nameless_controls(page) == []
    if protocol in REVEALING:
        # The adequacy stage: the fluency answer locked, the reference shown.
        answer_fluency(page, protocol)
        assert nameless_controls(page) == []


def test_the_name_check_finds_a_nameless_control(live_server, small_page):
    """The check above is not vacuous: a control without a name is reported, a hidden one
    is not."""
    page = small_page
    assignment = layout_assignment("categorical")
    open_screen(page, live_server, assignment)
    page.evaluate(
        """() => {
          const form = document.getElementById('screen-form');
          form.insertAdjacentHTML('beforeend',
            '<button type="button" id="nameless"></button><input id="unlabelled">' +
            '<div tabindex="0" id="bare"></div><button type="button" hidden>x</button>');
        }"""
    )
    missing = nameless_controls(page)
    assert len(missing) == 3
    assert all(any(name in html for html in missing) for name in ("nameless", "unlabelled", "bare"))
