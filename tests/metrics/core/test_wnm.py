"""WNM: the spec's C.2.7 vector (S-scores and P/R/F, weighted and not), test-set salience,
corpus statistics from a file or as text (one signature, errors naming the line, the size
cap), the CLI, WNM × C."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from metrics.core import cli, wnm
from metrics.core.base import MeasureError
from metrics.core.complexity import NORMALISATION_EXPONENTS
from metrics.core.wnm import (
    WNM,
    CorpusStats,
    corpus_stats_digest,
    parse_corpus_stats,
    read_corpus_stats,
    salience,
    segment_salience,
)

CORPUS_FILE = "<CorpStat>;30;3\nthe;6;3\nsat;1;1\nmat;1;1\non;3;3\n"
REFERENCE = "the cat sat on the mat"
CANDIDATE = "the cat is on a mat"


def test_c27_salience_scores():
    corpus = CorpusStats(
        {"the": 6, "sat": 1, "mat": 1, "on": 3}, {"the": 3, "sat": 1, "mat": 1, "on": 3}, 30, 3
    )
    scores = salience(Counter(REFERENCE.split()), corpus)
    assert scores == pytest.approx(
        {"the": 0.0, "cat": 1.504077, "sat": 0.182322, "on": 0.0, "mat": 0.182322}, abs=1e-6
    )


@pytest.fixture
def corpus_file(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text(CORPUS_FILE, encoding="utf-8")
    return path


def test_c27_scores(corpus_file):
    measure = WNM(tokenize="none", corpus_stats=str(corpus_file))
    stats = measure.statistics([CANDIDATE], [[REFERENCE]])
    assert stats[0].tolist() == pytest.approx([18, 18, 5, 11.257828, 12.898722, 3.190476], abs=1e-6)
    values = measure.values_of(stats[0])
    assert values["P"] == values["R"] == values["F"] == pytest.approx(0.277778, abs=1e-6)
    assert values["PW"] == pytest.approx(0.283401, abs=1e-6)
    assert values["RW"] == pytest.approx(0.247348, abs=1e-6)
    assert values["FW"] == pytest.approx(0.264150, abs=1e-6)
    assert measure.aggregate(stats).score == pytest.approx(24.7348, abs=1e-4)


def test_test_set_salience_treats_each_segment_as_a_text():
    texts = [Counter("a b".split()), Counter("a c".split()), Counter("d".split())]
    tables = segment_salience(texts)
    # "b" in text 0: P_doc 1/2, P_rest 0, P_corpus 1/5, (N − df)/N = 2/3 -> ln(5/3).
    assert tables[0]["b"] == pytest.approx(math.log(5 / 3))
    # "a" in text 0: P_doc 1/2, P_rest 1/3, P_corpus 2/5, (N − df)/N = 1/3 (negative S).
    assert tables[0]["a"] == pytest.approx(math.log((1 / 2 - 1 / 3) * (1 / 3) / (2 / 5)))
    assert tables[2] == {"d": pytest.approx(math.log(1 * (2 / 3) / (1 / 5)))}


def test_identical_text_scores_100_percent():
    measure = WNM()
    refs = [["the cat sat"], ["a dog barked"], ["birds fly south"], ["fish swim"]]
    result = measure.corpus_score([r[0] for r in refs], refs)
    assert result.details["R"] == result.details["P"] == pytest.approx(100.0)
    assert result.details["RW"] == pytest.approx(100.0)


def test_bad_corpus_file_is_a_measure_error(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("word;1;1\n", encoding="utf-8")
    with pytest.raises(MeasureError, match="corpus-stats"):
        WNM(corpus_stats=str(path)).context([["a"]])


def test_cli_scores_wnm_with_corpus_file(tmp_path, corpus_file, capsys):
    hyp, ref = tmp_path / "h", tmp_path / "r"
    hyp.write_text(CANDIDATE + "\n", encoding="utf-8")
    ref.write_text(REFERENCE + "\n", encoding="utf-8")
    assert (
        cli.main(
            [
                "score",
                "--measure",
                "wnm",
                "--ref",
                str(ref),
                "--hyp",
                str(hyp),
                "--option",
                f"corpus-stats={corpus_file}",
                "--option",
                "score=FW",
            ]
        )
        == 0
    )
    assert json.loads(capsys.readouterr().out)["score"] == pytest.approx(26.4150, abs=1e-4)


def test_wnm_times_c_matches_the_paper_rounding() -> None:
    """C.2.8: WNM raw 0.3247 × 1.075 → 0.349; the exponent of WNM is 1."""
    assert NORMALISATION_EXPONENTS["wnm"] == 1.0
    wnm = WNM(complexity_factor=1.075)
    assert (
        round(wnm.aggregate(np.array([[10.0, 10.0, 3.247, 10.0, 10.0, 3.247]])).score / 100, 3)
        == 0.349
    )


def test_statistics_as_text_score_and_sign_as_the_file(corpus_file):
    from_file = WNM(tokenize="none", corpus_stats=str(corpus_file))
    from_text = WNM(tokenize="none", corpus_stats_text=CORPUS_FILE)
    refs = [[REFERENCE]]
    assert from_text.corpus_score([CANDIDATE], refs).score == pytest.approx(24.7348, abs=1e-4)
    assert str(from_text.signature(1)) == str(from_file.signature(1))
    assert f"|corpus:{corpus_stats_digest(CORPUS_FILE)}|" in str(from_text.signature(1))
    assert "corpustext" not in str(from_text.signature(1))
    assert "|corpus:|" in str(WNM().signature(1))  # no statistics: the signature as before


def test_statistics_are_given_one_way(corpus_file):
    with pytest.raises(MeasureError, match="give the statistics one way"):
        WNM(corpus_stats=str(corpus_file), corpus_stats_text=CORPUS_FILE)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\n", "line 1: the first line must be"),
        ("<CorpStat>;30\n", "line 1: the first line must be"),
        ("<CorpStat>;x;3\n", "line 1: tokens 'x' is not a whole number"),
        ("<CorpStat>;30;3\nthe;6\n", "line 2: expected word;frequency;texts"),
        ("<CorpStat>;30;3\n\nthe;-1;3\n", "line 3: frequency '-1' is not a whole number"),
        (f"<CorpStat>;{10**16};3\n", "line 1: tokens .* is not a whole number from 0"),
        ("<CorpStat>;30;3\nthe;" + "9" * 5000 + ";3\n", "line 2: frequency"),
    ],
)
def test_malformed_statistics_name_the_line(text, message):
    with pytest.raises(MeasureError, match=f"option corpus-stats-text: {message}"):
        WNM(corpus_stats_text=text)


def test_a_statistics_file_above_the_cap_is_refused(corpus_file, monkeypatch):
    monkeypatch.setattr(wnm, "CORPUS_STATS_MAX_BYTES", 10)
    with pytest.raises(MeasureError, match="larger than 10 bytes"):
        read_corpus_stats(corpus_file)


def test_a_missing_statistics_file_is_named(tmp_path):
    with pytest.raises(MeasureError, match="corpus-stats: .*missing.txt: cannot read"):
        WNM(corpus_stats=str(tmp_path / "missing.txt"))


def test_a_byte_order_mark_is_skipped():
    assert parse_corpus_stats("\ufeff" + CORPUS_FILE).tokens == 30
