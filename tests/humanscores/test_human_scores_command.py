"""human_scores --name NAME: per system (and segment) raw and normalized scores, judgment
counts and CIs, for imported sets and for campaigns."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from judging.humanscores.selectors import UNKNOWN_SOURCE, campaign_records, human_source_by_name
from judging.selectors import campaign_judgment_rows

pytestmark = pytest.mark.django_db


def scores(*args: str) -> dict:
    out = StringIO()
    call_command("human_scores", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def imported(files, *extra: str) -> None:
    call_command("import_judgments", "mqm-tsv", str(files["mqm"]), "--name", "toy mqm", *extra,
                 stdout=StringIO())  # fmt: skip


def test_system_scores_of_an_unattached_set_are_plain_means(files):
    imported(files)
    result = scores("--name", "toy mqm", "--aspect", "mqm")
    assert result["name"] == "toy mqm" and result["test_set"] is None
    assert "weight:none" in result["signature"]
    by_system = {row["system"]: row for row in result["systems"]}
    # sysA: segment 1 has -5 (rater1) and -1 (rater2), segment 2 -1 and -1, segment 3 none.
    assert by_system["sysA"]["raw"] == pytest.approx((-3.0 - 1.0 + 0.0) / 3)
    assert by_system["ref"]["raw"] == 0.0
    assert by_system["sysA"]["n_judgments"] == 6 and by_system["sysA"]["n_segments"] == 3
    assert by_system["sysA"]["raw_ci"]["low"] <= by_system["sysA"]["raw"]
    assert by_system["ref"]["normalized"] > by_system["sysA"]["normalized"]
    assert "segments" not in result


def test_segments_are_printed_on_request(files):
    imported(files)
    result = scores("--name", "toy mqm", "--aspect", "mqm-accuracy", "--segments")
    rows = {(row["system"], row["segment_id"]): row for row in result["segments"]}
    assert rows[("sysA", "1")]["raw"] == pytest.approx(-3.0)
    assert rows[("sysA", "1")]["n"] == 2
    assert len(rows) == 9


def test_an_attached_set_is_weighted_by_reference_length(files, toy_test_set):
    imported(files, "--test-set", "toy")
    result = scores("--name", "toy mqm")
    assert result["aspect"] == "mqm" and result["test_set"] == "toy v1"
    assert "weight:reference" in result["signature"]
    assert "weight:none" in scores("--name", "toy mqm", "--weighting", "none")["signature"]


def test_wmt_da_uses_the_raw_scores_from_the_judge_stats(files):
    call_command("import_judgments", "wmt-da-csv", str(files["da"]), "--judge-stats",
                 str(files["stats"]), "--name", "da", stdout=StringIO())  # fmt: skip
    result = scores("--name", "da", "--segments")
    by_system = {row["system"]: row for row in result["systems"]}
    # sysA: segment 1 = mean(60, 60 repeat, 80) ; segment 2 = 70; BAD_REF left out.
    assert by_system["sysA"]["raw"] == pytest.approx((200 / 3 + 70) / 2)
    assert by_system["sysB"]["n_judgments"] == 2


def test_a_campaign_is_a_judgment_set_under_its_name(campaign):
    result = scores("--name", "Spring", "--aspect", "adequacy", "--segments")
    assert result["source"] == "campaign" and result["test_set"] == "jtoy v1"
    assert "weight:reference" in result["signature"] and "kinds:SYSTEM|" in result["signature"]
    rows = campaign_judgment_rows(campaign=campaign)
    adequacy = [row for row in rows if row["aspect"] == "adequacy"]
    assert sum(row["n_judgments"] for row in result["systems"]) == len(adequacy)
    assert {row["segment_id"] for row in result["segments"]} == {"1", "2", "3", "4"}
    af = scores("--name", "Spring", "--aspect", "adequacy+fluency")
    assert af["aspect"] == "adequacy+fluency"


def test_campaign_records_map_repeats_and_references(campaign):
    records = campaign_records(campaign=campaign)
    assert {record.kind for record in records} == {"SYSTEM"}
    assert {record.raw for record in records} <= {1.0, 2.0, 3.0, 4.0, 5.0}
    source = human_source_by_name(name="Spring")
    assert source.kind == "campaign" and len(source.records) == len(records)


def test_unknown_name_and_aspect(files):
    with pytest.raises(CommandError) as caught:
        scores("--name", "nothing")
    assert str(caught.value) == UNKNOWN_SOURCE.format(name="nothing")
    imported(files)
    with pytest.raises(CommandError, match="no judgments of aspect 'fluency'"):
        scores("--name", "toy mqm", "--aspect", "fluency")


def test_plain_table_without_json(files):
    imported(files)
    out = StringIO()
    call_command("human_scores", "--name", "toy mqm", stdout=out)
    text = out.getvalue()
    assert text.startswith("toy mqm · mqm · human|")
    assert "sysA" in text and "95% CI" in text
