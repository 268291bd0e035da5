"""The Agreement page of an MQM or ESA campaign shows the judges' agreement on the error spans
(character-level F1, the campaign page's own figure from ``campaign_span_agreement``) beside the
agreement on the scores; other sources show none."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from judging.humanscores.selectors import SOURCE_CAMPAIGN, human_source_get
from judging.models import Assignment, Campaign
from judging.selectors import campaign_span_agreement
from tests.judging.test_services import finish
from tests.judging.test_spans import submit_spans

pytestmark = pytest.mark.django_db

TEXT = "Good morning."  # segment 1, written by systems x and y: one item


def agreement_page(campaign: Campaign, admin_user) -> str:
    client = Client()
    client.force_login(admin_user)
    response = client.get(reverse("humanscores:agreement", args=[SOURCE_CAMPAIGN, campaign.pk]))
    assert response.status_code == 200
    return response.content.decode()


def judge_with_spans(campaign: Campaign, spans_of_judge: dict[str, list[dict]], score=None):
    """Every judge submits every screen: on TEXT the spans given for them, elsewhere none."""
    for assignment in Assignment.objects.filter(campaign=campaign):
        for assigned in assignment.items.order_by("screen"):
            spans = spans_of_judge.get(assignment.judge.username, [])
            submit_spans(
                assignment,
                assigned.screen,
                spans if assigned.item.text == TEXT else [],
                score=score,
            )


def shown_f1(page: str) -> str:
    block = re.search(r'id="span-agreement">\s*<div class="value">(.*?)</div>', page, re.S)
    assert block is not None, "no span agreement on the page"
    return block.group(1).strip()


@pytest.mark.parametrize(
    ("protocol", "category", "score"),
    [(Campaign.Protocol.MQM, "Other", None), (Campaign.Protocol.ESA, "", 60)],
)
def test_the_span_f1_is_shown_beside_the_score_agreement(
    protocol, category, score, make_campaign, judges, admin_user
):
    campaign = make_campaign(protocol=protocol, judges=judges[:2], judges_per_item=2)
    # "Good morning.": judge1 marks "Good morning" (0-12), judge2 "morning." (5-13): they
    # share "morning" (7 characters): F1 = 2*7 / (12 + 8) = 0.7 on that item, 1 elsewhere.
    span = {"severity": "minor", **({"category": category} if category else {})}
    judge_with_spans(
        campaign,
        {
            "judge1": [{"start": 0, "end": 12, **span}],
            "judge2": [{"start": 5, "end": 13, **span}],
        },
        score=score,
    )
    expected = campaign_span_agreement(campaign=campaign)
    assert expected.f1 is not None and expected.pairs >= 2
    # Every item but TEXT's has F1 1 (no errors from either judge).
    assert expected.f1 == pytest.approx((0.7 + (expected.pairs - 1)) / expected.pairs)
    source = human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk)
    assert source.span_agreement == expected  # the campaign page's figure, not a second one

    page = agreement_page(campaign, admin_user)
    assert 'id="agreement-stats"' in page  # the score agreement is still there
    assert shown_f1(page) == f"{expected.f1:.3f}"
    # Beside the score agreement: in the same row of figures.
    stats = page.split('id="agreement-stats"')[1].split('id="span-agreement-note"')[0]
    assert "Krippendorff" in stats and 'id="span-agreement"' in stats
    assert f"{expected.pairs} pairs on {expected.items} items" in page
    assert 'id="span-agreement-note"' in page


def test_a_campaign_without_spans_shows_no_span_agreement(make_campaign, judges, admin_user):
    campaign = make_campaign(judges=judges[:2], judges_per_item=2)
    for assignment in Assignment.objects.filter(campaign=campaign):
        finish(assignment)
    assert human_source_get(kind=SOURCE_CAMPAIGN, pk=campaign.pk).span_agreement is None
    page = agreement_page(campaign, admin_user)
    assert 'id="agreement-stats"' in page and 'id="span-agreement"' not in page


def test_one_judge_per_item_has_no_pair_to_compare(make_campaign, judges, admin_user):
    campaign = make_campaign(protocol=Campaign.Protocol.MQM, judges=judges[:2], judges_per_item=1)
    judge_with_spans(campaign, {})
    page = agreement_page(campaign, admin_user)
    assert shown_f1(page).startswith('<span class="muted"')  # "–": no pair yet
    assert "0 pairs on 0 items" in page
