"""The campaign page shows, per protocol, only the judge columns and links the campaign can
fill: repeats when it plants them and its judgments have a score, the reference's mean against
the MT candidates when a reference is judged as a system on a higher-is-better scale, the
bad-reference test when it plants bad references; no human-score or correlation link for
post-editing (a post-edit has no score)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from judging.humanscores.selectors import human_source_list
from judging.models import Campaign
from judging.selectors import campaign_page_columns

pytestmark = pytest.mark.django_db

REPEATS = "Repeats (same / pairs)"
REFERENCE = "Reference vs MT mean"
BAD_REFS = "Bad refs (pairs · p)"
ALWAYS = ("Judge", "Done", "Items / h", "Active time", "Median s / item", "Flags")


def page_of(campaign: Campaign, admin_user) -> str:
    client = Client()
    client.force_login(admin_user)
    response = client.get(reverse("judging:campaign_detail", args=[campaign.pk]))
    assert response.status_code == 200
    return response.content.decode()


def judge_headers(page: str) -> list[str]:
    table = re.search(r'<table class="data-table" id="judge-table">.*?</thead>', page, re.S)
    assert table is not None
    return [
        re.sub(r"<[^>]+>", "", cell).strip()
        for cell in re.findall(r"<th[^>]*>(.*?)</th>", table.group(0), re.S)
    ]


def judge_row_cells(page: str) -> list[int]:
    """Cells per row of the judge table's body (each row as many as there are headers)."""
    body = re.search(r'id="judge-table">.*?<tbody>(.*?)</tbody>', page, re.S).group(1)
    return [len(re.findall(r"<td[\s>]", row)) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


# Per protocol: the options of the campaign, and which optional columns it shows.
CASES = {
    "categorical, reference as a system, repeats": (
        {"reference_as_system": "B", "repeat_share": 0.25},
        {REPEATS: True, REFERENCE: True, BAD_REFS: False},
    ),
    "categorical, nothing planted": ({}, {REPEATS: False, REFERENCE: False, BAD_REFS: False}),
    "direct assessment, WMT's defaults": (
        {"protocol": Campaign.Protocol.DIRECT_ASSESSMENT, "repeat_share": None},
        {REPEATS: True, REFERENCE: False, BAD_REFS: True},
    ),
    "direct assessment, reference, no bad references": (
        {
            "protocol": Campaign.Protocol.DIRECT_ASSESSMENT,
            "reference_as_system": "B",
            "bad_reference_share": 0.0,
        },
        {REPEATS: False, REFERENCE: True, BAD_REFS: False},
    ),
    "ranking with the reference as a system": (
        {
            "protocol": Campaign.Protocol.RANKING,
            "reference_as_system": "B",
            "repeat_share": 0.25,
        },
        {REPEATS: True, REFERENCE: False, BAD_REFS: False},
    ),
    "mqm, reference as a system": (
        {"protocol": Campaign.Protocol.MQM, "reference_as_system": "B"},
        {REPEATS: False, REFERENCE: True, BAD_REFS: False},
    ),
    "esa with bad references": (
        {"protocol": Campaign.Protocol.ESA, "bad_reference_share": 0.25, "repeat_share": 0.25},
        {REPEATS: True, REFERENCE: False, BAD_REFS: True},
    ),
    "post-editing with repeats": (
        {"protocol": Campaign.Protocol.POST_EDIT, "repeat_share": 0.25},
        {REPEATS: False, REFERENCE: False, BAD_REFS: False},
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_the_judge_table_shows_the_columns_the_protocol_fills(case, make_campaign, admin_user):
    options, expected = CASES[case]  # repeat_share None: the protocol's default
    campaign = make_campaign(judges_per_item=1, **options)
    page = page_of(campaign, admin_user)
    headers = judge_headers(page)
    for header in ALWAYS:
        assert header in headers
    for header, shown in expected.items():
        assert (header in headers) == shown, (case, header, headers)
    # Body rows carry exactly as many cells as the head has columns.
    assert judge_row_cells(page) and set(judge_row_cells(page)) == {len(headers)}


@pytest.mark.parametrize("protocol", list(Campaign.Protocol))
def test_human_score_links_are_offered_unless_the_campaign_post_edits(
    protocol, make_campaign, admin_user
):
    campaign = make_campaign(protocol=protocol, judges_per_item=1)
    page = page_of(campaign, admin_user)
    human = reverse("humanscores:ranking", args=["campaign", campaign.pk])
    correlation = reverse("correlation:matrix", args=["campaign", campaign.pk])
    if protocol == Campaign.Protocol.POST_EDIT:
        assert 'id="campaign-correlation"' not in page and "correlation with measures" not in page
        assert human not in page and correlation not in page
        assert 'id="postedit-results"' in page  # its own figures instead: HTER, time per word
    else:
        assert 'id="campaign-correlation"' in page and f'href="{correlation}"' in page
        assert f'href="{human}"' in page


def test_a_post_editing_campaign_is_no_human_score_source(make_campaign):
    postedit = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    scored = make_campaign(protocol=Campaign.Protocol.ESA, judges_per_item=1)
    names = {row["name"] for row in human_source_list()}
    assert scored.name in names and postedit.name not in names


def test_the_setup_names_bad_references_only_when_planted(make_campaign, admin_user):
    ranking = make_campaign(protocol=Campaign.Protocol.RANKING, judges_per_item=1)
    page = page_of(ranking, admin_user)
    assert "no bad references" in page and "followed by a bad reference" not in page
    da = make_campaign(protocol=Campaign.Protocol.DIRECT_ASSESSMENT, judges_per_item=1)
    assert "followed by a bad reference" in page_of(da, admin_user)


def test_the_columns_follow_the_campaign_not_its_judgments(make_campaign):
    """Decided from the campaign's set-up, so an empty campaign's page already has them."""
    da = make_campaign(
        protocol=Campaign.Protocol.DIRECT_ASSESSMENT, judges_per_item=1, repeat_share=None
    )
    columns = campaign_page_columns(campaign=da)
    assert (columns.repeats, columns.reference, columns.bad_refs, columns.human_scores) == (
        True,
        False,
        True,
        True,
    )
    postedit = make_campaign(protocol=Campaign.Protocol.POST_EDIT, judges_per_item=1)
    assert not any(vars(campaign_page_columns(campaign=postedit)).values())
