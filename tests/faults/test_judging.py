"""A database restart while a judge saves a screen, on a real gunicorn process whose database
connection goes through the fault proxy.

What the judge sees: the save answers 503 with ``Retry-After`` (the judging page then says
"Could not save — retrying in N s…" and sends the same answer again); nothing is half stored;
once the database is back, the resend stores each score exactly once, and further resends of
the same answer store nothing more.
"""

from __future__ import annotations

import re
import time

import pytest
from django.test import Client
from django.urls import reverse

from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, Judgment, JudgmentRevision
from judging.services import campaign_create
from tests.conftest import make_user
from tests.faults.support import FAULT_MARKS, Browser
from tests.judging.conftest import toy_corpus

pytestmark = FAULT_MARKS

JSON = {"Accept": "application/json"}
# The SQL of one stored score: cutting at the second of a screen's two scores leaves the
# first written inside the transaction when the connection drops.
JUDGMENT_INSERT = b'INSERT INTO "judging_judgment"'
OUTAGE_S = 1.0
# Known bugs, reported; each test checks that nothing is lost first, then marks itself xfail
# while the bug is there, and passes once it is fixed.
BUG_SESSION_500 = (
    "a save while the database is down is a 500 with the generic error page, not the 503 "
    "'Could not save': the session lookup (LoginRequiredMiddleware -> request.user) fails "
    "before judge_screen's 503 wrapper runs"
)
BUG_STALE_CONNECTION = (
    "the first request after a database restart is a 500: the connection kept by "
    "CONN_MAX_AGE is dead and is not checked (CONN_HEALTH_CHECKS is off)"
)


@pytest.fixture
def judging(site, free_port):
    """A judge with one assignment, logged in to a gunicorn process behind the proxy."""
    test_set = testset_import(corpus=toy_corpus(), name="toy", import_format="text").test_set
    judge = make_user("faultjudge", group=JUDGES_GROUP)
    campaign = campaign_create(
        name="faults",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=[judge],
        judges_per_item=1,
        aspect_order=Campaign.AspectOrder.TOGETHER,
        repeat_share=0.0,
        seed=7,
    )
    assignment = Assignment.objects.get(campaign=campaign, judge=judge)
    session = Client()
    session.force_login(judge)
    server = site.processes.web(free_port)
    browser = Browser(free_port, {"sessionid": session.cookies["sessionid"].value})
    browser.wait_ready(server, lambda: site.processes.log(server))
    return assignment, browser


def screen_url(assignment: Assignment, number: int) -> str:
    return reverse("judging:judge_screen", args=[assignment.pk, number])


def answer(browser: Browser, assignment: Assignment, level: int = 4) -> dict[str, str]:
    """Screen 1's form as the judging page sends it (CSRF token, screen token, every score)."""
    page = browser.request("GET", screen_url(assignment, 1))
    assert page.status == 200, page.text[:2000]
    data = {
        "csrfmiddlewaretoken": re.search(
            r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text
        ).group(1),
        "token": re.search(r'name="token" value="([^"]+)"', page.text).group(1),
        "active_ms": "4000",
    }
    for name in set(re.findall(r'name="(score-\d+-[\w-]+)"', page.text)):
        data[name] = str(level)
    return data


def stored(assignment: Assignment) -> list[tuple[int, str, int, int]]:
    return sorted(
        Judgment.objects.filter(assigned_item__assignment=assignment).values_list(
            "assigned_item_id", "aspect__name", "score", "revision_count"
        )
    )


def assert_saved_once(browser, assignment, data, expected_scores: int) -> float:
    """The answer is stored with one judgment per score; resending it changes nothing.
    Returns when (``time.monotonic()``) the first save was answered."""
    saved = browser.request("POST", screen_url(assignment, 1), data, JSON)
    saved_at = time.monotonic()
    assert saved.status == 200, saved.text[:2000]
    assert saved.json() == {"location": screen_url(assignment, 2)}
    first = stored(assignment)
    assert len(first) == expected_scores
    assert {score for _, _, score, revisions in first} == {4}
    for _ in range(2):  # the page's retries of an answer that was in fact stored
        again = browser.request("POST", screen_url(assignment, 1), data, JSON)
        assert again.status == 200, again.text[:2000]
    assert stored(assignment) == first
    assert not JudgmentRevision.objects.exists()
    return saved_at


def test_database_lost_in_the_middle_of_a_save(site, judging, figures):
    assignment, browser = judging
    data = answer(browser, assignment)
    scores = sum(1 for name in data if name.startswith("score-"))
    assert scores == 2  # fluency and adequacy of one item

    fired = site.db_proxy.cut_when(JUDGMENT_INSERT, occurrence=2)
    failed = browser.request("POST", screen_url(assignment, 1), data, JSON)
    assert fired.is_set(), "the save never reached its second INSERT"
    assert failed.status == 503, failed.text[:2000]
    assert failed.json()["error"].startswith("Could not save")
    assert int(failed.headers["Retry-After"]) > 0
    assert stored(assignment) == []  # the first INSERT was rolled back with the connection

    time.sleep(OUTAGE_S)  # the database "restarts"
    site.db_proxy.restore()
    restored = time.monotonic()
    saved_at = assert_saved_once(browser, assignment, data, scores)
    figures("restore to answer stored (s)", round(saved_at - restored, 2))


def test_database_down_when_the_save_arrives(site, judging, figures):
    """Saves that arrive while the database is down store nothing and get a server error the
    page retries; the first save after the restart stores the answer once."""
    assignment, browser = judging
    data = answer(browser, assignment)
    scores = sum(1 for name in data if name.startswith("score-"))

    site.db_proxy.cut()
    during = [browser.request("POST", screen_url(assignment, 1), data, JSON) for _ in range(2)]
    time.sleep(OUTAGE_S)
    assert stored(assignment) == []
    # The judging page retries every answer >= 500, so nothing is lost either way.
    assert all(response.status >= 500 for response in during)
    site.db_proxy.restore()
    restored = time.monotonic()
    saved_at = assert_saved_once(browser, assignment, data, scores)
    figures("restore to answer stored (s)", round(saved_at - restored, 2))
    statuses = [response.status for response in during]
    figures("status of the saves during the outage", statuses)
    if statuses != [503, 503]:
        pytest.xfail(BUG_SESSION_500)


def test_database_restarted_between_two_saves(site, judging, figures):
    """The server's kept connection died while idle (a restart between two requests): the
    next save is stored or answered 503, never a 500."""
    assignment, browser = judging
    data = answer(browser, assignment)
    scores = sum(1 for name in data if name.startswith("score-"))
    site.db_proxy.cut()
    site.db_proxy.restore()
    first = browser.request("POST", screen_url(assignment, 1), data, JSON)
    figures("status of the first save after the restart", first.status)
    if first.status != 200:
        assert first.status >= 500  # retried by the page
        assert stored(assignment) == []
    assert_saved_once(browser, assignment, data, scores)
    if first.status == 500:
        pytest.xfail(BUG_STALE_CONNECTION)
    assert first.status in (200, 503)
