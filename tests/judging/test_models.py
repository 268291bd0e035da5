"""Database constraints that keep judgments trustworthy whatever code writes them."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from judging.models import AssignedItem, Campaign, Item, Judgment, text_key

pytestmark = pytest.mark.django_db


def test_one_judgment_per_assigned_item_and_aspect(make_campaign):
    campaign = make_campaign()
    row = AssignedItem.objects.filter(assignment__campaign=campaign).first()
    aspect = campaign.aspects.first()
    Judgment.objects.create(assigned_item=row, aspect=aspect, score=3)
    with pytest.raises(IntegrityError), transaction.atomic():
        Judgment.objects.create(assigned_item=row, aspect=aspect, score=4)


def test_a_judge_gets_an_item_once_apart_from_its_planted_repeat(make_campaign):
    campaign = make_campaign()
    row = AssignedItem.objects.filter(assignment__campaign=campaign).first()
    last = row.assignment.items.order_by("-screen").first().screen
    AssignedItem.objects.create(
        assignment=row.assignment, item=row.item, screen=last + 1, is_repeat=True
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignedItem.objects.create(assignment=row.assignment, item=row.item, screen=last + 2)


def test_one_item_per_distinct_text_of_a_segment(make_campaign):
    item = Item.objects.filter(campaign=make_campaign()).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Item.objects.create(
            campaign=item.campaign,
            segment=item.segment,
            text=item.text,
            key=item.key,
            judges_needed=1,
        )


def test_judges_per_item_must_be_positive(make_campaign):
    campaign = make_campaign()
    with pytest.raises(IntegrityError), transaction.atomic():
        Campaign.objects.filter(pk=campaign.pk).update(judges_per_item=0)


def test_text_key_ignores_surrounding_whitespace_only():
    assert text_key("Guten Tag.", "Good day.") == text_key(" Guten Tag.\n", "Good day. ")
    assert text_key("Guten Tag.", "Good day.") != text_key("Guten Tag.", "Good  day.")
    assert text_key("a", "b\x00c") != text_key("a\x00b", "c")
