"""Judging pages: who may see what, the screen flow, escaping, and the campaign form."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from evaltrans.roles import JUDGES_GROUP
from judging.models import Assignment, Campaign, Judgment
from judging.scales import default_scales
from tests.conftest import make_user

from .conftest import XSS

pytestmark = pytest.mark.django_db


@pytest.fixture
def campaign(make_campaign):
    return make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=2)


def login(client, user):
    client.force_login(user)
    return client


def screen_url(assignment, number):
    return reverse("judging:judge_screen", args=[assignment.pk, number])


def scored_post(client, assignment, number, level=4, active_ms=5000):
    page = client.get(screen_url(assignment, number))
    html = page.content.decode()
    token = re.search(r'name="token" value="([^"]+)"', html).group(1)
    data = {"token": token, "active_ms": str(active_ms)}
    for name in set(re.findall(r'name="(score-\d+-[\w-]+)"', html)):
        data[name] = str(level)
    return client.post(screen_url(assignment, number), data)


def test_anonymous_users_are_sent_to_the_login_page(client, campaign):
    assignment = campaign.assignments.first()
    for url in [
        reverse("judging:my_assignments"),
        reverse("judging:judge_next", args=[assignment.pk]),
        screen_url(assignment, 1),
        reverse("judging:campaign_list"),
        reverse("judging:campaign_detail", args=[campaign.pk]),
        reverse("judging:campaign_export", args=[campaign.pk, "csv"]),
    ]:
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"], url


def test_a_judge_sees_and_scores_their_own_assignment(client, campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    listing = client.get(reverse("judging:my_assignments"))
    assert campaign.name in listing.content.decode()
    first = client.get(reverse("judging:judge_next", args=[assignment.pk]))
    assert first["Location"] == screen_url(assignment, 1)
    response = scored_post(client, assignment, 1)
    assert response.status_code == 302
    assert response["Location"] == screen_url(assignment, 2)
    assert Judgment.objects.filter(assigned_item__assignment=assignment).count() == 2
    assert client.get(reverse("judging:judge_next", args=[assignment.pk]))["Location"] == (
        screen_url(assignment, 2)
    )


def test_another_judges_assignment_is_a_404_even_for_admins(client, campaign, judges, admin_user):
    mine = Assignment.objects.get(campaign=campaign, judge=judges[0])
    for intruder in [judges[1], admin_user]:
        login(client, intruder)
        assert client.get(reverse("judging:judge_next", args=[mine.pk])).status_code == 404
        assert client.get(screen_url(mine, 1)).status_code == 404
        assert client.post(screen_url(mine, 1), {"token": "x"}).status_code == 404
    assert not Judgment.objects.exists()


def test_an_unknown_screen_is_a_404(client, campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    assert client.get(screen_url(assignment, 999)).status_code == 404
    assert client.get(screen_url(assignment, 0)).status_code == 404


def test_judges_and_viewers_cannot_reach_admin_pages(client, campaign, judges, viewer_user):
    for user in [judges[0], viewer_user]:
        login(client, user)
        assert client.get(reverse("judging:campaign_list")).status_code == 403
        assert client.get(reverse("judging:campaign_detail", args=[campaign.pk])).status_code == 403
        export = reverse("judging:campaign_export", args=[campaign.pk, "json"])
        assert client.get(export).status_code == 403


def test_admins_see_progress(client, campaign, judges, admin_user):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    scored_post(client, assignment, 1)
    login(client, admin_user)
    page = client.get(reverse("judging:campaign_detail", args=[campaign.pk])).content.decode()
    assert "judge1" in page and "Facebook" not in page
    assert 'id="judge-table"' in page and 'id="system-table"' in page


def test_mt_output_is_shown_escaped(client, campaign, judges):
    login(client, judges[0])
    for assignment in campaign.assignments.filter(items__item__text=XSS).distinct():
        login(client, assignment.judge)
        row = assignment.items.get(item__text=XSS)
        html = client.get(screen_url(assignment, row.screen + 1)).content.decode()
        assert XSS not in html
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_double_post_stores_one_judgment(client, campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    page = client.get(screen_url(assignment, 1)).content.decode()
    token = re.search(r'name="token" value="([^"]+)"', page).group(1)
    data = {"token": token, "active_ms": "100"}
    for name in set(re.findall(r'name="(score-\d+-[\w-]+)"', page)):
        data[name] = "3"
    client.post(screen_url(assignment, 1), data)
    client.post(screen_url(assignment, 1), data)
    assert Judgment.objects.filter(assigned_item__assignment=assignment).count() == 2
    assert not Judgment.objects.filter(revision_count__gt=0).exists()


def test_a_bad_submission_shows_a_message_and_stores_nothing(client, campaign, judges):
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    response = client.post(screen_url(assignment, 1), {"token": "forged", "active_ms": "1"})
    assert response["Location"] == screen_url(assignment, 1)
    page = client.get(response["Location"]).content.decode()
    assert "out of date" in page
    assert not Judgment.objects.exists()


def test_posting_requires_the_csrf_token(campaign, judges):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    client.force_login(judges[0])
    assert client.post(screen_url(assignment, 1), {"token": "x"}).status_code == 403


def test_the_done_page_follows_the_last_screen(client, make_campaign, judges):
    campaign = make_campaign(aspect_order=Campaign.AspectOrder.TOGETHER, judges_per_item=1)
    assignment = Assignment.objects.get(campaign=campaign, judge=judges[0])
    login(client, judges[0])
    for number in range(1, assignment.items.count() + 1):
        scored_post(client, assignment, number)
    page = client.get(reverse("judging:judge_next", args=[assignment.pk]))
    assert page.status_code == 200 and "All done" in page.content.decode()


def test_judges_land_on_their_assignments(client, judges):
    login(client, judges[0])
    assert client.get("/")["Location"] == reverse("judging:my_assignments")


def test_an_admin_creates_a_campaign_through_the_form(client, admin_user, test_set, judges):
    login(client, admin_user)
    url = reverse("judging:campaign_new", args=[test_set.pk])
    assert client.get(url).status_code == 200
    data = {
        "name": "Form campaign",
        "systems": [system.pk for system in test_set.systems.all()],
        "reference_label": "A",
        "reference_as_system": "B",
        "judges": [judge.pk for judge in judges],
        "judges_per_item": "2",
        "presentation": "single",
        "aspect_order": "sequential",
        "show_source": "on",
        "repeat_share": "0.1",
        "seed": "11",
        "scales": json.dumps(default_scales()),
    }
    response = client.post(url, data)
    campaign = Campaign.objects.get(name="Form campaign")
    assert response["Location"] == campaign.get_absolute_url()
    assert campaign.seed == 11 and campaign.reference_as_system == "B"
    assert campaign.assignments.count() == 3


def test_the_campaign_form_reports_bad_scales_and_impossible_campaigns(
    client, admin_user, test_set, judges
):
    login(client, admin_user)
    url = reverse("judging:campaign_new", args=[test_set.pk])
    data = {
        "name": "Bad",
        "systems": [system.pk for system in test_set.systems.all()],
        "reference_label": "A",
        "judges": [judges[0].pk],
        "judges_per_item": "2",
        "presentation": "single",
        "aspect_order": "sequential",
        "repeat_share": "0",
        "scales": "[{]",
    }
    assert "must be a JSON list" in client.post(url, data).content.decode()
    data["scales"] = json.dumps(default_scales())
    page = client.post(url, data).content.decode()
    assert "needs 2 judges but only 1" in page
    assert not Campaign.objects.exists()


def test_the_campaign_form_refuses_a_scale_name_too_long_to_store(
    client, admin_user, test_set, judges
):
    login(client, admin_user)
    url = reverse("judging:campaign_new", args=[test_set.pk])
    scales = default_scales()
    scales[1]["name"] = "adequacy-" + "x" * 42  # 51 characters
    data = {
        "name": "Long scale",
        "systems": [system.pk for system in test_set.systems.all()],
        "reference_label": "A",
        "judges": [judge.pk for judge in judges],
        "judges_per_item": "1",
        "presentation": "single",
        "aspect_order": "sequential",
        "repeat_share": "0",
        "scales": json.dumps(scales),
    }
    response = client.post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Scale 2: The name of scale" in page
    assert "is 51 characters long; the limit is 50." in page
    assert not Campaign.objects.exists()


def test_nav_shows_my_assignments_to_judges_and_campaigns_to_admins(client, admin_user, db):
    judge = make_user("navjudge", group=JUDGES_GROUP)
    login(client, judge)
    page = client.get(reverse("judging:my_assignments")).content.decode()
    assert "My assignments" in page and "Campaigns" not in page
    login(client, admin_user)
    assert "Campaigns" in client.get(reverse("judging:campaign_list")).content.decode()
