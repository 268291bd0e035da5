"""Exports of a campaign's judgments: CSV, JSON with the set-up, and the EvalTrans database."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from evaltrans.corpora.formats.base import InputFile
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from judging.models import Campaign
from judging.selectors import campaign_corpus
from judging.views import EXPORT_COLUMNS

from .test_services import finish

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(make_campaign):
    """Every screen judged: fluency 4 and adequacy 4, one judge per item, repeats planted."""
    campaign = make_campaign(
        aspect_order=Campaign.AspectOrder.TOGETHER,
        judges_per_item=1,
        reference_as_system="B",
        repeat_share=0.5,
    )
    for assignment in campaign.assignments.all():
        finish(assignment, level=4)
    return campaign


def export(client, admin_user, campaign, fmt):
    client.force_login(admin_user)
    return client.get(reverse("judging:campaign_export", args=[campaign.pk, fmt]))


def test_csv_has_one_row_per_system_aspect_and_judgment(client, admin_user, judged):
    response = export(client, admin_user, judged, "csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == EXPORT_COLUMNS
    originals = [row for row in rows if row["is_repeat"] == "False"]
    # (12 candidates + 4 references judged as a system) x 2 aspects x 1 judge.
    assert len(originals) == 32
    assert {row["system"] for row in rows} == {"x", "y", "z", "B"}
    assert all(int(row["active_ms"]) >= 0 and row["judge"] for row in rows)


def test_json_carries_the_campaign_set_up_for_reproduction(client, admin_user, judged):
    document = json.loads(export(client, admin_user, judged, "json").content)
    setup = document["campaign"]
    assert setup["seed"] == judged.seed and setup["judges_per_item"] == 1
    assert [aspect["name"] for aspect in setup["aspects"]] == ["fluency", "adequacy"]
    assert setup["test_set_hash"] == judged.test_set.content_hash
    assert len(document["judgments"]) > 32  # plus planted repeats
    assert {"judge", "system", "aspect", "score", "active_ms"} <= set(document["judgments"][0])


def test_evaltrans_xml_reads_back_with_levels_and_evaluators(client, admin_user, judged):
    response = export(client, admin_user, judged, "evaltrans-xml")
    corpus = parse_evaltrans_xml(
        file=InputFile(name="database.xml", data=response.content),
        source_lang="de",
        target_lang="en",
    )
    classes = [level["class"] for level in corpus.metadata["levels"]]
    assert classes == ["fluency", "adequacy", "isPerfect"]
    assert corpus.metadata["levels"][0]["count"] == 6
    assert corpus.metadata["levels"][0]["firstvalid"] == 1
    assert len(corpus.segments) == 4
    evaluations = [e for segment in corpus.segments for e in segment.evaluations]
    human = [e for e in evaluations if e.aspect != "isPerfect"]
    assert len(human) == 32  # repeats are QC, not extra assessments
    assert all(e.attributes["evaluator"].startswith("judge") for e in human)
    judged_refs = [e for e in human if e.target_kind == "reference"]
    assert {e.target_name for e in judged_refs} == {"B"} and len(judged_refs) == 8


def test_campaign_corpus_keeps_every_reference_and_chosen_output(judged):
    corpus = campaign_corpus(campaign=judged)
    first = corpus.segments[0]
    assert set(first.references) == {"A", "B"}
    assert set(first.candidates) == {"x", "y", "z"}


def test_unknown_export_format_is_a_404(client, admin_user, judged):
    assert export(client, admin_user, judged, "pdf").status_code == 404
