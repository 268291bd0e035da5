"""Exports of a campaign's judgments: CSV, JSON with the set-up, and the EvalTrans database."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from evaltrans.corpora.formats.base import CorpusData, InputFile, SegmentData
from evaltrans.corpora.formats.evaltrans_xml import parse_evaltrans_xml
from evaltrans.corpora.services import testset_import
from evaltrans.roles import JUDGES_GROUP
from judging.models import Campaign
from judging.selectors import campaign_corpus
from judging.services import campaign_create
from judging.views import EXPORT_COLUMNS
from tests.conftest import make_user

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


# Outputs that a spreadsheet would run as formulas (OWASP "CSV injection"), and a plain one.
FORMULAS = {
    "eq": '=HYPERLINK("http://example.org","see")',
    "plus": "+49 30 1234",
    "minus": "-2 dB",
    "at": "@SUM(A1:A9)",
    "tab": "\tindented",
    "cr": "\rcarriage return",
}


@pytest.fixture
def formula_campaign(db):
    corpus = CorpusData(
        source_lang="de",
        target_lang="en",
        name="formulas",
        segments=[
            SegmentData(
                source="Quelle.",
                doc_id="d1",
                seg_id="1",
                references={"A": "Source."},
                candidates={**FORMULAS, "plain": "A plain = sign inside."},
            )
        ],
    )
    test_set = testset_import(corpus=corpus, name="formulas", import_format="text").test_set
    judges = [make_user(name, group=JUDGES_GROUP) for name in ("@mallory", "-dash", "+plus")]
    campaign = campaign_create(
        name="Formulas",
        test_set=test_set,
        systems=list(test_set.systems.all()),
        judges=judges,
        judges_per_item=1,
        aspect_order=Campaign.AspectOrder.TOGETHER,
        repeat_share=0.0,
        seed=1,
    )
    for assignment in campaign.assignments.all():
        finish(assignment, level=3)
    return campaign


def test_csv_cells_that_would_run_as_formulas_are_quoted(client, admin_user, formula_campaign):
    response = export(client, admin_user, formula_campaign, "csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode(), newline="")))
    texts = {row["system"]: row["text"] for row in rows}
    for system, text in FORMULAS.items():
        assert texts[system] == "'" + text
    assert texts["plain"] == "A plain = sign inside."
    assert {row["judge"] for row in rows} == {"'@mallory", "'-dash", "'+plus"}
    assert all(
        not cell.startswith(("=", "+", "-", "@", "\t", "\r"))
        for row in rows
        for cell in row.values()
    )


def test_json_and_xml_keep_formula_like_texts_exactly(client, admin_user, formula_campaign):
    document = json.loads(export(client, admin_user, formula_campaign, "json").content)
    texts = {row["system"]: row["text"] for row in document["judgments"]}
    assert {system: texts[system] for system in FORMULAS} == FORMULAS
    assert {row["judge"] for row in document["judgments"]} == {"@mallory", "-dash", "+plus"}
    xml = export(client, admin_user, formula_campaign, "evaltrans-xml").content
    corpus = parse_evaltrans_xml(
        file=InputFile(name="database.xml", data=xml), source_lang="de", target_lang="en"
    )
    # No quote added; the reader trims surrounding whitespace, as EvalTrans does.
    written = {name: corpus.segments[0].candidates[name] for name in FORMULAS}
    assert written == {name: text.strip() for name, text in FORMULAS.items()}
