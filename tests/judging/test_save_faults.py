"""Submitting a judging screen while the database fails: a 503 the page can retry (JSON for the
page's script, a short standalone page for a plain form post), never a bare 500; a retry after
a lost answer changes nothing."""

from __future__ import annotations

import re
from unittest import mock

import pytest
from django.db import DatabaseError, IntegrityError, InterfaceError, OperationalError
from django.urls import reverse

from judging.models import Assignment, Campaign, Judgment

pytestmark = pytest.mark.django_db

JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def assignment(make_campaign, judges, client) -> Assignment:
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    client.force_login(judges[0])
    return Assignment.objects.get(campaign=campaign, judge=judges[0])


def screen_url(assignment: Assignment, number: int) -> str:
    return reverse("judging:judge_screen", args=[assignment.pk, number])


def answer(client, assignment: Assignment, level: int = 4) -> dict[str, str]:
    """The form data of screen 1 as the page sends it."""
    html = client.get(screen_url(assignment, 1)).content.decode()
    data = {"token": re.search(r'name="token" value="([^"]+)"', html).group(1), "active_ms": "4000"}
    for name in set(re.findall(r'name="(score-\d+-[\w-]+)"', html)):
        data[name] = str(level)
    return data


def stored(assignment: Assignment) -> list[tuple[str, int, int]]:
    judgments = Judgment.objects.filter(assigned_item__assignment=assignment)
    return sorted(judgments.values_list("aspect__name", "score", "active_ms"))


@pytest.mark.parametrize(
    "fault",
    [
        OperationalError("database is locked"),
        InterfaceError("connection already closed"),
        DatabaseError("server closed the connection unexpectedly"),
        IntegrityError("UNIQUE constraint failed"),
    ],
    ids=lambda fault: type(fault).__name__,
)
def test_a_database_fault_is_a_503_the_script_can_retry(client, assignment, fault):
    data = answer(client, assignment)
    with mock.patch("judging.views.screen_submit", side_effect=fault):
        response = client.post(screen_url(assignment, 1), data, **JSON)
    assert response.status_code == 503
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"].startswith("Could not save")
    assert int(response["Retry-After"]) > 0
    assert stored(assignment) == []


def test_a_plain_form_post_gets_a_short_page_that_says_to_send_again(client, assignment):
    data = answer(client, assignment)
    with mock.patch("judging.views.screen_submit", side_effect=OperationalError("locked")):
        response = client.post(screen_url(assignment, 1), data)
    assert response.status_code == 503
    content = response.content.decode()
    assert "Could not save your answer" in content and "not stored" in content
    assert "Something went wrong" not in content  # not the generic 500 page


def test_a_fault_while_reading_the_assignment_is_a_503_too(client, assignment):
    data = answer(client, assignment)
    with mock.patch("judging.views._own_assignment", side_effect=OperationalError("gone")):
        response = client.post(screen_url(assignment, 1), data, **JSON)
    assert response.status_code == 503


def test_pages_are_not_affected(client, assignment):
    # Only submissions answer 503: a screen that cannot be shown is the server error it is.
    with mock.patch("judging.views.screen_detail", side_effect=OperationalError("gone")):
        with pytest.raises(OperationalError):
            client.get(screen_url(assignment, 1))


def test_the_script_gets_the_next_screen_as_json(client, assignment):
    response = client.post(screen_url(assignment, 1), answer(client, assignment), **JSON)
    assert response.status_code == 200
    assert response.json() == {"location": screen_url(assignment, 2)}
    assert [score for _, score, _ in stored(assignment)] == [4, 4]


def test_a_refused_submission_sends_the_script_back_to_the_screen(client, assignment):
    data = answer(client, assignment)
    data["token"] = "forged"
    response = client.post(screen_url(assignment, 1), data, **JSON)
    assert response.status_code == 400
    assert response.json() == {"location": screen_url(assignment, 1)}
    page = client.get(response.json()["location"]).content.decode()
    assert "This page is out of date" in page


def test_an_answer_stored_before_the_fault_is_not_counted_twice(client, assignment):
    """The write commits, then reading the next screen fails: the page sees a 503 and sends
    the same answer again, which changes nothing."""
    data = answer(client, assignment)
    with mock.patch("judging.views.screen_next", side_effect=OperationalError("locked")):
        failed = client.post(screen_url(assignment, 1), data, **JSON)
    assert failed.status_code == 503
    first = stored(assignment)
    assert [score for _, score, _ in first] == [4, 4]

    retried = client.post(screen_url(assignment, 1), data, **JSON)
    assert retried.json() == {"location": screen_url(assignment, 2)}
    assert stored(assignment) == first
    assert not Judgment.objects.filter(revision_count__gt=0).exists()
