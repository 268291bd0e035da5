"""human_scores --name NAME: per system (and segment) raw and normalized scores, judgment
counts and CIs, for imported sets and for campaigns."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import defaultdict
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from evaltrans.corpora.formats.base import CorpusData, SegmentData
from evaltrans.corpora.services import testset_import
from judging.formats.wmt_da import system_name
from judging.humanscores.selectors import (
    NO_TEXTS_FOR_WEIGHTING,
    UNKNOWN_SOURCE,
    campaign_records,
    human_source_by_name,
)
from judging.selectors import campaign_judgment_rows
from tests.conftest import shared_path

from .conftest import SOURCES

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


# ---------------------------------------------------------------- candidate-length weighting


@pytest.fixture
def lengths_test_set(db):
    """The toy sources with candidates of 1-4 words, so that weighting by them matters."""
    words = {"sysA": (1, 2, 3), "sysB": (4, 1, 1)}
    segments = [
        SegmentData(
            source=source,
            seg_id=str(number),
            references={"ref": "the reference"},
            candidates={
                name: " ".join(["w"] * counts[number - 1]) for name, counts in words.items()
            },
        )
        for number, source in enumerate(SOURCES, 1)
    ]
    corpus = CorpusData("de", "en", segments)
    return testset_import(corpus=corpus, name="lengths", import_format="mqm-tsv").test_set


def test_candidate_weighting_uses_the_candidates_lengths(files, lengths_test_set):
    imported(files, "--test-set", "lengths")
    result = scores("--name", "toy mqm", "--aspect", "mqm", "--weighting", "candidate")
    assert "weight:candidate" in result["signature"]
    by_system = {row["system"]: row["raw"] for row in result["systems"]}
    # Segment means (conftest's errors, rater2 sees Major as Minor): sysA -3, -1, 0 on 1, 2, 3
    # words; sysB -0.1, 0, -3 on 4, 1, 1 words; the reference (2 words each) has no errors.
    assert by_system["sysA"] == pytest.approx((-3 * 1 - 1 * 2 + 0 * 3) / 6)
    assert by_system["sysB"] == pytest.approx((-0.1 * 4 + 0 * 1 - 3 * 1) / 6)
    assert by_system["ref"] == 0.0
    plain = scores("--name", "toy mqm", "--aspect", "mqm", "--weighting", "none")
    assert {row["system"]: row["raw"] for row in plain["systems"]}["sysA"] == pytest.approx(-4 / 3)


def test_candidate_weighting_of_a_campaign(campaign):
    """Weights from the campaign's item texts (what the judges saw), an independent path."""
    result = scores("--name", "Spring", "--aspect", "adequacy", "--weighting", "candidate")
    cells: dict[tuple[str, str], list[float]] = defaultdict(list)
    words: dict[tuple[str, str], int] = {}
    for row in campaign_judgment_rows(campaign=campaign):
        if row["aspect"] == "adequacy" and not row["is_repeat"] and row["kind"] != "reference":
            key = (row["system"], row["seg_id"] or str(row["segment_index"] + 1))
            cells[key].append(float(row["score"]))
            words[key] = len(row["text"].split())
    unweighted_differs = False
    for system in {key[0] for key in cells}:
        keys = [key for key in cells if key[0] == system]
        means = {key: sum(cells[key]) / len(cells[key]) for key in keys}
        expected = sum(words[key] * means[key] for key in keys) / sum(words[key] for key in keys)
        ours = next(row for row in result["systems"] if row["system"] == system)
        assert ours["raw"] == pytest.approx(expected, rel=1e-12)
        unweighted_differs |= not math.isclose(expected, sum(means.values()) / len(keys))
    assert unweighted_differs  # the lengths matter in this campaign


@pytest.mark.parametrize("weighting", ["candidate", "reference"])
def test_length_weighting_without_a_test_set_is_refused_clearly(files, weighting):
    imported(files)
    with pytest.raises(CommandError) as caught:
        scores("--name", "toy mqm", "--weighting", weighting)
    assert str(caught.value) == NO_TEXTS_FOR_WEIGHTING.format(weighting=weighting, name="toy mqm")


# ---------------------------------------------------------------- WMT21 DA end to end

WMT21_DA = ("wmt21-news-cs-en", "humaneval", "newstest2021-toen")


def _official(name: str) -> list[list[str]]:
    lines = shared_path(*WMT21_DA, name).read_text().splitlines()
    return [line.split() for line in lines[1:] if line.strip()]


def _printed(value: float) -> str:
    """As R's write.table prints a number: 15 significant digits."""
    return f"{value:.15g}"


@pytest.mark.shared_data
def test_wmt21_da_import_and_scores_reproduce_the_official_files(tmp_path):
    """import_judgments wmt-da-csv ... --judge-stats ... then human_scores --json: every segment
    and system score of ad-seg-scores-cs-en.csv and ad-sys-scores-cs-en.csv, raw and z, to the
    printed digits, with the z recomputed from the raw scores and with WMT's z as given."""
    folder = shared_path(*WMT21_DA)
    call_command("import_judgments", "wmt-da-csv", str(folder / "ad-csen-good-stnd.csv"),
                 "--judge-stats", str(folder / "ad-csen-trk-mean-sd.txt"), "--name", "wmt21",
                 stdout=StringIO())  # fmt: skip
    segments = _official("ad-seg-scores-cs-en.csv")
    systems = _official("ad-sys-scores-cs-en.csv")
    for z_source in ("computed", "given"):
        result = scores("--name", "wmt21", "--segments", "--z-source", z_source,
                        "--wmt-rounding", "--bootstrap", "0")  # fmt: skip
        assert f"z:{z_source}|round:7/15/15" in result["signature"]
        assert "weight:none" in result["signature"]
        ours = {(row["system"], row["segment_id"]): row for row in result["segments"]}
        assert len(ours) == len(segments) == 8155
        for sys_id, sid, raw, z, n in segments:
            row = ours[(system_name(sys_id), sid)]
            assert (_printed(row["raw"]), _printed(row["normalized"])) == (
                _printed(float(raw)),
                _printed(float(z)),
            ), (z_source, sys_id, sid)
            assert row["n"] == int(n)
        by_system = {row["system"]: row for row in result["systems"]}
        assert len(by_system) == len(systems) == 9
        for raw, z, n, sys_id, n_all in systems:
            row = by_system[system_name(sys_id)]
            assert _printed(row["raw"]) == _printed(float(raw)), (z_source, sys_id)
            assert _printed(row["normalized"]) == _printed(float(z)), (z_source, sys_id)
            assert (row["n_segments"], row["n_judgments"]) == (int(n), int(n_all))
    # The default (auto: computed from the raw scores, full precision) is off by WMT's rounding
    # of the judges' statistics only.
    default = scores("--name", "wmt21", "--bootstrap", "0")
    assert "z:computed|round:none" in default["signature"]
    official = {system_name(row[3]): float(row[1]) for row in systems}
    for row in default["systems"]:
        assert math.isclose(row["normalized"], official[row["system"]], abs_tol=1e-5)


# The command's modules, loaded in a fresh interpreter: which heavy modules come with them.
LOADED = """
import json, sys
import django
django.setup()
import judging.humanscores.management.commands.human_scores
print(json.dumps(sorted(m for m in ("scipy", "scipy.stats") if m in sys.modules)))
"""


def test_the_command_starts_without_scipy():
    """scipy.stats takes about a second to import and the human-score path never uses it: the
    two modules that do (``judging.qc``, ``metrics.core.agreement``) import it where it runs."""
    done = subprocess.run(
        [sys.executable, "-c", LOADED],
        cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "evaltrans.settings.test"},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
